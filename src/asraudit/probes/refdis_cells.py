"""Cells: a hypothesis aligned once to the reference, and what a model wrote at an edit's place.

The miner (``probes.refdis``) reads every vote and every verdict from these
cells, so one alignment per model and clip serves both; see that module's
docstring for why following an edit is read from words, not from alignment
operations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from rapidfuzz.distance import Levenshtein

try:  # the cell layout's loops in C (optional, built with the package): the same values as the Python below
    from asraudit.probes import _refdis_fast as _fast
except ImportError:  # not built (no compiler at install): the Python code, which stays the reference
    _fast = None

COMPILED = _fast is not None  # whether HypCells lays out its cells with the compiled module


class HypCells:
    """A hypothesis cut into 2n+1 cells against an n-token reference.

    Cell ``2g`` is gap g (words inserted before reference token g), cell
    ``2i+1`` is reference token i.  ``bounds[c]:bounds[c+1]`` is the slice of
    the hypothesis in cell c, so any stretch of cells maps to hypothesis text
    with one slice.  Built from one alignment; everything a probe asks of a
    model on a clip is read from here.
    """

    __slots__ = ("hyp", "hits", "_n", "_ref", "_ops", "_edits", "_bounds", "_diff")

    def __init__(self, ref: Sequence[str], hyp: Sequence[str]):
        n = len(ref)
        self._n = n
        self.hyp = hyp = tuple(hyp)
        ref = tuple(ref)
        self._bounds: list[int] | None = None
        self._diff: list[bool] | None = None
        self._edits: list | None = None
        if hyp == ref:  # the aligner's answer for equal sequences (one equal block), without asking it
            self._ops = [("equal", 0, n, 0, n)] if n else []
            self.hits = n
            return
        if _fast is not None:
            # Compiled: the aligner's editops (rapidfuzz's opcodes are their ``as_opcodes()``, so they are the same
            # alignment, without the opcodes built) laid out in one pass, hits and bounds (wanted for nearly every
            # cells); the opcodes are made only if the Python code asks for them (``_opcodes``).
            self._ref = ref
            self._ops = None
            self._edits = edits = Levenshtein.editops(ref, hyp).as_list()
            self.hits, self._bounds = _fast.layout_edits(edits, n, len(hyp))
            return
        # The aligner's opcodes, kept as they come: a miner builds cells for every model on every clip but
        # reads most of them only for their hits, and their words only on clips where the panel chose an
        # edit, so the cell bounds are built on first use (``bounds``).
        self._ops = ops = Levenshtein.opcodes(ref, hyp).as_list()
        hits = 0
        for tag, i1, i2, _, _ in ops:
            if tag == "equal":
                hits += i2 - i1
        self.hits = hits

    @property
    def bounds(self) -> list[int]:
        """``bounds[c]:bounds[c + 1]`` is the hypothesis slice in cell c (all 2n+2 of them, built on first use).

        An unequal replace block is split as ``text.align.align`` splits it: its first min(a, b) tokens get one
        hypothesis word each, further tokens none (deleted), further words fall in the gap after it."""
        if self._bounds is None and _fast is not None:
            self._bounds = _fast.layout(self._opcodes(), len(self.hyp))[1]
        if self._bounds is None:
            # Token i's bounds s_i, e_i come in order, opcode after opcode: a block's first k tokens read one
            # word each from hypothesis position j1 on (j1, j1+1, j1+1, j1+2, ..., j1+k: the ladder's slice
            # from 2*j1), its further tokens are deleted (empty, at j1+k), an insertion adds no token.
            j_end = len(self.hyp)
            ladder = _ladder(j_end)
            bounds = [0]
            extend = bounds.extend
            for _, i1, i2, j1, j2 in self._opcodes():
                a, b = i2 - i1, j2 - j1
                # the first min(a, b) tokens get one hypothesis word each (none for a deletion, an insertion),
                # the further a - b (where a > b) none; written out, not min(): this runs for every opcode
                if a <= b:
                    if a:
                        extend(ladder[2 * j1:2 * (j1 + a)])
                else:
                    if b:
                        extend(ladder[2 * j1:2 * (j1 + b)])
                    extend([j1 + b] * (2 * (a - b)))
            bounds.append(j_end)
            self._bounds = bounds
        return self._bounds

    @property
    def diff(self) -> list[bool]:
        """Per cell, whether the hypothesis differs there: a gap with words in it, a token not matched.

        Built on first use: the miner reads it for panel members only (their votes)."""
        if self._diff is None and _fast is not None:
            self._diff = _fast.diff_edits(self._edits, self.bounds) if self._edits is not None else \
                _fast.diff(self._opcodes(), self.bounds)
        if self._diff is None:
            b = self.bounds
            diff = [True] * (len(b) - 1)
            diff[0::2] = [lo < hi for lo, hi in zip(b[0::2], b[1::2])]
            for tag, i1, i2, _, _ in self._opcodes():
                if tag == "equal":
                    diff[2 * i1 + 1:2 * i2 + 1:2] = [False] * (i2 - i1)
            self._diff = diff
        return self._diff

    def _opcodes(self) -> list:
        """The aligner's opcodes (made from the reference where the compiled path kept only its editops)."""
        if self._ops is None:
            self._ops = Levenshtein.opcodes(self._ref, self.hyp).as_list()
        return self._ops

    def text(self, lo: int, hi: int) -> tuple[str, ...]:
        """Hypothesis words in cells ``lo`` .. ``hi - 1``."""
        bounds = self._bounds or self.bounds  # the attribute once built: read for every model at every edit
        return self.hyp[bounds[lo]:bounds[hi]]

    def hyp_span(self, lo: int, hi: int) -> tuple[int, int]:
        """Hypothesis token indices covered by cells ``lo`` .. ``hi - 1``."""
        bounds = self._bounds or self.bounds
        return bounds[lo], bounds[hi]

    def regions(self) -> list[tuple[int, int]]:
        """Maximal stretches of differing cells, as ``(first cell, last cell + 1)``."""
        if _fast is not None:
            return _fast.regions(self.diff)
        out: list[tuple[int, int]] = []
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


