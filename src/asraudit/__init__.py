"""asraudit: audit ASR models for benchmark optimization."""

import os as _os

# OpenMP threads that spin while waiting (the default "active" policy) fight
# over the cores whenever anything else runs beside a model: another model of
# the grid, a Ray actor, a decoder thread.  Measured on 2 shared cores,
# whisper-tiny.en transcription was 7x slower (RTFx 0.5 vs 3.5) with active
# waiting while pocketsphinx ran beside it.  Passive waiting must be set
# before CTranslate2 or torch load their OpenMP runtime, hence here; an
# explicit OMP_WAIT_POLICY in the environment still wins.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

__version__ = "0.1.0"
