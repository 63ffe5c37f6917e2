"""Error rates and intervals."""

from asraudit.metrics.stats import Interval, bootstrap_ratio, paired_bootstrap, wilson_interval
from asraudit.metrics.wer import ClipCounts, CorpusScore, aggregate, clip_counts, corpus_cer, corpus_wer

__all__ = [
    "ClipCounts",
    "CorpusScore",
    "Interval",
    "aggregate",
    "bootstrap_ratio",
    "clip_counts",
    "corpus_cer",
    "corpus_wer",
    "paired_bootstrap",
    "wilson_interval",
]
