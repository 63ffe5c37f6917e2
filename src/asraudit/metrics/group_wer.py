"""WER per group of clips (speaker, voice, sub-corpus, ...), each with its clip-bootstrap interval.

A group's WER is its errors over its reference words, like the corpus WER,
and its interval resamples the group's clips (``stats.bootstrap_ratio``, the
interval ``asraudit wer`` prints for the whole corpus), so a group of few
clips shows a wide interval rather than a confident number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED, Interval, bootstrap_ratio


@dataclass(frozen=True)
class GroupWER:
    """One group's score for one model."""

    group: str
    clips: int
    ref_words: int
    errors: int
    interval: Interval  # estimate = WER

    @property
    def wer(self) -> float:
        return self.interval.estimate


def wer_by_group(groups: Sequence[str], counts: np.ndarray, n_boot: int = DEFAULT_BOOTSTRAP,
                 seed: int = DEFAULT_SEED) -> list[GroupWER]:
    """Per group (sorted by name): WER and interval of the clips in it.

    ``counts`` has one row per clip (substitutions, deletions, insertions,
    reference words, ...), ``groups`` the clip's group; clips without reference
    words are the caller's to leave out, as for the corpus score."""
    labels = np.asarray(groups, dtype=object)
    if not len(labels):  # a model that ran no clip (an empty prediction file) is in no group
        return []
    c = np.asarray(counts, dtype=np.int64).reshape(len(labels), -1)
    out = []
    for g in sorted(set(labels.tolist())):
        rows = c[labels == g]
        errors = rows[:, 0] + rows[:, 1] + rows[:, 2]
        out.append(GroupWER(g, len(rows), int(rows[:, 3].sum()), int(errors.sum()),
                            bootstrap_ratio(errors, rows[:, 3], n_boot=n_boot, seed=seed)))
    return out
