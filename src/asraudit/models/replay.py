"""A prediction file as a model: ``replay:<prediction file>``.

A prediction file cannot hear, so a replay model is keyed by clip id, not by
audio: ``transcribe_clips(clip_ids)`` returns the stored hypotheses (the
``ClipKeyedModel`` protocol in ``models/base.py``), and the job grid calls it
instead of ``transcribe``.  Clip ids are the prediction file's ids (for the
Open ASR Leaderboard layout, ``audio_filepath`` as written), which are the
ids a manifest gives its clips.

The stored hypotheses are what the model said on the *original* audio, so a
replay model only answers the ``original`` condition; ``transcribe`` (audio
in) raises rather than return a transcript of audio it never heard.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Sequence

import numpy as np

from asraudit.data.predictions import ClipIds, load_prediction_file, space_twin, space_twin_words
from asraudit.errors import InputError


class ReplayModel:
    """Hypotheses of a prediction file, looked up by clip id."""

    backend = "replay"
    conditions = ("original",)

    def __init__(self, path: str | Path, *, model_id: str | None = None):
        self.path = Path(path)
        self.predictions = load_prediction_file(self.path)
        self.model_id = model_id or f"replay:{self.predictions.model}"
        self._digest = hashlib.sha256(self.path.read_bytes()).hexdigest()[:16]

    @property
    def config_hash(self) -> str:
        # The file's content is the whole configuration: edit it and stored results no longer apply.
        return self._digest

    def transcribe_clips(self, clip_ids: Sequence[str]) -> list[str]:
        """The stored hypothesis for each clip id; a clip the file lacks is an ``InputError``."""
        missing = [cid for cid in clip_ids if cid not in self.predictions]
        if missing:
            shown = ", ".join(repr(c) for c in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            twin = space_twin(ClipIds.of(missing), ClipIds.of(self.predictions.rows))
            if twin is not None:  # case 322
                more += f": {space_twin_words('the corpus', twin[0], self.path, twin[1])}"
            raise InputError(f"no prediction for clip(s) {shown}{more}", self.path)
        return [self.predictions[cid].hypothesis for cid in clip_ids]

    def transcribe(self, audio: Sequence[np.ndarray]) -> list[str]:
        raise TypeError(
            f"{self.model_id} replays a prediction file and cannot transcribe audio; "
            "call transcribe_clips(clip_ids) (original audio only)"
        )
