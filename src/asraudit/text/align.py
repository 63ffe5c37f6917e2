"""Word and character alignment between a reference and a hypothesis.

Every probe in asraudit asks the same question of two token sequences: which
reference tokens did the hypothesis keep, replace, drop or add?  The answer is
an explicit list of operations with indices into both sequences, so a probe
can map a reference span to the hypothesis text at the same place.

The core is rapidfuzz's Levenshtein edit operations (C++), which jiwer uses as
well; using the same core means our S/D/I breakdown matches jiwer's whenever
several minimum-cost alignments exist.  Unit costs: substitution, insertion and
deletion all cost 1, as in every published WER.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from rapidfuzz.distance import Levenshtein

OpKind = Literal["equal", "substitute", "insert", "delete"]

_TAG_TO_KIND = {"equal": "equal", "replace": "substitute", "insert": "insert", "delete": "delete"}


@dataclass(frozen=True, slots=True)
class AlignOp:
    """One aligned span: ``ref[ref_start:ref_end]`` becomes ``hyp[hyp_start:hyp_end]``.

    ``insert`` has an empty reference span (the hypothesis adds words),
    ``delete`` an empty hypothesis span (the hypothesis drops words).
    ``equal`` and ``substitute`` spans have the same length on both sides.
    """

    kind: OpKind
    ref_start: int
    ref_end: int
    hyp_start: int
    hyp_end: int

    @property
    def ref_len(self) -> int:
        return self.ref_end - self.ref_start

    @property
    def hyp_len(self) -> int:
        return self.hyp_end - self.hyp_start


@dataclass(frozen=True, slots=True)
class Alignment:
    """The alignment of one reference/hypothesis pair, as spans."""

    ref: tuple[str, ...]
    hyp: tuple[str, ...]
    ops: tuple[AlignOp, ...]

    @property
    def substitutions(self) -> int:
        return sum(op.ref_len for op in self.ops if op.kind == "substitute")

    @property
    def deletions(self) -> int:
        return sum(op.ref_len for op in self.ops if op.kind == "delete")

    @property
    def insertions(self) -> int:
        return sum(op.hyp_len for op in self.ops if op.kind == "insert")

    @property
    def hits(self) -> int:
        return sum(op.ref_len for op in self.ops if op.kind == "equal")

    @property
    def errors(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    def token_pairs(self) -> list[tuple[OpKind, int | None, int | None]]:
        """One entry per token: (kind, ref index or None, hyp index or None)."""
        out: list[tuple[OpKind, int | None, int | None]] = []
        for op in self.ops:
            if op.kind == "insert":
                out.extend(("insert", None, j) for j in range(op.hyp_start, op.hyp_end))
            elif op.kind == "delete":
                out.extend(("delete", i, None) for i in range(op.ref_start, op.ref_end))
            else:
                out.extend(
                    (op.kind, op.ref_start + k, op.hyp_start + k) for k in range(op.ref_len)
                )
        return out

    def ref_to_hyp(self) -> list[int | None]:
        """For each reference token, the hypothesis token aligned to it (None if deleted)."""
        mapping: list[int | None] = [None] * len(self.ref)
        for kind, i, j in self.token_pairs():
            if i is not None:
                mapping[i] = j
        return mapping


def _split_unequal(tag: str, i1: int, i2: int, j1: int, j2: int) -> list[AlignOp]:
    """rapidfuzz never emits unequal replace blocks, but guard the invariant anyway."""
    kind = _TAG_TO_KIND[tag]
    if kind != "substitute" or (i2 - i1) == (j2 - j1):
        return [AlignOp(kind, i1, i2, j1, j2)]
    n = min(i2 - i1, j2 - j1)
    out = [AlignOp("substitute", i1, i1 + n, j1, j1 + n)]
    if i2 - i1 > n:
        out.append(AlignOp("delete", i1 + n, i2, j1 + n, j1 + n))
    else:
        out.append(AlignOp("insert", i1 + n, i1 + n, j1 + n, j2))
    return out


def align(ref: Sequence[str], hyp: Sequence[str]) -> Alignment:
    """Align two token sequences with minimum edit distance (unit costs).

    Deterministic: the same inputs always give the same operations (the
    tie-breaking is rapidfuzz's backtrace order, which is fixed).
    """
    ref_t = tuple(ref)
    hyp_t = tuple(hyp)
    ops: list[AlignOp] = []
    for tag, i1, i2, j1, j2 in Levenshtein.opcodes(ref_t, hyp_t):
        ops.extend(_split_unequal(tag, i1, i2, j1, j2))
    return Alignment(ref_t, hyp_t, tuple(ops))


def align_words(ref_text: str, hyp_text: str) -> Alignment:
    """Align two already-normalized strings word by word (split on whitespace)."""
    return align(ref_text.split(), hyp_text.split())


def align_chars(ref_text: str, hyp_text: str) -> Alignment:
    """Align two strings character by character (for CER)."""
    return align(list(ref_text), list(hyp_text))


def edit_counts(ref: Sequence[str], hyp: Sequence[str]) -> tuple[int, int, int]:
    """(substitutions, deletions, insertions) without building an Alignment.

    The fast path for corpus WER: counts come straight from rapidfuzz's edit
    operations, with no per-token Python objects.
    """
    s = d = i = 0
    for tag, _, _ in Levenshtein.editops(ref, hyp).as_list():
        if tag == "replace":
            s += 1
        elif tag == "delete":
            d += 1
        else:
            i += 1
    return s, d, i
