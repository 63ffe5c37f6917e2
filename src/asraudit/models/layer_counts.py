"""How many encoder and decoder layers a white-box model has, read from its files without building it.

An audit's ``[[mechanism]]`` entry names a layer; the mechanism stage runs
last, after hours of transcription on a large corpus, so a layer the model
lacks should be refused by ``--check``, before anything runs.  Building the
PyTorch model to count its layers costs seconds to minutes; the counts are in
its files: a transformers Whisper folder's ``config.json``
(``encoder_layers``, ``decoder_layers``), a CTranslate2 folder's weight names
(the embedded Whispers are such folders).  Other model families keep the
counts under family-specific keys; for them (and for registered plug-in
models that say nothing) the answer is None and the stage checks the layer
when it loads the model.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from asraudit.errors import InputError
from asraudit.models import embedded
from asraudit.models.registry import plugin_call, registered_models
from asraudit.models.whisper_frontend import CHUNK_SECONDS
from asraudit.models.whitebox.sites import layer_index

STACKS = ("encoder", "decoder")


@lru_cache(maxsize=8)
def _read_ct2(directory: Path) -> tuple[dict[str, int], int] | None:
    """A CTranslate2 Whisper's layer counts and width (its ``model.bin`` read once for both)."""
    from asraudit.models.whitebox.ct2_format import read_ct2_model
    from asraudit.models.whitebox.tokenizer_config import ConversionError, count_layers

    try:
        ct2 = read_ct2_model(directory / "model.bin")
        counts = {stack: count_layers(ct2, stack) for stack in STACKS}
        width = int(ct2.weight("encoder/layer_0/ffn/linear_0/weight").shape[-1])  # [ffn, d_model]
        return counts, width
    except (ConversionError, InputError, OSError, ValueError, KeyError, IndexError):
        return None  # not a Whisper the converter reads: loading it will say why


def _from_ct2(directory: Path) -> dict[str, int] | None:
    found = _read_ct2(directory.resolve())
    return None if found is None else dict(found[0])


def layer_counts(model: str) -> dict[str, int] | None:
    """``{"encoder": n, "decoder": m}`` for a white-box model name or folder, or None when its files do not say."""
    entry = registered_models().get(model)
    if entry is not None:
        return plugin_call(model, "layer_counts", entry.layer_counts) if entry.layer_counts is not None else None
    if model in embedded.EMBEDDED_MODELS:
        if not embedded.is_present(model):
            return None  # the stage's load names the missing wheel
        return _from_ct2(Path(embedded.locate(model)))
    folder = Path(model)
    config = folder / "config.json"
    if not config.is_file():
        return None
    if (folder / "model.bin").is_file():
        return _from_ct2(folder)
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    counts = {stack: data.get(f"{stack}_layers") for stack in STACKS}
    if all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in counts.values()):
        return counts
    return None


def check_layers(wanted: list[tuple[str, str, int]], what: str) -> None:
    """Refuse any ``(model, stack, layer)`` (stack ``encoder``/``decoder``) whose model's files say it does not
    exist; each model's files are read once."""
    counts: dict[str, dict[str, int] | None] = {}
    for model, stack, layer in wanted:
        if model not in counts:
            counts[model] = layer_counts(model)
        if counts[model] is not None:
            layer_index(layer, counts[model][stack], f"{what}: {model} {stack}")


def window_seconds(model: str) -> float | None:
    """The longest input a white-box model decodes in one pass, from its files: 30 s for a Whisper (an embedded
    one, a CTranslate2 Whisper folder, a transformers folder whose ``model_type`` is ``whisper``: the white-box
    Whisper pads or cuts every window to 30 s), a registered plug-in's when it says; None when the files do not
    say (other families), and the mechanism stage checks once it has loaded the model."""
    entry = registered_models().get(model)
    if entry is not None:
        return plugin_call(model, "window_seconds", entry.window_seconds) if entry.window_seconds is not None else None
    if model in embedded.EMBEDDED_MODELS:
        return float(CHUNK_SECONDS)
    folder = Path(model)
    config = folder / "config.json"
    if not config.is_file():
        return None
    if (folder / "model.bin").is_file():
        return float(CHUNK_SECONDS) if _from_ct2(folder) is not None else None
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return float(CHUNK_SECONDS) if isinstance(data, dict) and data.get("model_type") == "whisper" else None


def hidden_size(model: str) -> int | None:
    """The width of a white-box Whisper's residual stream (``d_model``: the encoder's and decoder's), from its
    files, as ``window_seconds`` finds them; None when they do not say, and the mechanism stage compares widths
    once it has loaded the model."""
    entry = registered_models().get(model)
    if entry is not None:
        return plugin_call(model, "hidden_size", entry.hidden_size) if entry.hidden_size is not None else None
    if model in embedded.EMBEDDED_MODELS:
        if not embedded.is_present(model):
            return None
        found = _read_ct2(Path(embedded.locate(model)).resolve())
        return None if found is None else found[1]
    folder = Path(model)
    config = folder / "config.json"
    if not config.is_file():
        return None
    if (folder / "model.bin").is_file():
        found = _read_ct2(folder.resolve())
        return None if found is None else found[1]
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("model_type") != "whisper":
        return None
    width = data.get("d_model")
    return width if isinstance(width, int) and not isinstance(width, bool) and width > 0 else None
