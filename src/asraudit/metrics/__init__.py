"""Error rates and intervals.

The names below load on first use (PEP 562): importing one light submodule
(``metrics.defaults``, ``metrics.normalized_cache``) must not pull numpy in,
which costs a command line such as ``asraudit refdis --compat hume`` a tenth
of a second of CPU (more with the BLAS threads it starts) for nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from asraudit.lazy_exports import lazy_exports

_EXPORTS = {
    "ClipCounts": "asraudit.metrics.wer",
    "CorpusScore": "asraudit.metrics.wer",
    "Interval": "asraudit.metrics.stats",
    "aggregate": "asraudit.metrics.wer",
    "bootstrap_ratio": "asraudit.metrics.stats",
    "clip_counts": "asraudit.metrics.wer",
    "corpus_cer": "asraudit.metrics.wer",
    "corpus_wer": "asraudit.metrics.wer",
    "paired_bootstrap": "asraudit.metrics.stats",
    "wilson_interval": "asraudit.metrics.stats",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports("asraudit.metrics", _EXPORTS, globals())


if TYPE_CHECKING:  # what type checkers and IDEs see; at run time __getattr__ loads these lazily
    from asraudit.metrics.stats import Interval, bootstrap_ratio, paired_bootstrap, wilson_interval
    from asraudit.metrics.wer import ClipCounts, CorpusScore, aggregate, clip_counts, corpus_cer, corpus_wer
