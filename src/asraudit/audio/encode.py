"""Writing clips to disk as Ogg/Opus, the format the committed demo audio uses.

Reading lives in ``audio.io``; writing is separate because only the builders
of shipped corpora need it (the demo benchmark and its other-speech donors),
and both must write the same bytes the same way.  Opus through libsndfile
needs no external encoder, and a clip is written to a temporary name first
and renamed into place, so an interrupted build never leaves a truncated
clip that a resumed build would take as finished.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import soundfile as sf

from asraudit.audio.constants import SAMPLE_RATE

# libsndfile's Opus compression level (0 = best quality, 1 = smallest): 0.95
# is about 2.5 kB/s of speech and keeps Whisper's transcripts of the demo
# voices unchanged.
OPUS_COMPRESSION = 0.95


def write_opus(audio: np.ndarray, path: Path, compression: float = OPUS_COMPRESSION) -> None:
    """Write mono ``audio`` at ``SAMPLE_RATE`` to ``path`` as Ogg/Opus, atomically."""
    path = Path(path)
    tmp = path.with_suffix(".tmp.ogg")
    with sf.SoundFile(tmp, "w", samplerate=SAMPLE_RATE, channels=1, format="OGG", subtype="OPUS",
                      compression_level=compression) as fh:
        fh.write(audio)
    tmp.replace(path)


def opus_bytes(audio: np.ndarray, compression: float = OPUS_COMPRESSION) -> bytes:
    """Mono ``audio`` at ``SAMPLE_RATE`` as the bytes of an Ogg/Opus file (what the report embeds)."""
    buffer = io.BytesIO()
    with sf.SoundFile(buffer, "w", samplerate=SAMPLE_RATE, channels=1, format="OGG", subtype="OPUS",
                      compression_level=compression) as fh:
        fh.write(np.asarray(audio, dtype=np.float32))
    return buffer.getvalue()
