"""WER of prediction files: each model against the references in its own file.

Normalized references are computed once per clip and shared across models,
since every model of a benchmark carries the same reference text; the
normalizer is the slow part of scoring, not the alignment.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np

from asraudit.arguments import names, once_each
from asraudit.data.predictions import ClipIds, ModelPredictions, PredictionRow, iter_prediction_rows
from asraudit.errors import InputError
from asraudit.metrics.normalized_cache import NormalizedCache  # noqa: F401  (imported from here by callers)
from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED, bootstrap_ratio, check_resampling_args
from asraudit.metrics.stream_rows import (
    CHUNK_BYTES,
    PARALLEL_MIN_BYTES,
    can_parallelize,
    score_file_parallel,
    score_rows,
    text_hash,
)
from asraudit.metrics.wer import ClipCounts, CorpusScore, aggregate, clip_counts
from asraudit.text.normalize import available_cpus, normalizer_argument


@dataclass(frozen=True)
class ModelWER:
    """A model's corpus score plus the clip ids behind ``score.per_clip``."""

    model: str
    clip_ids: tuple[str, ...]
    score: CorpusScore
    # Clips left out because the normalized reference is empty (WER undefined).
    empty_reference_clips: tuple[str, ...] = ()


def score_model(
    preds: ModelPredictions,
    normalize: Callable[[str], str],
    clip_ids: Sequence[str] | None = None,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
) -> ModelWER:
    """Word-level scores of one model over ``clip_ids`` (default: all it ran).

    Clips whose normalized reference is empty are left out and listed: a clip
    with no reference words has no defined WER, and counting its insertions
    against other clips' words would hide them.  ``clip_ids`` is a list of ids that all have a row.
    """
    check_resampling_args(n_boot=n_boot, seed=seed)
    if not isinstance(preds, ModelPredictions):
        hint = " (a PredictionSet holds one per model: preds.models[name])" if hasattr(preds, "models") else ""
        raise InputError(f"preds is one model's predictions, a ModelPredictions{hint}, got {type(preds).__name__}")
    normalize = normalizer_argument(normalize, "normalize")
    ids = names(clip_ids, "clip_ids", "clip ids") if clip_ids is not None else list(preds.rows)
    if clip_ids is not None and not ids:  # set(a.rows) & set(b.rows) of two models that share no clip: a NaN WER
        raise InputError(f"clip_ids is empty: there is no clip to score (the clips two models share, when they "
                         f"share none?); give None to score every clip model {preds.model} has a row for",
                         preds.source)
    once_each(ids, "clip_ids")
    unknown = [cid for cid in ids if cid not in preds.rows]
    if unknown:
        raise InputError(f"clip_ids names clip {unknown[0]!r}, which model {preds.model} has no row for "
                         f"({len(unknown)} of {len(ids)} clip ids have none)", preds.source)
    if isinstance(clip_ids, AbstractSet):
        # A set (the clips two models share: set(a.rows) & set(b.rows)) has no order of its own: iterated in
        # hash order, another one in each process, it reordered the clips the bootstrap resamples, and the
        # interval's bounds changed from run to run.  Its clips are taken in the file's row order.
        wanted = set(ids)
        ids = [cid for cid in preds.rows if cid in wanted]
    kept: list[str] = []
    empty: list[str] = []
    counts: list[ClipCounts] = []
    for cid in ids:
        p = preds.rows[cid]
        ref = normalize(p.reference).split()
        if not ref:
            empty.append(cid)
            continue
        counts.append(clip_counts(ref, normalize(p.hypothesis).split()))
        kept.append(cid)
    return ModelWER(preds.model, tuple(kept), aggregate(counts, n_boot=n_boot, seed=seed), tuple(empty))


# --- a prediction file scored as a stream ----------------------------------------------------------
#
# `asraudit wer` on a million-row file held every row as Python objects (10x the file in
# memory).  A streamed file keeps, per clip, five counts and two 64-bit hashes in numpy
# arrays (~40 bytes a clip, a fraction of the ~190 bytes a leaderboard row takes on disk);
# the texts are read again, by row number, for the few clips a report prints.

# Normalized references kept for reuse across models (they repeat); bounded, so memory is too
# (~330 bytes an entry, ~16 MB in all).  50,000 covers the test split of every common English
# benchmark, so their references are normalized once however many models are scored.
_MEMO_LIMIT = 50_000


class BoundedCache(NormalizedCache):
    """``NormalizedCache`` that forgets everything once it holds ``limit`` strings."""

    def __init__(self, normalize: Callable[[str], str], limit: int = _MEMO_LIMIT):
        super().__init__(normalize)
        self.limit = limit

    def __call__(self, text: str) -> str:
        if len(self._memo) >= self.limit:
            self._memo.clear()
        return super().__call__(text)


