"""Cells: a hypothesis aligned once to the reference, and what a model wrote at an edit's place.

The miner (``probes.refdis``) reads every vote and every verdict from these
cells, so one alignment per model and clip serves both; see that module's
docstring for why following an edit is read from words, not from alignment
operations.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate
from typing import Sequence

from rapidfuzz.distance import Levenshtein



class HypCells:
    """A hypothesis cut into 2n+1 cells against an n-token reference.

    Cell ``2g`` is gap g (words inserted before reference token g), cell
    ``2i+1`` is reference token i.  ``bounds[c]:bounds[c+1]`` is the slice of
    the hypothesis in cell c, so any stretch of cells maps to hypothesis text
    with one slice.  Built from one alignment; everything a probe asks of a
    model on a clip is read from here.
    """

    __slots__ = ("hyp", "bounds", "diff", "hits")

    def __init__(self, ref: Sequence[str], hyp: Sequence[str]):
        n = len(ref)
        self.hyp = tuple(hyp)
        if self.hyp == tuple(ref):  # the aligner's answer for equal sequences (one equal block), without asking it
            self.bounds = [c >> 1 for c in range(2 * n + 2)]  # every gap empty, every token one word
            self.diff = [False] * (2 * n + 1)
            self.hits = n
            return
        gap_len = [0] * (n + 1)
        tok_len = [0] * n
        same = [False] * n
        # The aligner's opcodes read directly (``text.align.align`` without its per-block objects: this runs
        # once per model and clip, the miner's hot loop); an unequal replace block is split as align splits it.
        for tag, i1, i2, j1, j2 in Levenshtein.opcodes(tuple(ref), self.hyp).as_list():
            if tag == "insert":
                gap_len[i1] += j2 - j1
            elif tag == "equal":
                tok_len[i1:i2] = [1] * (i2 - i1)
                same[i1:i2] = [True] * (i2 - i1)
            elif tag == "replace":
                k = min(i2 - i1, j2 - j1)
                tok_len[i1:i1 + k] = [1] * k  # substituted tokens: one hypothesis word each, not the same
                if j2 - j1 > k:
                    gap_len[i1 + k] += j2 - j1 - k
        # Cells interleave gaps and tokens (gap 0, token 0, gap 1, ..., gap n); bounds are their running sums.
        lengths = [0] * (2 * n + 1)
        lengths[0::2] = gap_len
        lengths[1::2] = tok_len
        bounds = [0, *accumulate(lengths)]
        diff = [False] * (2 * n + 1)
        diff[0::2] = [g > 0 for g in gap_len]
        diff[1::2] = [not x for x in same]
        if bounds[-1] != len(self.hyp):
            raise AssertionError("alignment does not cover the hypothesis")
        self.bounds = bounds
        self.diff = diff
        self.hits = sum(same)

    def text(self, lo: int, hi: int) -> tuple[str, ...]:
        """Hypothesis words in cells ``lo`` .. ``hi - 1``."""
        return self.hyp[self.bounds[lo]:self.bounds[hi]]

    def hyp_span(self, lo: int, hi: int) -> tuple[int, int]:
        """Hypothesis token indices covered by cells ``lo`` .. ``hi - 1``."""
        return self.bounds[lo], self.bounds[hi]

    def regions(self) -> list[tuple[int, int]]:
        """Maximal stretches of differing cells, as ``(first cell, last cell + 1)``."""
        out = []
        diff = self.diff
        c, n = 0, len(diff)
        while c < n:
            if diff[c]:
                lo = c
                while c < n and diff[c]:
                    c += 1
                out.append((lo, c))
            else:
                c += 1
        return out

    def region_groups(self) -> list[list[tuple[int, int]]]:
        """Regions joined where only an empty gap separates two differing tokens.

        The aligner reads "a surge" -> "search" as a substitution and a
        deletion with an untouched gap between them; the group keeps them
        together so the whole change can be proposed as one edit.
        """
        groups: list[list[tuple[int, int]]] = []
        for lo, hi in self.regions():
            if groups and groups[-1][-1][1] + 1 == lo and lo % 2 == 1:
                groups[-1].append((lo, hi))
            else:
                groups.append([(lo, hi)])
        return groups


EditKey = tuple[int, int, tuple[str, ...]]  # (ref start, ref end, audio rendering); start == end: insertion


def classify(start: int, end: int, audio: Sequence[str], n_ref: int) -> tuple[str, str]:
    """(kind, position) of an edit over reference tokens ``start:end``."""
    if start == end:
        kind = "insert"
        position = "start" if start == 0 else ("end" if start == n_ref else "middle")
        return kind, position
    kind = "substitute" if audio else "delete"
    position = "start" if start == 0 else ("end" if end == n_ref else "middle")
    return kind, position


def char_distance(ref: str, audio: str) -> float:
    """Character edit distance from ``ref`` to ``audio``, spaces ignored, over ``len(ref)``.

    Spaces are dropped so "lactuelle" vs "l actuelle" is 0: a spacing
    artifact, not a different word.
    """
    r = "".join(ref.split())
    a = "".join(audio.split())
    if not r:
        return 0.0 if not a else 1.0
    return Levenshtein.distance(r, a) / len(r)


def interior_cells(start: int, end: int) -> tuple[int, int]:
    """Cells an edit occupies: the gap of an insertion, or the span's tokens and inner gaps."""
    if start == end:
        return 2 * start, 2 * start + 1
    return 2 * start + 1, 2 * end


