"""asraudit: audit ASR models for benchmark optimization.

The public API, for a notebook or a script (the CLI is built on the same
functions)::

    from asraudit import accept_ref_from_predictions, load_predictions

    preds = load_predictions("predictions/")        # one file per model
    result = accept_ref_from_predictions(preds, panel=["a", "b", "c"])
    result.accept_ref["suspect"].rate

    from asraudit import run_audit
    run_audit("my_audit.toml")                      # or a dict shaped like the TOML

Every name in ``__all__`` is loaded on first use, so ``import asraudit``
stays light (no torch, CTranslate2, pyarrow or Ray): a text-only user never
pays for the model backends, and the OpenMP setting below is in place before
any of them loads.  ``docs/python-api.md`` lists every name with one line.
"""

from __future__ import annotations

import os as _os
from typing import TYPE_CHECKING

from asraudit.lazy_exports import lazy_exports as _lazy_exports
from asraudit.version import __version__

# OpenMP threads that spin while waiting (the default "active" policy) fight
# over the cores whenever anything else runs beside a model: another model of
# the grid, a Ray actor, a decoder thread.  Measured on 2 shared cores,
# whisper-tiny.en transcription was 7x slower (RTFx 0.5 vs 3.5) with active
# waiting while pocketsphinx ran beside it.  Passive waiting must be set
# before CTranslate2 or torch load their OpenMP runtime, hence here; an
# explicit OMP_WAIT_POLICY in the environment still wins.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# name -> the module that defines it, bottom layer first (text, data, models, run, metrics, probes, audit).
_EXPORTS: dict[str, str] = {
    "InputError": "asraudit.errors",
    "ServiceError": "asraudit.errors",
    "get_normalizer": "asraudit.text.normalize",
    "load_predictions": "asraudit.data.predictions",
    "PredictionSet": "asraudit.data.predictions",
    "load_corpus": "asraudit.data.corpus",
    "Corpus": "asraudit.data.corpus",
    "Clip": "asraudit.data.corpus",
    "load_model": "asraudit.models.registry",
    "available_models": "asraudit.models.registry",
    "ASRModel": "asraudit.models.base",
    "ResultStore": "asraudit.run.store",
    "corpus_wer": "asraudit.metrics.wer",
    "corpus_cer": "asraudit.metrics.wer",
    "CorpusScore": "asraudit.metrics.wer",
    "score_model": "asraudit.metrics.model_wer",
    "ModelWER": "asraudit.metrics.model_wer",
    "Interval": "asraudit.metrics.stats",
    "accept_ref_from_predictions": "asraudit.probes.refdis_probe",
    "clip_inputs": "asraudit.probes.refdis_probe",
    "measure_refdis": "asraudit.probes.refdis_probe",
    "RefdisParams": "asraudit.probes.refdis_probe",
    "RefdisResult": "asraudit.probes.refdis_probe",
    "AcceptRef": "asraudit.probes.refdis_score",
    "run_audit": "asraudit.audit.pipeline",
    "load_spec": "asraudit.audit.spec",
    "parse_spec": "asraudit.audit.spec",
    "AuditSpec": "asraudit.audit.spec",
    "AuditResult": "asraudit.audit.results",
}

__all__ = ["__version__", *_EXPORTS]


__getattr__, __dir__ = _lazy_exports("asraudit", _EXPORTS, globals())


if TYPE_CHECKING:  # what type checkers and IDEs see; at run time __getattr__ loads these lazily
    from asraudit.audit.pipeline import run_audit
    from asraudit.audit.results import AuditResult
    from asraudit.audit.spec import AuditSpec, load_spec, parse_spec
    from asraudit.data.corpus import Clip, Corpus, load_corpus
    from asraudit.data.predictions import PredictionSet, load_predictions
    from asraudit.errors import InputError, ServiceError
    from asraudit.metrics.model_wer import ModelWER, score_model
    from asraudit.metrics.stats import Interval
    from asraudit.metrics.wer import CorpusScore, corpus_cer, corpus_wer
    from asraudit.models.base import ASRModel
    from asraudit.models.registry import available_models, load_model
    from asraudit.probes.refdis_probe import (
        RefdisParams,
        RefdisResult,
        accept_ref_from_predictions,
        clip_inputs,
        measure_refdis,
    )
    from asraudit.probes.refdis_score import AcceptRef
    from asraudit.run.store import ResultStore
    from asraudit.text.normalize import get_normalizer
