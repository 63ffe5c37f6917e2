"""Cross-attention masking of a span that differs per clip (the disputed span of each clip's edit).

``CrossAttentionMask`` blocks one span in seconds for every input; the
disputed span is a different one in each clip.  The job grid hands a model
audio, never clip ids, so the span travels the way per-clip sources do: as
a paired source (``SourcesByAudio``) that differs from its clip exactly over
the span, read by ``Frames("changed")``.  The source's activations are
computed (the paired batch) but never used.
"""

from __future__ import annotations

from dataclasses import dataclass

from asraudit.models.whitebox.frames import AudioSource, Frames
from asraudit.models.whitebox.interventions import CrossAttentionMask


@dataclass(frozen=True, repr=False)
class SpanAttentionMask(CrossAttentionMask):
    """The decoder may not attend to the frames where each input's ``source`` differs from it."""

    source: AudioSource = None  # type: ignore[assignment]
    frames: Frames = Frames("changed")
    kind = "attnmask-span"

    def __post_init__(self):
        if self.source is None or self.frames.kind != "changed":
            raise ValueError("a per-clip span mask needs a paired source and frames 'changed'")

    def params(self):
        return {**super().params(), "spans": self.source.id}
