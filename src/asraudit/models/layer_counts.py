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
from pathlib import Path

from asraudit.errors import InputError
from asraudit.models import embedded
from asraudit.models.registry import plugin_call, registered_models
from asraudit.models.whitebox.sites import layer_index

STACKS = ("encoder", "decoder")


def _from_ct2(directory: Path) -> dict[str, int] | None:
    from asraudit.models.whitebox.ct2_format import read_ct2_model
    from asraudit.models.whitebox.tokenizer_config import ConversionError, count_layers

    try:
        ct2 = read_ct2_model(directory / "model.bin")
        return {stack: count_layers(ct2, stack) for stack in STACKS}
    except (ConversionError, InputError, OSError, ValueError):
        return None  # not a Whisper the converter reads: loading it will say why


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
