"""Conditions: pure, deterministic functions audio -> audio with a stable id.

A condition is the "x" side of every audio probe: the silent input x_∅ of
audio lift, the masked span of masked-entity recovery, and every entry of the
trigger battery (noise, reverb, codec, truncation, donor splice, re-voicing).
Its ``id`` goes into the job key, so it must change whenever the output would
change (every parameter, the seed, a hash of any donor audio) and never
otherwise.  Randomness comes only from the condition's own seed, never from
global state, so a rerun produces bit-identical audio.

All audio is mono float32 at 16 kHz.  Conditions compose with ``Compose``;
``time_map`` says where a time in the original lands in the output, so a
span mask can follow a donor splice.
"""

from __future__ import annotations

import hashlib
import io
import math
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE

# Crossfade at the edges of a masked span: a hard cut to zeros is a click
# that a model can hear as a word boundary.  5 ms is below a phone.
MASK_RAMP_S = 0.005


def _fmt(value) -> str:
    if isinstance(value, float):
        return repr(round(value, 6))
    return str(value)


def _audio_digest(audio: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(audio, dtype=np.float32).tobytes()).hexdigest()[:10]


def _as_audio(audio: np.ndarray) -> np.ndarray:
    x = np.asarray(audio)
    if x.ndim != 1:
        raise ValueError(f"conditions take mono audio (1-D), got shape {x.shape}")
    return x.astype(np.float32, copy=False)


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) if x.size else 0.0


