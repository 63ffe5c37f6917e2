"""Channel conditions: the same words through a different channel (noise, reverb, codec).

The trigger battery asks whether a behaviour survives a change of recording
conditions; these change how the clip sounds and keep its length and word
timings, so masks and probes computed on the original still apply.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import soundfile as sf

from asraudit.audio.conditions.base import Condition, audio_digest, rms
from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.io import resample


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
        super().__post_init__()
        if self.kind not in ("white", "babble"):
            raise ValueError(f"noise kind must be 'white' or 'babble', got {self.kind!r}")
        if self.kind == "babble" and not self.donors:
            raise ValueError("babble noise needs donor audio (other clips)")

    def params(self):
        p = {"snr_db": self.snr_db, "kind": self.kind, "seed": self.seed}
        if self.kind == "babble":
            ids = self.donor_ids or tuple(audio_digest(d) for d in self.donors)
            p["donors"] = "|".join(ids)
        return p

    def noise_for(self, n: int) -> np.ndarray:
        rng = np.random.default_rng(self.seed)
        if self.kind == "white":
            return rng.standard_normal(n)
        total = np.zeros(n, dtype=np.float64)
        for donor in self.donors:
            d = np.asarray(donor, dtype=np.float64)
            if d.size == 0 or rms(d) == 0:
                continue
            offset = int(rng.integers(0, len(d)))
            looped = np.resize(np.roll(d, -offset), n)
            total += looped / rms(looped) if rms(looped) > 0 else 0
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
        in_rms, out_rms = rms(audio), rms(wet)
        if out_rms > 0:
            wet *= in_rms / out_rms
        return wet.astype(np.float32)


_CODECS = {"mp3": ("MP3", "MPEG_LAYER_III"), "opus": ("OGG", "OPUS"), "vorbis": ("OGG", "VORBIS")}


# The libsndfile release that first writes each codec (MP3 came in 1.1.0, Opus in 1.0.29).
_CODEC_SINCE = {"mp3": "1.1.0", "opus": "1.0.29", "vorbis": "1.0.18"}


def _encoded(audio: np.ndarray, codec: str, quality: float) -> io.BytesIO:
    """``audio`` written by libsndfile as ``codec``; a libsndfile that cannot write it is one line saying so."""
    fmt, subtype = _CODECS[codec]
    buf = io.BytesIO()
    try:
        with sf.SoundFile(buf, "w", samplerate=SAMPLE_RATE, channels=1, format=fmt, subtype=subtype,
                          compression_level=quality) as fh:
            fh.write(audio)
    except (ValueError, TypeError, RuntimeError) as exc:  # sf.LibsndfileError is a RuntimeError
        if quality != _PROBE_QUALITY and _writes(fmt, subtype, _PROBE_QUALITY):
            # libsndfile writes the codec, only not at this quality: its MP3 encoder asks LAME for VBR quality
            # 10 x quality, and LAME takes less than 10, so quality = 1 was refused, blamed on libsndfile's version
            raise RuntimeError(f"codec {codec}: the installed libsndfile ({sf.__libsndfile_version__}) writes {fmt} "
                               f"{subtype} but not at quality {quality:g} ({exc}): give another quality"
                               + (" (its MP3 encoder takes less than 1)" if codec == "mp3" else "")) from None
        raise RuntimeError(f"codec {codec}: the installed libsndfile ({sf.__libsndfile_version__}) cannot write "
                           f"{fmt} {subtype} ({exc}); it takes libsndfile {_CODEC_SINCE[codec]} or later: update "
                           "libsndfile (the soundfile wheel bundles a recent one), or choose another codec") from None
    buf.seek(0)
    return buf


_PROBE_QUALITY = 0.5  # a quality every encoder takes: whether libsndfile writes a codec at all


def _writes(fmt: str, subtype: str, quality: float) -> bool:
    try:
        with sf.SoundFile(io.BytesIO(), "w", samplerate=SAMPLE_RATE, channels=1, format=fmt, subtype=subtype,
                          compression_level=quality) as fh:
            fh.write(np.zeros(SAMPLE_RATE // 10, dtype=np.float32))
    except (ValueError, TypeError, RuntimeError):
        return False
    return True


def check_codec(codec: str, quality: float = 0.5) -> None:
    """That libsndfile writes ``codec`` here, by encoding a tenth of a second of silence (RuntimeError if not):
    a build without MP3 was a ``ValueError`` traceback once the battery reached the condition."""
    _encoded(np.zeros(SAMPLE_RATE // 10, dtype=np.float32), codec, quality)


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
        super().__post_init__()
        if self.codec not in _CODECS:
            raise ValueError(f"codec must be one of {', '.join(_CODECS)}, got {self.codec!r}")
        if not 0 <= self.quality <= 1:
            raise ValueError("codec quality (compression level) must be in [0, 1]")

    def params(self):
        return {"codec": self.codec, "quality": self.quality}

    def _apply(self, audio):
        if audio.size == 0:
            return audio.copy()
        decoded, rate = sf.read(_encoded(audio, self.codec, self.quality), dtype="float32")
        if decoded.ndim > 1:
            decoded = decoded.mean(axis=1)
        if rate != SAMPLE_RATE:
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


def measured_snr_db(clean: np.ndarray, noisy: np.ndarray) -> float:
    """SNR of ``noisy`` against ``clean``: 10·log10(P(clean) / P(noisy − clean))."""
    clean64 = np.asarray(clean, dtype=np.float64)
    noise = np.asarray(noisy, dtype=np.float64) - clean64
    return 10 * math.log10(np.mean(clean64 ** 2) / np.mean(noise ** 2))


def babble_from(donors: Sequence[tuple[str, np.ndarray]], snr_db: float, seed: int = 0) -> Noise:
    """Babble noise from (id, audio) donor clips."""
    return Noise(snr_db=snr_db, kind="babble", seed=seed,
                 donors=tuple(a for _, a in donors), donor_ids=tuple(i for i, _ in donors))
