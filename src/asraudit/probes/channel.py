"""Channels: what one trigger-battery condition does to one clip, for the probes.

A battery condition is more than audio -> audio.  A donor splice adds words
that are not in the clip's reference; a truncation keeps only some of the
clip's words; a re-voicing replaces the audio, so word timings no longer
hold.  The probes must know, or they would score the donor's words as
errors or teacher-force words that are no longer in the audio.  A
``Channel`` carries, for one clip (or one masked target):

- ``condition``: the audio condition, applied *after* any span mask, so the
  mask hides the word in the original recording and the channel then acts on
  the whole clip (noise fills the hole as it fills the rest, a splice shifts
  nothing the mask needs);
- ``prefix`` / ``suffix``: what the added audio says (a donor's transcript),
  so hypotheses are read against prefix + reference + suffix and
  teacher-forced texts include them;
- ``word_range``: the clip words that survive (a truncation window);
- ``keeps_timing``: whether the clip's word timings still hold (not after
  re-voicing), i.e. whether span masks can be applied.

The identity channel (``Channel()``) leaves everything as it is, and its
jobs have exactly the keys of the plain probes, so a battery reuses the
plain runs from the store.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from asraudit.audio.conditions import Compose, Condition, DonorSplice, Original, Revoice, Silence, Truncate, compose


def changes_length(condition: Condition) -> bool:
    """Whether a condition's output can differ in length from its input."""
    steps = condition.steps if isinstance(condition, Compose) else (condition,)
    return any(isinstance(s, (DonorSplice, Truncate, Revoice)) for s in steps)


@dataclass(frozen=True)
class Channel:
    condition: Condition = field(default_factory=Original)
    prefix: str = ""
    suffix: str = ""
    word_range: tuple[int, int] | None = None
    keeps_timing: bool = True

    def audio(self, mask: Condition | None = None) -> Condition:
        """The condition of a job: the mask (if any) first, then the channel."""
        return compose(mask, self.condition) if mask is not None else compose(self.condition)

    def silence(self) -> Condition:
        """x_∅ for this channel: zeros as long as the channel's output.

        Plain ``Silence`` when the channel keeps the length (its jobs are then
        shared with every other such channel and with the plain probes)."""
        return compose(self.condition, Silence()) if changes_length(self.condition) else Silence()

    def view(self, words: Sequence[str]) -> tuple[list[str], int]:
        """The words the channel's audio says, and where the clip's word 0 lands in them.

        A clip word ``i`` is at ``i + shift`` in the view (when kept)."""
        lo, hi = self.word_range if self.word_range is not None else (0, len(words))
        before = self.prefix.split()
        return before + list(words[lo:hi]) + self.suffix.split(), len(before) - lo

    def kept(self, index: int) -> bool:
        if self.word_range is None:
            return True
        return self.word_range[0] <= index < self.word_range[1]
