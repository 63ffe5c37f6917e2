"""What a condition is: a pure, deterministic function audio -> audio with a stable id.

A condition is the "x" side of every audio probe: the silent input x_∅ of
audio lift, the masked span of masked-entity recovery, and every entry of the
trigger battery (noise, reverb, codec, truncation, donor splice, re-voicing).
Its ``id`` goes into the job key, so it must change whenever the output would
change (every parameter, the seed, a hash of any donor audio) and never
otherwise.  Randomness comes only from the condition's own seed, never from
global state, so a rerun produces bit-identical audio.

This module holds the base class, the two conditions every grid needs
(``Original``, ``Silence``) and composition; the others are grouped by what
they change: ``spans`` (a time span of the clip), ``channel`` (how the clip
sounds: noise, reverb, codec) and ``other_audio`` (audio brought in from
elsewhere: a donor, another voice).

All audio is mono float32 at 16 kHz.  Conditions compose with ``Compose``;
``time_map`` says where a time in the original lands in the output, so a
span mask can follow a donor splice.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, fields

import numpy as np

from asraudit.errors import InputError


def _fmt(value) -> str:
    if isinstance(value, float):
        return repr(round(value, 6))
    return str(value)


def audio_digest(audio: np.ndarray) -> str:
    """A short hash of the samples: how audio a condition carries enters its id."""
    return hashlib.sha1(np.ascontiguousarray(audio, dtype=np.float32).tobytes()).hexdigest()[:10]


def as_mono_audio(audio: np.ndarray) -> np.ndarray:
    """``audio`` as 1-D float32 (no copy when it already is); a clear error for anything else."""
    x = np.asarray(audio)
    if x.ndim != 1:
        raise ValueError(f"conditions take mono audio (1-D), got shape {x.shape}")
    return x.astype(np.float32, copy=False)


def rms(x: np.ndarray) -> float:
    """Root mean square in float64 (0 for no samples), the level noise and reverb are set against."""
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) if x.size else 0.0


class Condition:
    """Base class: subclasses set ``name`` and implement ``_apply``."""

    name = "condition"

    def __post_init__(self):
        """Every number of a condition is finite.  The command line and the battery spec refuse NaN and infinity,
        but a condition built from Python took them: ``Noise(nan)`` turned every sample into NaN, ``Noise(inf)``
        returned the clean clip named as noisy, ``Truncate(t0=nan)`` kept the whole clip (case 343)."""
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, (float, np.floating)) and not math.isfinite(value):
                raise InputError(f"{self.name} condition: {f.name} must be a finite number, got {float(value)!r}")

    def params(self) -> dict[str, object]:
        return {}

    @property
    def id(self) -> str:
        p = self.params()
        if not p:
            return self.name
        return f"{self.name}(" + ",".join(f"{k}={_fmt(v)}" for k, v in sorted(p.items())) + ")"

    def __call__(self, audio: np.ndarray) -> np.ndarray:
        return self._apply(as_mono_audio(audio))

    def _apply(self, audio: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def time_map(self, t: float) -> float:
        """Where original time ``t`` (seconds) lands in the output."""
        return t

    def samples_out(self, n_samples: int) -> int:
        """How many samples the condition returns for ``n_samples`` in, without computing them: what a probe
        that scores compares with a model's window before any model runs.  Most conditions keep the length."""
        return n_samples

    def __repr__(self) -> str:
        return f"<Condition {self.id}>"


@dataclass(frozen=True, repr=False)
class Original(Condition):
    name = "original"

    def _apply(self, audio):
        return audio.copy()


@dataclass(frozen=True, repr=False)
class Silence(Condition):
    """x_∅: zeros of the same length, the no-audio baseline of audio lift."""

    name = "silence"

    def _apply(self, audio):
        return np.zeros_like(audio)


@dataclass(frozen=True, repr=False)
class Compose(Condition):
    """Apply conditions in order; the id lists them joined by '+'."""

    steps: tuple[Condition, ...]

    @property
    def id(self) -> str:
        return "+".join(step.id for step in self.steps) or "original"

    def _apply(self, audio):
        for step in self.steps:
            audio = step(audio)
        return audio

    def time_map(self, t: float) -> float:
        for step in self.steps:
            t = step.time_map(t)
        return t

    def samples_out(self, n_samples: int) -> int:
        for step in self.steps:
            n_samples = step.samples_out(n_samples)
        return n_samples


def compose(*steps: Condition) -> Condition:
    flat: list[Condition] = []
    for s in steps:
        flat.extend(s.steps if isinstance(s, Compose) else [s])
    flat = [s for s in flat if not isinstance(s, Original)]
    if not flat:
        return Original()
    return flat[0] if len(flat) == 1 else Compose(tuple(flat))
