"""Conditions that bring in audio from elsewhere: a donor splice or another voice.

The battery's paired design: the benchmark's own audio versus other
material spliced next to a clip (``DonorSplice``), and the same words spoken
by another voice (``Revoice``, a recording or local TTS).  The donor's
samples enter the condition's id through a hash, so two donors never share one.
"""

from __future__ import annotations

import functools
import hashlib
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from asraudit.audio.conditions.base import Condition, as_mono_audio, audio_digest
from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.io import load_audio
from asraudit.errors import InputError


@dataclass(frozen=True, repr=False)
class DonorSplice(Condition):
    """Prepend or append ``seconds`` of donor audio (plus an optional gap of silence).

    The paired design of the battery: donor audio from the same benchmark
    versus from other material; if the behaviour switches on only with the
    benchmark's own audio, the model has learned something about the
    benchmark's recordings.  The donor is identified by ``donor_id`` and a
    hash of its samples, so two donors never share an id.
    """

    donor: np.ndarray = field(compare=False)
    donor_id: str
    seconds: float
    where: str = "prepend"
    gap: float = 0.0
    name = "splice"

    def __post_init__(self):
        super().__post_init__()
        if self.where not in ("prepend", "append"):
            raise ValueError(f"splice 'where' must be 'prepend' or 'append', got {self.where!r}")
        if self.seconds <= 0:
            raise ValueError("splice seconds must be > 0")

    def params(self):
        return {"donor": f"{self.donor_id}#{audio_digest(self.donor)}", "seconds": self.seconds,
                "where": self.where, "gap": self.gap}

    def _piece(self) -> tuple[np.ndarray, np.ndarray]:
        donor = as_mono_audio(self.donor)
        n = int(round(self.seconds * SAMPLE_RATE))
        if len(donor) < n:
            raise ValueError(f"donor {self.donor_id!r} has {len(donor) / SAMPLE_RATE:.2f} s, "
                             f"fewer than the {self.seconds} s requested")
        gap = np.zeros(int(round(self.gap * SAMPLE_RATE)), dtype=np.float32)
        return donor[:n], gap

    def _apply(self, audio):
        piece, gap = self._piece()
        if self.where == "prepend":
            return np.concatenate([piece, gap, audio])
        return np.concatenate([audio, gap, piece])

    def samples_out(self, n_samples: int) -> int:
        return n_samples + int(round(self.seconds * SAMPLE_RATE)) + int(round(self.gap * SAMPLE_RATE))

    def time_map(self, t: float) -> float:
        if self.where == "prepend":
            return t + (round(self.seconds * SAMPLE_RATE) + round(self.gap * SAMPLE_RATE)) / SAMPLE_RATE
        return t


TTS_ENGINES = ("espeak-ng", "flite")


def synthesize(text: str, engine: str = "espeak-ng", voice: str | None = None) -> np.ndarray:
    """Speak ``text`` with a local TTS engine; mono float32 at 16 kHz."""
    if engine not in TTS_ENGINES:
        raise ValueError(f"TTS engine must be one of {', '.join(TTS_ENGINES)}, got {engine!r}")
    exe = shutil.which(engine)
    if exe is None:
        raise RuntimeError(f"{engine} is not installed (Debian: apt-get install {engine})")
    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "tts.wav"
        if engine == "espeak-ng":
            # "--" ends the options: a text that starts with a dash ("- Yes, madam president", a subtitle's
            # dialogue dash) was read as options, espeak-ng exited 0 without writing, and the run stopped on the
            # missing temporary file after the models had run every condition before it
            cmd = [exe, "-w", str(wav)] + (["-v", voice] if voice else []) + ["--", text]
        else:
            cmd = [exe, "-t", text, "-o", str(wav)] + (["-voice", voice] if voice else [])
        if "\0" in text:  # no command line holds one: a ValueError traceback from subprocess
            raise RuntimeError(f"{engine} cannot speak a text holding a NUL character")
        done = subprocess.run(cmd, capture_output=True, timeout=120)
        said = (done.stderr or done.stdout or b"").decode("utf-8", "replace").strip().splitlines()
        if done.returncode != 0:  # an unknown voice, a broken install: the engine's own words, not a traceback
            raise RuntimeError(f"{engine} failed (exit {done.returncode})"
                               + (f": {said[-1].strip()}" if said else "")
                               + (f" (voice {voice!r})" if voice else ""))
        if not wav.is_file():  # an engine that exits 0 without writing: say what it said, not a temporary path
            raise RuntimeError(f"{engine} wrote no audio for the text {text[:60]!r}"
                               + (f": {said[-1].strip()}" if said else ""))
        return load_audio(wav)


@functools.lru_cache(maxsize=64)
def _spoken(text: str, engine: str, voice: str | None) -> np.ndarray:
    """``synthesize``, kept for the few calls of one clip (its length measured, then its audio built); an engine
    that fails on the text is one line naming it (a RuntimeError was a traceback once the battery reached the
    condition, the models having run every condition before it)."""
    try:
        audio = synthesize(text, engine, voice)
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        raise InputError(f"re-voicing the text {text[:60]!r}: {exc}") from None
    audio.setflags(write=False)
    return audio


@dataclass(frozen=True, repr=False)
class Revoice(Condition):
    """Replace the clip with the same words in another voice.

    The new voice is either a provided recording (``audio``, e.g. a human
    re-reading) or TTS output for ``text``.  The input audio is ignored by
    design: this condition asks whether a behaviour follows the benchmark's
    speakers or the words.
    """

    voice_id: str
    audio: np.ndarray | None = field(default=None, compare=False)
    text: str | None = None
    engine: str = "espeak-ng"
    name = "revoice"

    def __post_init__(self):
        super().__post_init__()
        if (self.audio is None) == (self.text is None):
            raise ValueError("revoice needs exactly one of: a recording (audio) or text to synthesize")

    def params(self):
        if self.audio is not None:
            return {"voice": self.voice_id, "audio": audio_digest(self.audio)}
        return {"voice": self.voice_id, "engine": self.engine,
                "text": hashlib.sha1(self.text.encode("utf-8")).hexdigest()[:10]}

    def _apply(self, audio):
        if self.audio is not None:
            return as_mono_audio(self.audio).copy()
        return _spoken(self.text, self.engine, None if self.voice_id == "default" else self.voice_id).copy()

    def samples_out(self, n_samples: int) -> int:
        """The new voice's length, whatever came in (TTS: the text is synthesized, once for this and the run)."""
        if self.audio is not None:
            return len(as_mono_audio(self.audio))
        return len(_spoken(self.text, self.engine, None if self.voice_id == "default" else self.voice_id))

    def time_map(self, t: float) -> float:
        raise ValueError("re-voiced audio has new timings; align the new audio instead")
