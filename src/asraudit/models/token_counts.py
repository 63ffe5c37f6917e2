"""How many tokens a white-box model writes a text with, read from its tokenizer files without its weights.

A decoder steering entry of an audit (``positions = "first:N"`` or
``"each:N"``) forces the first N - 1 tokens of each learning clip's reference;
a reference with fewer was found by the mechanism stage, the last, after every
other stage ran.  Each family's count is its own ``text_token_ids``, computed
by the same function over the same tokenizer files, so ``--check`` counts the
tokens the stage forces:

- a Whisper (embedded, a CTranslate2 folder, a transformers folder): the
  ``tokenizer.json`` beside the weights, read as the white-box Whisper reads
  it (``WhisperTokenizer``);
- another encoder-decoder family (Moonshine, Speech2Text, Canary, Cohere
  ASR), a speech LLM (its answer's tokens), a transducer (its labels): the
  folder's processor, loaded as the model loads it, and the family's
  encoding (``models.hf.encode_text``, ``hf_speech_llm.encode_answer``,
  ``hf_transducer.transducer_labels``; a transducer refuses characters its
  vocabulary lacks).

A registered plug-in model, and a name that is no local folder, say nothing:
the answer is None and the stage checks the text when it learns.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from asraudit.errors import InputError
from asraudit.models import embedded
from asraudit.models.registry import registered_models


def _whisper_counter(path: Path) -> Callable[[str], int] | None:
    if not path.is_file():
        return None
    try:
        from asraudit.models.whisper_tokenizer import WhisperTokenizer

        tokenizer = WhisperTokenizer(path, multilingual=False)  # the language tokens are not part of a text
    except (ImportError, InputError, OSError, ValueError):
        return None  # loading the model will say why
    return lambda text: len(tokenizer.encode(text).ids) if text else 0


def _model_type(folder: Path) -> str | None:
    try:
        data = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    kind = data.get("model_type") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else None


def _family_class(folder: Path, model_type: str):
    """The class ``whitebox:hf:<folder>`` loads (``registry._load_whitebox``), or None when it cannot be told."""
    from asraudit.models.whitebox.seq2seq import SITE_PATHS

    if model_type in SITE_PATHS:
        from asraudit.models.hf import HFSeq2Seq

        return HFSeq2Seq  # the runner WhiteboxSeq2Seq takes its text_token_ids from
    try:
        from transformers import AutoConfig

        from asraudit.models.families import family_for

        return family_for(AutoConfig.from_pretrained(str(folder)), str(folder)).load_class()
    except Exception:  # not a folder transformers reads, a family it lacks: loading the model says why
        return None


def token_counter(model: str) -> Callable[[str], int] | None:
    """``text -> tokens`` of the white-box model ``model`` (a name or folder), or None when its files do not say.

    An InputError when the folder's tokenizer files cannot be read (the model could not load either); the counter
    raises ValueError for a text the model cannot write (a transducer's characters outside its vocabulary)."""
    if registered_models().get(model) is not None:
        return None
    if model in embedded.EMBEDDED_MODELS:
        return _whisper_counter(Path(embedded.locate(model)) / "tokenizer.json") if embedded.is_present(model) else None
    folder = Path(model)
    if (folder / "model.bin").is_file():  # a CTranslate2 Whisper
        return _whisper_counter(folder / "tokenizer.json")
    model_type = _model_type(folder) if (folder / "config.json").is_file() else None
    if model_type is None:
        return None
    if model_type == "whisper":  # the white-box Whisper reads the folder's tokenizer.json
        return _whisper_counter(folder / "tokenizer.json")
    family = _family_class(folder, model_type)
    counter = getattr(family, "text_counter", None)
    return None if counter is None else counter(str(folder.resolve()), model_type)
