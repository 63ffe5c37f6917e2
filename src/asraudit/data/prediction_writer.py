"""A model's transcripts of a corpus, written as a prediction file.

``asraudit transcribe`` and the audit both turn stored transcripts into
``<model>.jsonl`` in the Open ASR Leaderboard layout.  The file format is a
data-layer matter, so the writing lives here, below the store and the CLI:
this module takes the transcripts as a plain mapping (clip id -> anything
with ``text`` and ``audio_seconds``, which the store's results have) and
never needs to know where they were kept.  Reading them out of the store is
``run.prediction_files``.  How a model's file is named (``preds_file_stem``)
is here too, since the audit and the CLI must agree on it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Mapping, Protocol

from asraudit.data.corpus import Corpus
from asraudit.data.predictions import ModelPredictions, Prediction, write_leaderboard_jsonl


def preds_file_stem(model_id: str) -> str:
    """A file name for a model's predictions (the stem becomes the model name in `asraudit wer`).

    ``whisper-tiny.en`` stays as it is; a directory spec gives its folder name;
    a hub id ``org/name`` gives ``org--name``; an endpoint ``http://host:port``
    gives ``host_port``."""
    name = re.sub(r"^(ct2|hf|replay):|^[a-z][a-z0-9+.-]*://", "", model_id)
    path = Path(name)
    if path.is_absolute() or name.startswith((".", "~")):
        name = path.stem if path.suffix in (".jsonl", ".json", ".csv", ".parquet") else path.name
    name = name.replace("/", "--")
    return re.sub(r"[^A-Za-z0-9._+-]", "_", name).strip(".") or "model"


class Transcript(Protocol):
    """What a row needs from a transcript: the raw text and how much audio it covered."""

    text: str | None
    audio_seconds: float


def corpus_predictions(corpus: Corpus, model_id: str, transcripts: Mapping[str, Transcript],
                       path: Path) -> ModelPredictions:
    """One prediction per clip that has a transcript, in corpus order.

    A clip without a transcript is left out (absent, never an empty string:
    an empty hypothesis means the model heard nothing).  The duration is the
    corpus's when it gives one, else the audio the model was handed (none when
    that is unknown).
    """
    rows: dict[str, Prediction] = {}
    for index, clip in enumerate(corpus, start=1):
        result = transcripts.get(clip.id)
        if result is None:
            continue
        # 0 audio seconds means unknown (a replayed file without durations): no duration is written then.
        duration = clip.duration if clip.duration is not None else (round(result.audio_seconds, 4) or None)
        rows[clip.id] = Prediction(clip.id, clip.reference or "", result.text or "", duration, index)
    return ModelPredictions(model_id, path, rows)


def write_corpus_predictions(corpus: Corpus, model_id: str, transcripts: Mapping[str, Transcript],
                             path: Path) -> tuple[Path, int]:
    """Write ``path`` (leaderboard JSONL); returns the file and the number of clips without a transcript."""
    preds = corpus_predictions(corpus, model_id, transcripts, path)
    write_leaderboard_jsonl(preds, path)
    return path, len(corpus) - len(preds)
