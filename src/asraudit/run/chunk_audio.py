"""The audio of one chunk of clips, decoded once and shared by every model and condition.

Decoding is often a large share of a small model's cost, and a grid of ten
models would pay it ten times; the executors keep one ``ChunkAudio`` per
chunk of clips.  A replayed prediction file never hears its clips, so its
audio seconds come from the corpus or a header (``replay_seconds``), never
from decoding.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from asraudit.audio.io import audio_duration
from asraudit.data.corpus import Clip, samples_digest
from asraudit.errors import InputError
from asraudit.run.spec import Condition


class ChunkAudio:
    """The decoded and conditioned audio of one chunk of clips, computed lazily, once."""

    def __init__(self) -> None:
        self._decoded: dict[str, np.ndarray] = {}
        self._conditioned: dict[tuple[str, str], np.ndarray] = {}
        self.decode_seconds = 0.0
        # (clip id, file digest, samples digest) of every clip decoded: what the store ties its results to.
        self.clip_audio: list[tuple[str, str, str]] = []

    def get(self, clip: Clip, condition: Condition) -> np.ndarray:
        key = (clip.id, condition.id)
        if key not in self._conditioned:
            if clip.id not in self._decoded:
                start = time.perf_counter()
                self._decoded[clip.id] = clip.decode()
                self.decode_seconds += time.perf_counter() - start
                self.clip_audio.append((clip.id, clip.file_digest, samples_digest(self._decoded[clip.id])))
            out = np.ascontiguousarray(condition(self._decoded[clip.id]), dtype=np.float32)
            self._conditioned[key] = out
        return self._conditioned[key]

    @property
    def clips_decoded(self) -> int:
        return len(self._decoded)


def replay_seconds(clip: Clip) -> float:
    """Audio seconds of a clip a replayed prediction file answers, or 0 when unknown.

    A replay never hears the clip, so its audio is not needed: the corpus's
    duration if it has one, else the header of an audio file that is there,
    else unknown.  A text-only audit (prediction files, clip ids that are no
    files) must not fail on an audio header it has no use for."""
    if clip.duration is not None:
        return clip.duration
    if isinstance(clip.audio, Path) and clip.audio.is_file():
        try:
            return audio_duration(clip.audio, origin=clip.origin)
        except InputError:
            return 0.0
    return 0.0