class Condition:
    """Base class: subclasses set ``name`` and implement ``_apply``."""

    name = "condition"

    def params(self) -> dict[str, object]:
        return {}

    @property
    def id(self) -> str:
        p = self.params()
        if not p:
            return self.name
        return f"{self.name}(" + ",".join(f"{k}={_fmt(v)}" for k, v in sorted(p.items())) + ")"

    def __call__(self, audio: np.ndarray) -> np.ndarray:
        return self._apply(_as_audio(audio))

    def _apply(self, audio: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def time_map(self, t: float) -> float:
        """Where original time ``t`` (seconds) lands in the output."""
        return t

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
            level = _rms(audio) * 10 ** (-self.attenuation_db / 20)
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
class Noise(Condition):
    """Additive noise at an exact signal-to-noise ratio.

    ``kind='white'``: Gaussian noise.  ``kind='babble'``: the sum of the
    ``donors`` (other clips: speech-shaped, the hard case), each looped to the
    clip's length from a seeded offset and brought to equal RMS.  The noise is
    scaled so that 10·log10(P_signal / P_noise) equals ``snr_db``, with P
    measured over the whole clip, so the SNR of output − input is the request.
    """

    snr_db: float
    kind: str = "white"
    seed: int = 0
    donors: tuple[np.ndarray, ...] = field(default=(), compare=False)
    donor_ids: tuple[str, ...] = ()
    name = "noise"

    def __post_init__(self):
        if self.kind not in ("white", "babble"):
            raise ValueError(f"noise kind must be 'white' or 'babble', got {self.kind!r}")
        if self.kind == "babble" and not self.donors:
            raise ValueError("babble noise needs donor audio (other clips)")

    def params(self):
        p = {"snr_db": self.snr_db, "kind": self.kind, "seed": self.seed}
        if self.kind == "babble":
            ids = self.donor_ids or tuple(_audio_digest(d) for d in self.donors)
            p["donors"] = "|".join(ids)
        return p

    def noise_for(self, n: int) -> np.ndarray:
        rng = np.random.default_rng(self.seed)
        if self.kind == "white":
            return rng.standard_normal(n)
        total = np.zeros(n, dtype=np.float64)
        for donor in self.donors:
            d = np.asarray(donor, dtype=np.float64)
            if d.size == 0 or _rms(d) == 0:
                continue
            offset = int(rng.integers(0, len(d)))
            looped = np.resize(np.roll(d, -offset), n)
            total += looped / _rms(looped) if _rms(looped) > 0 else 0
        return total

    def _apply(self, audio):
        p_signal = float(np.mean(np.square(audio, dtype=np.float64))) if audio.size else 0.0
        noise = self.noise_for(len(audio))
        p_noise = float(np.mean(noise * noise)) if noise.size else 0.0
        if p_signal == 0 or p_noise == 0:
            return audio.copy()
        scale = math.sqrt(p_signal / (p_noise * 10 ** (self.snr_db / 10)))
        return (audio.astype(np.float64) + scale * noise).astype(np.float32)


def synthetic_rir(rt60: float, drr_db: float = 0.0, seed: int = 0, sample_rate: int = SAMPLE_RATE) -> np.ndarray:
    """A room impulse response: a unit direct path plus exponentially decaying noise.

    The envelope falls by 60 dB after ``rt60`` seconds (amplitude factor
    exp(−ln(1000)·t/rt60)), the definition of RT60; the tail's energy is set
    by the direct-to-reverberant ratio ``drr_db``.  Good enough to test
    whether reverberation switches a behaviour; not a room simulator.
    """
    if rt60 <= 0:
        raise ValueError("rt60 must be > 0")
    n = max(2, int(rt60 * sample_rate))
    t = np.arange(n) / sample_rate
    rir = np.random.default_rng(seed).standard_normal(n) * np.exp(-math.log(1000) * t / rt60)
    rir[0] = 0.0
    rir *= math.sqrt(10 ** (-drr_db / 10) / float(np.sum(rir * rir)))
    rir[0] = 1.0
    return rir


@dataclass(frozen=True, repr=False)
class Reverb(Condition):
    """Convolution with a synthetic room impulse response, RMS preserved."""

    rt60: float
    drr_db: float = 0.0
    seed: int = 0
    name = "reverb"

    def params(self):
        return {"rt60": self.rt60, "drr_db": self.drr_db, "seed": self.seed}

    def _apply(self, audio):
        if audio.size == 0:
            return audio.copy()
        rir = synthetic_rir(self.rt60, self.drr_db, self.seed)
        size = len(audio) + len(rir) - 1
        nfft = 1 << (size - 1).bit_length()
        wet = np.fft.irfft(np.fft.rfft(audio, nfft) * np.fft.rfft(rir, nfft), nfft)[: len(audio)]
        in_rms, out_rms = _rms(audio), _rms(wet)
        if out_rms > 0:
            wet *= in_rms / out_rms
        return wet.astype(np.float32)


_CODECS = {"mp3": ("MP3", "MPEG_LAYER_III"), "opus": ("OGG", "OPUS"), "vorbis": ("OGG", "VORBIS")}


def _estimate_delay(reference: np.ndarray, decoded: np.ndarray, max_lag: int) -> int:
    """Lag (samples) of ``decoded`` behind ``reference`` by cross-correlation."""
    n = min(len(reference), len(decoded))
    if n == 0:
        return 0
    size = 1 << (2 * n - 1).bit_length()
    corr = np.fft.irfft(np.fft.rfft(decoded[:n], size) * np.conj(np.fft.rfft(reference[:n], size)), size)
    lags = np.concatenate([np.arange(0, max_lag + 1), np.arange(-max_lag, 0)])
    values = np.concatenate([corr[: max_lag + 1], corr[size - max_lag:]])
    return int(lags[int(np.argmax(values))])


@dataclass(frozen=True, repr=False)
class Codec(Condition):
    """Lossy codec round trip (MP3, Opus, Vorbis) through libsndfile.

    ``quality`` is libsndfile's compression level in [0, 1] (0 = highest
    bitrate, 1 = lowest).  Encoders add a delay; it is found by
    cross-correlation and removed, and the output is cut or zero-padded to
    the input's length, so word timings stay valid.
    """

    codec: str = "mp3"
    quality: float = 0.5
    name = "codec"

    def __post_init__(self):
        if self.codec not in _CODECS:
            raise ValueError(f"codec must be one of {', '.join(_CODECS)}, got {self.codec!r}")
        if not 0 <= self.quality <= 1:
            raise ValueError("codec quality (compression level) must be in [0, 1]")

    def params(self):
        return {"codec": self.codec, "quality": self.quality}

    def _apply(self, audio):
        import soundfile as sf

        if audio.size == 0:
            return audio.copy()
        fmt, subtype = _CODECS[self.codec]
        buf = io.BytesIO()
        with sf.SoundFile(buf, "w", samplerate=SAMPLE_RATE, channels=1, format=fmt, subtype=subtype,
                          compression_level=self.quality) as fh:
            fh.write(audio)
        buf.seek(0)
        decoded, rate = sf.read(buf, dtype="float32")
        if decoded.ndim > 1:
            decoded = decoded.mean(axis=1)
        if rate != SAMPLE_RATE:
            from asraudit.audio.io import resample

            decoded = resample(decoded, rate, SAMPLE_RATE)
        lag = _estimate_delay(audio, decoded, max_lag=min(4096, len(audio) - 1))
        if lag > 0:
            decoded = decoded[lag:]
        elif lag < 0:
            decoded = np.concatenate([np.zeros(-lag, dtype=np.float32), decoded])
        out = np.zeros_like(audio)
        n = min(len(audio), len(decoded))
        out[:n] = decoded[:n]
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
        start = max(0, int(round((self.t0 - self.before) * SAMPLE_RATE)))
        end = min(n_samples, int(round((self.t1 + self.after) * SAMPLE_RATE)))
        return start, max(start, end)

    def _apply(self, audio):
        start, end = self.sample_range(len(audio))
        return audio[start:end].copy()

    def time_map(self, t: float) -> float:
        return t - max(0.0, round((self.t0 - self.before) * SAMPLE_RATE) / SAMPLE_RATE)


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
        if self.where not in ("prepend", "append"):
            raise ValueError(f"splice 'where' must be 'prepend' or 'append', got {self.where!r}")
        if self.seconds <= 0:
            raise ValueError("splice seconds must be > 0")

    def params(self):
        return {"donor": f"{self.donor_id}#{_audio_digest(self.donor)}", "seconds": self.seconds,
                "where": self.where, "gap": self.gap}

    def _piece(self) -> tuple[np.ndarray, np.ndarray]:
        donor = _as_audio(self.donor)
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

    def time_map(self, t: float) -> float:
        if self.where == "prepend":
            return t + (round(self.seconds * SAMPLE_RATE) + round(self.gap * SAMPLE_RATE)) / SAMPLE_RATE
        return t


TTS_ENGINES = ("espeak-ng", "flite")


def synthesize(text: str, engine: str = "espeak-ng", voice: str | None = None) -> np.ndarray:
    """Speak ``text`` with a local TTS engine; mono float32 at 16 kHz."""
    from asraudit.audio.io import load_audio

    if engine not in TTS_ENGINES:
        raise ValueError(f"TTS engine must be one of {', '.join(TTS_ENGINES)}, got {engine!r}")
    exe = shutil.which(engine)
    if exe is None:
        raise RuntimeError(f"{engine} is not installed (Debian: apt-get install {engine})")
    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "tts.wav"
        if engine == "espeak-ng":
            cmd = [exe, "-w", str(wav)] + (["-v", voice] if voice else []) + [text]
        else:
            cmd = [exe, "-t", text, "-o", str(wav)] + (["-voice", voice] if voice else [])
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)
        return load_audio(wav)


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
        if (self.audio is None) == (self.text is None):
            raise ValueError("revoice needs exactly one of: a recording (audio) or text to synthesize")

    def params(self):
        if self.audio is not None:
            return {"voice": self.voice_id, "audio": _audio_digest(self.audio)}
        return {"voice": self.voice_id, "engine": self.engine,
                "text": hashlib.sha1(self.text.encode("utf-8")).hexdigest()[:10]}

    def _apply(self, audio):
        if self.audio is not None:
            return _as_audio(self.audio).copy()
        return synthesize(self.text, self.engine, None if self.voice_id == "default" else self.voice_id)

    def time_map(self, t: float) -> float:
        raise ValueError("re-voiced audio has new timings; align the new audio instead")


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


def compose(*steps: Condition) -> Condition:
    flat: list[Condition] = []
    for s in steps:
        flat.extend(s.steps if isinstance(s, Compose) else [s])
    flat = [s for s in flat if not isinstance(s, Original)]
    if not flat:
        return Original()
    return flat[0] if len(flat) == 1 else Compose(tuple(flat))


def measured_snr_db(clean: np.ndarray, noisy: np.ndarray) -> float:
    """SNR of ``noisy`` against ``clean``: 10·log10(P(clean) / P(noisy − clean))."""
    clean64 = np.asarray(clean, dtype=np.float64)
    noise = np.asarray(noisy, dtype=np.float64) - clean64
    return 10 * math.log10(np.mean(clean64 ** 2) / np.mean(noise ** 2))


def babble_from(donors: Sequence[tuple[str, np.ndarray]], snr_db: float, seed: int = 0) -> Noise:
    """Babble noise from (id, audio) donor clips."""
    return Noise(snr_db=snr_db, kind="babble", seed=seed,
                 donors=tuple(a for _, a in donors), donor_ids=tuple(i for i, _ in donors))