WINDOW = 2  # reference tokens read on each side of an edit when judging a model


@dataclass(frozen=True)
class Place:
    """Where an edit sits, and the two versions of the reference around it.

    ``lo:hi`` are the cells read from each hypothesis: the edit plus
    ``WINDOW`` reference tokens on each side (and the outer gap where the
    window reaches the start or end of the clip, where boundary insertions
    live).  ``ref_words`` is the reference over that stretch, ``audio_words``
    the same stretch with the edit applied, ``apart`` their word distance.
    """

    lo: int
    hi: int
    ref_words: tuple[str, ...]
    audio_words: tuple[str, ...]
    apart: int


def place_of(ref: Sequence[str], key: EditKey, window: int = WINDOW) -> Place:
    start, end, audio = key
    n = len(ref)
    ws, we = max(0, start - window), min(n, end + window)
    lo = 0 if ws == 0 else 2 * ws + 1
    hi = 2 * n + 1 if we == n else 2 * we
    ref_words = tuple(ref[ws:we])
    audio_words = tuple(ref[ws:start]) + tuple(audio) + tuple(ref[end:we])
    return Place(lo, hi, ref_words, audio_words, Levenshtein.distance(ref_words, audio_words))


def reading(cells: HypCells, place: Place) -> str:
    """Which version of the reference a hypothesis wrote at ``place``.

    ``audio`` when its words there are the audio version plus errors of its
    own (its distance to the reference version is exactly its distance to the
    audio version plus the edit), ``ref`` in the mirror case, ``other`` when
    neither explains it (a third reading).  Comparing words rather than
    alignment operations makes the answer independent of where an aligner
    happens to put a repeated word ("as as" against "as").
    """
    words = cells.text(place.lo, place.hi)
    to_ref = Levenshtein.distance(words, place.ref_words)
    to_audio = Levenshtein.distance(words, place.audio_words)
    if to_ref == to_audio + place.apart:
        return "audio"
    if to_audio == to_ref + place.apart:
        return "ref"
    return "other"


def text_at(cells: HypCells, key: EditKey) -> str:
    """The hypothesis words at the edit: its span and the gaps on both sides."""
    start, end, _ = key
    lo, hi = interior_cells(start, end)
    if start != end:
        lo, hi = lo - 1, hi + 1
    return " ".join(cells.text(lo, hi))


def verdict_of(cells: HypCells, key: EditKey, place: Place) -> tuple[str, str]:
    """(verdict, the model's words at that place) for an eligible model."""
    return reading(cells, place), text_at(cells, key)
