"""Conditions on a time span of the clip: hide it (``SpanMask``) or keep only it (``Truncate``).

Both take a span in seconds, usually a word timing (``audio.timing``), and
touch nothing outside what they say: a mask leaves every sample beyond its
guard bit-identical, a truncation maps times so later timings stay valid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from asraudit.audio.conditions.base import Condition, rms
from asraudit.audio.constants import SAMPLE_RATE

# Crossfade at the edges of a masked span: a hard cut to zeros is a click
# that a model can hear as a word boundary.  5 ms is below a phone.
MASK_RAMP_S = 0.005


@dataclass(frozen=True, repr=False)
class SpanMask(Condition):
    """Silence or noise over [t0, t1], padded, never beyond the guard.

    ``pad`` widens the span to catch coarticulation either side of a word
    timing; ``guard`` is a hard limit: samples outside [t0 − guard, t1 +
    guard] are bit-identical to the input, so a neighbouring word the timing
    put just outside the span is never touched.  Optional ``not_before`` /
    ``not_after`` (e.g. the neighbouring words' boundaries) tighten it further.
    Noise fill is Gaussian at the clip's RMS minus ``attenuation_db``.
    """

    t0: float
    t1: float
    fill: str = "silence"
    attenuation_db: float = 20.0
    pad: float = 0.02
    guard: float = 0.05
    not_before: float | None = None
    not_after: float | None = None
    seed: int = 0
    name = "mask"

    def __post_init__(self):
        super().__post_init__()
        if self.t1 < self.t0:
            raise ValueError(f"mask span ends before it starts: [{self.t0}, {self.t1}]")
        if self.fill not in ("silence", "noise"):
            raise ValueError(f"mask fill must be 'silence' or 'noise', got {self.fill!r}")
        if self.pad < 0 or self.guard < 0:
            raise ValueError("pad and guard must be >= 0")

    def params(self):
        p = {"t0": self.t0, "t1": self.t1, "fill": self.fill, "pad": self.pad, "guard": self.guard}
        if self.fill == "noise":
            p.update(attenuation_db=self.attenuation_db, seed=self.seed)
        if self.not_before is not None:
            p["not_before"] = self.not_before
        if self.not_after is not None:
            p["not_after"] = self.not_after
        return p

    def sample_range(self, n_samples: int) -> tuple[int, int]:
        """The [start, end) samples the mask writes."""
        ext = min(self.pad, self.guard)
        lo, hi = self.t0 - ext, self.t1 + ext
        lo = max(lo, self.t0 - self.guard, self.not_before if self.not_before is not None else lo)
        hi = min(hi, self.t1 + self.guard, self.not_after if self.not_after is not None else hi)
        start = max(0, math.ceil(lo * SAMPLE_RATE))
        end = min(n_samples, math.floor(hi * SAMPLE_RATE))
        return start, max(start, end)

    def _apply(self, audio):
        out = audio.copy()
        start, end = self.sample_range(len(audio))
        if end <= start:
            return out
        n = end - start
        if self.fill == "noise":
            level = rms(audio) * 10 ** (-self.attenuation_db / 20)
            fill = (np.random.default_rng(self.seed).standard_normal(n) * level).astype(np.float32)
        else:
            fill = np.zeros(n, dtype=np.float32)
        # Crossfade inside the span only, so nothing outside it changes.
        ramp = min(int(MASK_RAMP_S * SAMPLE_RATE), n // 2)
        weight = np.zeros(n, dtype=np.float32)  # weight of the original signal
        if ramp > 0:
            fade = (0.5 + 0.5 * np.cos(np.linspace(0, np.pi, ramp + 2)[1:-1])).astype(np.float32)
            weight[:ramp] = fade
            weight[n - ramp:] = fade[::-1]
        out[start:end] = weight * audio[start:end] + (1 - weight) * fill
        return out


@dataclass(frozen=True, repr=False)
class Truncate(Condition):
    """Keep only a window around a target span: [t0 − before, t1 + after].

    Tests whether a behaviour needs the rest of the clip (the sentence
    context a language prior would use) or only the local audio.
    """

    t0: float
    t1: float
    before: float = 0.5
    after: float = 0.5
    name = "truncate"

    def params(self):
        return {"t0": self.t0, "t1": self.t1, "before": self.before, "after": self.after}

    def sample_range(self, n_samples: int) -> tuple[int, int]:
        # clamped before rounding: a window reaching past the clip by more than a float holds in samples
        # (before = 1e308, "everything before") was an OverflowError traceback once the battery reached it
        start = int(round(min(max(0.0, (self.t0 - self.before) * SAMPLE_RATE), n_samples)))
        end = int(round(max(0.0, min(float(n_samples), (self.t1 + self.after) * SAMPLE_RATE))))
        return start, max(start, end)

    def _apply(self, audio):
        start, end = self.sample_range(len(audio))
        return audio[start:end].copy()

    def samples_out(self, n_samples: int) -> int:
        start, end = self.sample_range(n_samples)
        return end - start

    def time_map(self, t: float) -> float:
        return t - round(max(0.0, (self.t0 - self.before) * SAMPLE_RATE)) / SAMPLE_RATE
