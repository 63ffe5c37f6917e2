"""How many tokens a white-box Whisper writes a text with, read from its tokenizer file without building it.

A decoder steering entry of an audit (``positions = "first:N"`` or
``"each:N"``) forces the first N - 1 tokens of each learning clip's reference;
a reference with fewer was found by the mechanism stage, the last, after every
other stage ran.  The embedded Whispers and CTranslate2 Whisper folders keep
the tokenizer beside the weights (``tokenizer.json``), read here as the
white-box model reads it (``WhisperTokenizer``), so ``--check`` counts the
same tokens.  For other families (and plug-in models) the answer is None and
the stage checks the text when it learns.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from asraudit.errors import InputError
from asraudit.models import embedded
from asraudit.models.registry import registered_models


def _tokenizer_file(model: str) -> Path | None:
    if registered_models().get(model) is not None:
        return None
    if model in embedded.EMBEDDED_MODELS:
        return Path(embedded.locate(model)) / "tokenizer.json" if embedded.is_present(model) else None
    folder = Path(model)
    if (folder / "model.bin").is_file() and (folder / "tokenizer.json").is_file():
        return folder / "tokenizer.json"
    return None


def token_counter(model: str) -> Callable[[str], int] | None:
    """``text -> tokens`` of the white-box model ``model`` (a name or folder), or None when its files do not say."""
    path = _tokenizer_file(model)
    if path is None or not path.is_file():
        return None
    try:
        from asraudit.models.whisper_tokenizer import WhisperTokenizer

        tokenizer = WhisperTokenizer(path, multilingual=False)  # the language tokens are not part of a text
    except (ImportError, InputError, OSError, ValueError):
        return None  # loading the model will say why
    return lambda text: len(tokenizer.encode(text).ids) if text else 0
