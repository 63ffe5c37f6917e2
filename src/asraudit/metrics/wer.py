"""WER, CER, S/D/I counts and transcript precision, per clip and per corpus.

Corpus WER is total errors over total reference words (as jiwer and the Open
ASR Leaderboard compute it), not a mean of clip WERs: short clips would
otherwise dominate.

Transcript precision (Faria et al., "Toward Zero Oracle Word Error Rate on the
Switchboard Benchmark", 2022) is the share of hypothesis words that are
correct, ``(N_hyp - S - I) / N_hyp``.  It does not penalize deletions, so a
model that leaves out what it could not hear is not punished the way WER
punishes it, while every word it writes must be right.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
from rapidfuzz.distance import Levenshtein

from asraudit.arguments import paired_texts
from asraudit.errors import InputError
from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED, Interval, bootstrap_ratio, check_resampling_args
from asraudit.text.align import edit_counts


@dataclass(frozen=True, slots=True)
class ClipCounts:
    """Error counts of one clip, on normalized tokens."""

    ref_words: int
    hyp_words: int
    substitutions: int
    deletions: int
    insertions: int

    @property
    def errors(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    @property
    def hits(self) -> int:
        return self.ref_words - self.substitutions - self.deletions

    @property
    def wer(self) -> float:
        return self.errors / self.ref_words if self.ref_words else float("nan")


def word_errors(ref_tokens: Sequence[str], hyp_tokens: Sequence[str]) -> int:
    """``clip_counts(...).errors`` without the breakdown: S + D + I of a minimum-edit alignment is the edit
    distance itself, which rapidfuzz computes without building the operations."""
    return Levenshtein.distance(ref_tokens, hyp_tokens)


def clip_counts(ref_tokens: Sequence[str], hyp_tokens: Sequence[str]) -> ClipCounts:
    s, d, i = edit_counts(ref_tokens, hyp_tokens)
    return ClipCounts(len(ref_tokens), len(hyp_tokens), s, d, i)


@dataclass(frozen=True)
class CorpusScore:
    """Aggregate error rate over clips, with a clip-level bootstrap interval."""

    rate: float
    substitutions: int
    deletions: int
    insertions: int
    ref_units: int
    hyp_units: int
    clips: int
    interval: Interval
    per_clip: tuple[ClipCounts, ...] = field(repr=False, default=())

    @property
    def errors(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    @property
    def precision(self) -> float:
        """Transcript precision: correct hypothesis units / hypothesis units."""
        if self.hyp_units == 0:
            return float("nan")
        return (self.hyp_units - self.substitutions - self.insertions) / self.hyp_units

    def errors_array(self) -> np.ndarray:
        return np.array([c.errors for c in self.per_clip], dtype=np.int64)

    def ref_array(self) -> np.ndarray:
        return np.array([c.ref_words for c in self.per_clip], dtype=np.int64)


def aggregate(
    counts: Sequence[ClipCounts],
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
) -> CorpusScore:
    """Sum clip counts into a corpus score with a bootstrap 95% interval."""
    arr = np.array(
        [(c.substitutions, c.deletions, c.insertions, c.ref_words, c.hyp_words) for c in counts],
        dtype=np.int64,
    ).reshape(-1, 5)
    s, d, i, n, h = (int(x) for x in arr.sum(axis=0))
    interval = bootstrap_ratio(arr[:, 0] + arr[:, 1] + arr[:, 2], arr[:, 3], n_boot=n_boot, seed=seed)
    rate = (s + d + i) / n if n else float("nan")
    return CorpusScore(rate, s, d, i, n, h, len(counts), interval, tuple(counts))


def corpus_wer(
    refs: Iterable[str],
    hyps: Iterable[str],
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
) -> CorpusScore:
    """Corpus WER of already-normalized texts (tokens are split on whitespace).

    ``refs`` and ``hyps`` are lists (or any iterables) of ``str``, one per clip, paired by position; one
    string, a dict, or an entry that is not a ``str`` is refused (``InputError``), as are lists of two lengths."""
    check_resampling_args(n_boot=n_boot, seed=seed)
    refs, hyps = paired_texts(refs, hyps)
    counts = [clip_counts(r.split(), h.split()) for r, h in zip(refs, hyps)]
    _check_scorable(counts, "word")
    return aggregate(counts, n_boot=n_boot, seed=seed)


def corpus_cer(
    refs: Iterable[str],
    hyps: Iterable[str],
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
) -> CorpusScore:
    """Corpus CER of already-normalized texts; the spaces between words count as characters and whitespace at
    either end of a text does not, as in jiwer (its ``cer`` strips each text).  ``refs`` and ``hyps`` are checked as
    :func:`corpus_wer`'s are.

    Counted as characters, a leading space (Whisper's raw transcripts start with one: ``" The cat"`` lowercased by
    a caller's own normalizer) or a trailing newline (texts read line by line) was one insertion per clip: a CER of
    0.4 where jiwer gives 0.0, while :func:`corpus_wer`, splitting on whitespace, never saw it."""
    check_resampling_args(n_boot=n_boot, seed=seed)
    refs, hyps = paired_texts(refs, hyps)
    counts = [clip_counts(list(r.strip()), list(h.strip())) for r, h in zip(refs, hyps)]
    _check_scorable(counts, "character")
    return aggregate(counts, n_boot=n_boot, seed=seed)


def _check_scorable(counts: Sequence[ClipCounts], unit: str) -> None:
    """Refuse texts that give no defined corpus rate, or another rate than ``asraudit wer``'s, before any
    bootstrap: no clip at all (the rate was NaN, without a word), or a clip whose reference has no ``unit``.
    Such a clip has no rate of its own, and its hypothesis's units counted as insertions against the other
    clips' units (``["", "a"]`` against ``["x y", "a"]``: a WER of 2.0), where ``asraudit wer`` and
    ``score_model`` leave it out and list it (0.0 there)."""
    if not counts:
        raise InputError(f"refs and hyps are empty: there is no clip to score (a corpus rate is errors over "
                         f"reference {unit}s, and there are none)")
    empty = [i for i, c in enumerate(counts) if c.ref_words == 0]
    if empty:
        raise InputError(f"refs[{empty[0]}] has no {unit}s (an empty reference; {len(empty)} of {len(counts)} "
                         f"clips have none): a clip without reference {unit}s has no rate, and its hypothesis's "
                         f"{unit}s would count as insertions against the other clips' {unit}s; leave such clips out, "
                         "as asraudit wer and score_model do")