@dataclass
class StreamedFile:
    """One prediction file's per-clip counts, columnar, in file order (rows with a hypothesis).

    ``counts`` columns: substitutions, deletions, insertions, reference words,
    hypothesis words.  ``ref_hash`` hashes the whitespace-collapsed raw
    reference, to find files whose references disagree without keeping them."""

    model: str
    source: Path
    clip_hash: np.ndarray
    ref_hash: np.ndarray
    rows: np.ndarray
    counts: np.ndarray
    skipped_missing_hypothesis: int = 0
    empty_reference_clips: list[str] = field(default_factory=list)
    spaced_ids: list[str] = field(default_factory=list)  # clip ids with a space at an end (case 322)

    def __len__(self) -> int:
        return len(self.rows)

    def clip_ids(self) -> ClipIds:
        """The file's ids as ``space_twin`` looks at them: the file keeps hashes, so an id is hashed to be found."""
        hashes = set(self.clip_hash.tolist())
        return ClipIds(lambda cid: text_hash(cid) in hashes, self.spaced_ids)

    def read_rows(self, wanted: Iterable[int]) -> dict[int, PredictionRow]:
        """Row number -> row, for the given rows (one more pass over the file)."""
        wanted = set(int(r) for r in wanted)
        found: dict[int, PredictionRow] = {}
        if not wanted:
            return found
        last = max(wanted)
        for r in iter_prediction_rows(self.source):
            if r.row in wanted:
                found[r.row] = r
            if r.row >= last:
                break
        return found


def stream_file(path: Path, normalize: Callable[[str], str], model: str | None = None, workers: int | None = None,
                min_parallel_bytes: int = PARALLEL_MIN_BYTES, chunk_bytes: int = CHUNK_BYTES,
                counts: Callable[..., ClipCounts] = clip_counts) -> StreamedFile:
    """Score every row of one prediction file as it is read; a duplicate clip id is an InputError.

    Only references go through ``normalize``'s memo (they repeat across models' files;
    hypotheses seldom do), so a bounded memo holds one text per clip, not two.  A JSONL
    file of ``min_parallel_bytes`` or more is scored by ``workers`` processes (default:
    every CPU; ``stream_rows`` says why that changes nothing but the time).  ``counts`` aligns the
    normalized words (a scorer's, ``metrics.scorers``; default: plain Levenshtein)."""
    normalize_hyp = getattr(normalize, "normalize", normalize)
    workers = available_cpus() if workers is None else workers
    if can_parallelize(path, normalize_hyp, workers, min_parallel_bytes):
        scores = score_file_parallel(path, normalize_hyp, workers, chunk_bytes, counts)
    else:
        scores = score_rows(iter_prediction_rows(path), normalize, normalize_hyp, counts)
    out = StreamedFile(model or path.stem, path, np.frombuffer(scores.clip_hash, dtype=np.int64),
                       np.frombuffer(scores.ref_hash, dtype=np.int64), np.frombuffer(scores.rows, dtype=np.int32),
                       np.frombuffer(scores.counts, dtype=np.int32).reshape(-1, 5), len(scores.skipped_rows),
                       scores.empty, scores.spaced)
    _check_unique(out, np.frombuffer(scores.skipped_hash, dtype=np.int64),
                  np.frombuffer(scores.skipped_rows, dtype=np.int32))
    return out


def _check_unique(f: StreamedFile, skipped_hash: np.ndarray, skipped_rows: np.ndarray) -> None:
    """A clip id twice is an InputError at the later row, as ``load_prediction_file`` reports it.

    Equal hashes are confirmed on the ids themselves (re-read), so a hash
    collision can never reject a valid file."""
    pairs: list[tuple[int, int]] = []  # (first row, repeated row)
    if len(f.clip_hash):
        order = np.argsort(f.clip_hash, kind="stable")
        same = np.flatnonzero(f.clip_hash[order][1:] == f.clip_hash[order][:-1])
        pairs += [(int(f.rows[order[i]]), int(f.rows[order[i + 1]])) for i in same]
        if len(skipped_hash):
            at = np.searchsorted(f.clip_hash[order], skipped_hash)
            at = np.minimum(at, len(order) - 1)
            hit = f.clip_hash[order][at] == skipped_hash
            pairs += [(int(f.rows[order[at[i]]]), int(skipped_rows[i])) for i in np.flatnonzero(hit)
                      if f.rows[order[at[i]]] < skipped_rows[i]]
    if not pairs:
        return
    texts = f.read_rows(r for pair in pairs for r in pair)
    for first, again in sorted(pairs, key=lambda p: p[1]):
        if texts[first].clip_id == texts[again].clip_id:
            raise InputError(f"duplicate clip id {texts[again].clip_id!r} (first seen at row {first})", f.source, again)


def score_streamed(f: StreamedFile, keep: np.ndarray | None = None, n_boot: int = DEFAULT_BOOTSTRAP,
                   seed: int = DEFAULT_SEED) -> tuple[CorpusScore, np.ndarray]:
    """The corpus score of a streamed file over the clips ``keep`` selects (default: all it ran),
    and the positions of the scored clips; clips with an empty normalized reference are left out,
    as in ``score_model``.  ``per_clip`` stays empty: the counts are ``f.counts[positions]``."""
    selected = np.ones(len(f), dtype=bool) if keep is None else keep
    scored = np.flatnonzero(selected & (f.counts[:, 3] > 0))
    c = f.counts[scored].astype(np.int64)
    s, d, i, n, h = (int(x) for x in c.sum(axis=0)) if len(c) else (0, 0, 0, 0, 0)
    interval = bootstrap_ratio(c[:, 0] + c[:, 1] + c[:, 2], c[:, 3], n_boot=n_boot, seed=seed)
    rate = (s + d + i) / n if n else float("nan")
    return CorpusScore(rate, s, d, i, n, h, len(scored), interval), scored
