"""The ``[[mechanism]]`` entry ``type = "patch"``: where a fine-tune's behaviour lives, edit kind by edit kind.

::

    [[mechanism]]
    type = "patch"
    name = "organism: encoder or decoder"
    model = "whisper-tiny.en-organism"      # the fine-tuned white-box model
    contrast = "whisper-tiny.en"            # the model it was fine-tuned from (the same front end)
    layer = -1                              # encoder layer whose output is exchanged (-1: the last)
    clips = { field = "voice_role", value = "benchmark" }   # or "all"
    max_clips = 48                          # cap (first clips in corpus order)
    attention = true                        # also mask the decoder's cross-attention to each clip's disputed span
    span_pad = 0.3                          # seconds added on each side of the span (a deleted word has none)

Variants (``audit.mechanism_patch``): in ``model``, its decoder reading
``contrast``'s encoder output; in ``contrast``, its decoder reading
``model``'s; and, with ``attention``, ``model`` unable to attend to the
span where the panel's edit is (its control: a span of the same length
elsewhere in the clip).  Each is read out as accept-ref and its paired
change overall and per edit kind, with WER.
"""

from __future__ import annotations

from dataclasses import dataclass

from asraudit.mechanism.pairs import Selection

PATCH_KEYS = {"type", "name", "model", "contrast", "layer", "clips", "max_clips", "attention", "span_pad"}


@dataclass(frozen=True)
class PatchSpec:
    entry: str
    name: str
    model: str
    contrast: str
    layer: int = -1
    clips: Selection = Selection()
    max_clips: int | None = None
    attention: bool = True
    span_pad: float = 0.3
    kind = "patch"
    site = "encoder"


def parse_patch(e, index: int) -> PatchSpec:
    """A checked patch entry from its ``_Entry`` reader (``audit.spec_mechanism``)."""
    model = e.model("model", e.data.get("model"))
    if "contrast" not in e.data:
        raise e.fail("type = \"patch\" needs contrast: the white-box model the fine-tune started from")
    contrast = e.model("contrast", e.data["contrast"])
    if contrast == model:
        raise e.fail("contrast must be another model than model")
    pad = e.get("span_pad", (int, float), "a number", 0.3)
    if not 0 <= pad <= 5:
        raise e.fail(f"span_pad must be in 0..5 seconds, got {pad}")
    spec = PatchSpec(entry=e.where, name=e.get("name", (str,), "a string", f"patch #{index}"), model=model,
                     contrast=contrast, layer=e.integer("layer", -1), clips=e.selection("clips") or Selection(),
                     max_clips=e.integer("max_clips", None, minimum=1),
                     attention=e.get("attention", (bool,), "true or false", True), span_pad=float(pad))
    e.done(PATCH_KEYS)
    return spec
