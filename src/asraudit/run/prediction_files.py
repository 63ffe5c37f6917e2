"""Prediction files from the store: the transcripts of one model over a corpus.

The store keys every transcript by its job (model, configuration, clip,
condition, task), so reading a model's transcripts back takes the job keys,
which belong to this layer; the file itself is written by
``data.prediction_writer``.  ``asraudit transcribe`` and the audit's
transcribe stage both call ``write_predictions``, so the two write the same
file from the same rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from asraudit.data.corpus import Corpus
from asraudit.data.prediction_writer import write_corpus_predictions
from asraudit.run.spec import ORIGINAL, TRANSCRIBE, make_job
from asraudit.run.store import Result, ResultStore


def stored_transcripts(store: ResultStore, model_id: str, config_hash: str,
                       clip_ids: Iterable[str]) -> dict[str, Result]:
    """The stored transcript of each clip on its original audio (clip id -> result; missing clips absent)."""
    jobs = {clip_id: make_job(model_id, config_hash, clip_id, ORIGINAL.id, TRANSCRIBE) for clip_id in clip_ids}
    found = store.get_many(jobs.values())
    return {clip_id: found[job.key] for clip_id, job in jobs.items() if job.key in found}


def write_predictions(store: ResultStore, corpus: Corpus, model_id: str, config_hash: str,
                      path: Path) -> tuple[Path, int]:
    """The model's stored transcripts of every clip, in corpus order; returns the file and clips missing."""
    transcripts = stored_transcripts(store, model_id, config_hash, (clip.id for clip in corpus))
    return write_corpus_predictions(corpus, model_id, transcripts, path)
