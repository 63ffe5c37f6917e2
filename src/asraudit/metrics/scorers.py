"""Scorers: how a prediction is turned into word-error counts (normalizer + alignment).

Two are offered because users compare asraudit's numbers with published ones:

- ``asraudit``: the normalizer chosen (Whisper English by default) and a plain
  Levenshtein alignment of the normalized words (``text.align``), as every
  asraudit number so far.
- ``leaderboard``: the Open ASR Leaderboard's scoring, its own English
  normalizer (``text.leaderboard_english``) and kaldialign's
  ``edit_distance`` with ``merge_compounds``: adjacent words of either side
  may be joined, at no cost, to match one word of the other ("white paper"
  vs "whitepaper" is no error).  The reference length stays the count of the
  reference's own words, as the leaderboard divides by it.

The normalizer and the alignment move WER by a few tenths of a point, so
every output records which scorer and normalizer produced it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from asraudit.errors import InputError
from asraudit.metrics.wer import ClipCounts, clip_counts
from asraudit.text.normalize import get_normalizer

SCORERS = ("asraudit", "leaderboard")
# The normalizer each scorer uses unless one is named.
DEFAULT_NORMALIZER = {"asraudit": "whisper", "leaderboard": "leaderboard"}

Counts = Callable[[Sequence[str], Sequence[str]], ClipCounts]


def merged_compound_counts(ref: Sequence[str], hyp: Sequence[str]) -> ClipCounts:
    """Word-error counts with compound merging (kaldialign ``merge_compounds``).

    Module-level, so worker processes can receive it."""
    from kaldialign import edit_distance

    r = edit_distance(list(ref), list(hyp), merge_compounds=True)
    return ClipCounts(len(ref), len(hyp), int(r["sub"]), int(r["del"]), int(r["ins"]))


@dataclass(frozen=True)
class Scorer:
    """A named scorer: the normalizer it applies and how it counts errors on the normalized words."""

    name: str
    normalizer: str
    normalize: Callable[[str], str]
    counts: Counts

    def provenance(self) -> dict[str, str]:
        """What an output records so its numbers can be reproduced."""
        return {"scorer": self.name, "normalizer": self.normalizer}


def counts_argument(value: object, name: str = "counts") -> Counts:
    """The word-error counter a Python caller passes (``measure_refdis(..., counts=)``): a function of the
    reference's and the hypothesis's tokens to a :class:`ClipCounts`, as a scorer's ``counts`` is.  Tried once
    on two tokens before any work: None, a scorer's name or a function of another shape (one argument, one that
    returns a number) was a ``TypeError`` or ``AttributeError`` from inside the WER cost, after the mining."""
    if isinstance(value, str):
        raise InputError(f"{name} is a function (reference tokens, hypothesis tokens) -> ClipCounts, got the "
                         f"string {value!r}: for a scorer by name pass "
                         f"asraudit.metrics.scorers.get_scorer({value!r}).counts")
    if not callable(value) or isinstance(value, type):
        got = "None" if value is None else type(value).__name__
        raise InputError(f"{name} is a function (reference tokens, hypothesis tokens) -> ClipCounts, got {got}")
    if value is clip_counts:
        return value
    trial = (("a", "b"), ("a", "c"))
    try:
        out = value(*trial)
    except TypeError as exc:
        raise InputError(f"{name} is called as {name}(reference tokens, hypothesis tokens) and returns a "
                         f"ClipCounts, but {name}{trial} failed: {exc}") from None
    if not isinstance(out, ClipCounts):
        shown = repr(out) if len(repr(out)) <= 60 else repr(out)[:57] + "..."
        raise InputError(f"{name} returned {shown} for {name}{trial}: it returns a ClipCounts "
                         "(asraudit.metrics.wer.ClipCounts: ref_words, hyp_words, substitutions, deletions, "
                         "insertions), as asraudit.metrics.wer.clip_counts does")
    return value


def get_scorer(name: str = "asraudit", normalizer: str | None = None) -> Scorer:
    """The scorer ``name``; ``normalizer`` overrides the scorer's own (``DEFAULT_NORMALIZER``).

    The leaderboard scorer needs kaldialign (``pip install 'asraudit[leaderboard]'``):
    its absence is an InputError, raised before any file is scored."""
    if name not in SCORERS:
        raise InputError(f"unknown scorer {name!r}; choose one of {', '.join(SCORERS)}")
    normalizer = normalizer or DEFAULT_NORMALIZER[name]
    if name == "asraudit":
        return Scorer(name, normalizer, get_normalizer(normalizer), clip_counts)
    try:
        import kaldialign  # noqa: F401
    except ImportError:
        raise InputError("the leaderboard scorer needs kaldialign: pip install 'asraudit[leaderboard]'") from None
    return Scorer(name, normalizer, get_normalizer(normalizer), merged_compound_counts)