_LADDER: list[int] = []


def _ladder(n: int) -> list[int]:
    """``[0, 1, 1, 2, 2, 3, ..., n]`` or longer: item ``2j`` is j, item ``2j + 1`` is j + 1, so the bounds of k
    one-word tokens from hypothesis position j are one slice of it.  Made anew (never changed in place, so a
    thread reading the old one is safe) when a hypothesis is longer than any before, at least doubled."""
    global _LADDER
    ladder = _LADDER
    if len(ladder) < 2 * n:
        ladder = _LADDER = [x for j in range(max(n, len(ladder), 64)) for x in (j, j + 1)]
    return ladder


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
    if _fast is not None and type(place.ref_words) is tuple and type(place.audio_words) is tuple:
        return _fast.reading(cells.hyp, cells._bounds or cells.bounds, place.lo, place.hi, place.ref_words,
                             place.audio_words, place.apart)
    return reading_of(cells.text(place.lo, place.hi), place)


def compiled_cells():
    """The compiled module (``_refdis_fast``: proposals, followers, texts, verdicts and readings of words in
    cells), or None where it is not built (or switched off: tests set ``_fast`` to None for the Python path)."""
    return _fast


def reading_of(words: tuple[str, ...], place: Place) -> str:
    """``reading`` of the words a hypothesis wrote at ``place`` (models writing the same words read the same).

    Words equal to one version need no distances: their distance to it is 0 and to the other is ``apart``
    (the distance is symmetric), which the rule below reads as "audio" for the audio version and, the
    versions being different (``apart`` > 0) once that test failed, as "ref" for the reference version.
    Most readings are one of the two: a model follows the edit or writes the reference."""
    if words == place.audio_words:
        return "audio"
    if words == place.ref_words:
        return "ref"
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
