"""WER of prediction files: each model against the references in its own file.

Normalized references are computed once per clip and shared across models,
since every model of a benchmark carries the same reference text; the
normalizer is the slow part of scoring, not the alignment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from asraudit.data.predictions import ModelPredictions
from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED
from asraudit.metrics.wer import ClipCounts, CorpusScore, aggregate, clip_counts


class NormalizedCache:
    """Memoizes a normalizer on raw strings (references repeat across models)."""

    def __init__(self, normalize: Callable[[str], str]):
        self.normalize = normalize
        self._memo: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        out = self._memo.get(text)
        if out is None:
            out = self.normalize(text)
            self._memo[text] = out
        return out


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
    against other clips' words would hide them.
    """
    ids = list(clip_ids) if clip_ids is not None else list(preds.rows)
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
