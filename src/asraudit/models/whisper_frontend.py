"""Whisper's log-mel front end, in numpy.

CTranslate2 runs only the network, so the features are ours to compute.  They
must match what Whisper was trained on, bit for bit in spirit: a periodic Hann
window of 400 samples (25 ms), hop 160 (10 ms), centred frames with reflect
padding, power spectrum, Slaney-style mel filters, ``log10`` clamped at 1e-10,
a floor 8 decades below the loudest bin, and the ``(x + 4) / 4`` scaling.

Every window is exactly 30 s (3000 frames): the audio is zero-padded *before*
the STFT, as openai/whisper does, so the padding reads as digital silence.
Feeding fewer frames is not an option: Whisper only ever saw 30-s windows, and
base loops on unpadded short input.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.io import SILENT_RMS
from asraudit.models.base import audio_batch

N_FFT = 400
HOP_LENGTH = 160
CHUNK_SECONDS = 30
N_SAMPLES = CHUNK_SECONDS * SAMPLE_RATE  # 480000 samples in one window
N_FRAMES = N_SAMPLES // HOP_LENGTH  # 3000 frames in one window


def _hz_to_mel(freqs: np.ndarray) -> np.ndarray:
    """Slaney's mel scale: linear below 1 kHz, logarithmic above (librosa's default)."""
    freqs = np.asarray(freqs, dtype=np.float64)
    f_sp = 200.0 / 3
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = np.log(6.4) / 27.0
    linear = freqs / f_sp
    log = min_log_mel + np.log(np.maximum(freqs, min_log_hz) / min_log_hz) / logstep
    return np.where(freqs >= min_log_hz, log, linear)


def _mel_to_hz(mels: np.ndarray) -> np.ndarray:
    mels = np.asarray(mels, dtype=np.float64)
    f_sp = 200.0 / 3
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = np.log(6.4) / 27.0
    linear = f_sp * mels
    log = min_log_hz * np.exp(logstep * (mels - min_log_mel))
    return np.where(mels >= min_log_mel, log, linear)


@lru_cache(maxsize=4)
def mel_filters(n_mels: int = 80, n_fft: int = N_FFT, sample_rate: int = SAMPLE_RATE) -> np.ndarray:
    """Triangular mel filters, ``[n_mels, n_fft // 2 + 1]``, area-normalised (``norm="slaney"``).

    The same construction as ``librosa.filters.mel(sr, n_fft, n_mels)``, which
    is what Whisper's ``mel_filters.npz`` holds; computed here so that no
    asset file has to ship and 128-mel models (large-v3) work too.
    """
    fft_freqs = np.linspace(0.0, sample_rate / 2, n_fft // 2 + 1)
    mel_points = np.linspace(_hz_to_mel(0.0), _hz_to_mel(sample_rate / 2), n_mels + 2)
    hz_points = _mel_to_hz(mel_points)
    widths = np.diff(hz_points)
    ramps = hz_points[:, None] - fft_freqs[None, :]
    lower = -ramps[:-2] / widths[:-1, None]
    upper = ramps[2:] / widths[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    weights *= (2.0 / (hz_points[2 : n_mels + 2] - hz_points[:n_mels]))[:, None]
    weights = weights.astype(np.float32)
    weights.setflags(write=False)
    return weights


@lru_cache(maxsize=1)
def _hann_window() -> np.ndarray:
    # Periodic, like torch.hann_window(400): the STFT frames tile without a doubled endpoint.
    n = np.arange(N_FFT)
    return (0.5 - 0.5 * np.cos(2 * np.pi * n / N_FFT)).astype(np.float32)


def log_mel_spectrogram(audio: np.ndarray, n_mels: int = 80) -> np.ndarray:
    """Whisper features of one window of at most 30 s: ``[n_mels, 3000]`` float32.

    Longer audio raises: callers split it into windows first (see
    ``split_windows``), so that no audio is silently dropped.
    """
    audio = np.asarray(audio, dtype=np.float32)
    if audio.ndim != 1:
        raise ValueError(f"expected mono audio (1-D array), got shape {audio.shape}")
    if audio.shape[0] > N_SAMPLES:
        raise ValueError(f"audio is {audio.shape[0] / SAMPLE_RATE:.2f} s; one Whisper window holds at most 30 s")
    padded = np.zeros(N_SAMPLES, dtype=np.float32)
    padded[: audio.shape[0]] = audio
    centred = np.pad(padded, N_FFT // 2, mode="reflect")
    # Drop the last frame, as Whisper does (3001 centred frames -> 3000).
    frames = np.lib.stride_tricks.sliding_window_view(centred, N_FFT)[::HOP_LENGTH][:N_FRAMES]
    # Frame k spans padded[160k - 200, 160k + 200): once it is past the audio (and
    # clear of the reflected end) it holds only the zero padding, whose power
    # spectrum is exactly zero.  Only frames that touch the audio go through the
    # FFT: the features are bit-identical, and a 5-s clip costs a third as much.
    n = audio.shape[0]
    active = N_FRAMES if n + N_FFT >= N_SAMPLES else min(N_FRAMES, (n + N_FFT // 2) // HOP_LENGTH + 2)
    spectrum = np.fft.rfft(frames[:active] * _hann_window(), axis=-1)
    power = np.zeros((N_FFT // 2 + 1, N_FRAMES), dtype=np.float32)
    power[:, :active] = (spectrum.real**2 + spectrum.imag**2).T
    mel = mel_filters(n_mels) @ power
    log_spec = np.log10(np.maximum(mel, 1e-10))
    log_spec = np.maximum(log_spec, log_spec.max() - 8.0)
    return ((log_spec + 4.0) / 4.0).astype(np.float32)


# How long clips are cut into windows, in every config hash of a model that windows: results stored under the
# earlier rule (full 30-s windows and a remnant) must be recomputed, not reused, since a long clip's transcript
# changed with it.  Change the tag whenever ``split_windows`` cuts differently.
WINDOWING = "near-equal windows cut in pauses, digital silence skipped"
# Where a long clip is cut (``split_windows``): at the quietest 100 ms within reach of an equal split.
QUIET_SPAN = SAMPLE_RATE // 10
CUT_STEP = SAMPLE_RATE // 100
CUT_REACH = 5 * SAMPLE_RATE


def split_windows(audio: np.ndarray, window_samples: int = N_SAMPLES) -> list[np.ndarray]:
    """Cut audio longer than ``window_samples`` (Whisper's 30 s by default) into windows of near-equal length,
    each cut moved to the quietest 100 ms within reach of the equal split (5 s, or a sixth of a window if
    less): as few windows as leave every cut that room (two for a clip of 30-50 s, 48 for 20 minutes).

    Not Whisper's timestamp-driven seeking.  Consecutive full windows left a last window of whatever remained:
    a 30.3-s clip ended in 0.3 s of its trailing silence, which Whisper transcribes as "you", one insertion
    in every clip just over 30 s (LibriSpeech has clips up to 35 s); a cut at a fixed sample also split
    words.  Windows are now at least a sixth of a window long, and a cut in a pause leaves words whole.
    Benchmark clips are almost all under 30 s, where nothing is cut.
    """
    audio = np.asarray(audio, dtype=np.float32)
    n = audio.shape[0]
    if n <= window_samples:
        return [audio]
    reach = min(CUT_REACH, window_samples // 6)
    count = -(-n // (window_samples - reach))  # room for every cut to move, so a long recording is cut in pauses
    half = QUIET_SPAN // 2
    energy = np.concatenate([[0.0], np.cumsum(np.square(audio, dtype=np.float64))])
    cuts = [0]
    for k in range(1, count):
        # The window before the cut and the windows after it must each hold at most ``window_samples``.
        lo = max(cuts[-1] + 1, n - (count - k) * window_samples, round(k * n / count) - reach)
        hi = min(cuts[-1] + window_samples, round(k * n / count) + reach)
        target = min(max(round(k * n / count), lo), hi)
        candidates = np.unique(np.concatenate([np.arange(lo, hi + 1, CUT_STEP), [target]]))
        quiet = energy[np.minimum(candidates + half, n)] - energy[np.maximum(candidates - half, 0)]
        best = np.lexsort((np.abs(candidates - target), quiet))[0]  # quietest; of equals, nearest the split
        cuts.append(int(candidates[best]))
    cuts.append(n)
    return [audio[a:b] for a, b in zip(cuts, cuts[1:])]


def audible_windows(windows: list[np.ndarray]) -> list[np.ndarray]:
    """The windows of one clip worth decoding: those that are not digital silence (RMS below -80 dBFS), or the
    first alone when all are.

    A window of silence cut from a long clip (a recording padded with zeros, speech that ends early) was
    decoded, and Whisper hears silence as "you": appended to the clip's transcript, an insertion the cut made.
    A clip that is silence throughout is still decoded once, as a short silent clip is."""
    if len(windows) < 2:
        return windows
    audible = [w for w in windows if float(np.sqrt(np.mean(np.square(w, dtype=np.float64)))) >= SILENT_RMS]
    return audible or windows[:1]


# Chinese and Japanese are written without spaces between words or sentences: Han, kana, CJK punctuation and the
# fullwidth forms.  (Thai, Lao, Khmer and Myanmar write a space where a phrase ends, as at a pause a window is cut in.)
_UNSPACED = ((0x3000, 0x30FF), (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF),
             (0xFF00, 0xFFEF), (0x20000, 0x3FFFF))


def _unspaced(ch: str) -> bool:
    code = ord(ch)
    return any(low <= code <= high for low, high in _UNSPACED)


def join_window_texts(texts: Sequence[str]) -> str:
    """A clip's window transcripts as one text: one space between windows, except where the characters on both
    sides of the cut are Chinese or Japanese, whose text has no spaces (a space there is a character CER counts,
    and a word boundary WER counts, that the speech does not have).  Empty windows add nothing."""
    joined = ""
    for text in (t.strip() for t in texts):
        if not text:
            continue
        if joined and not (_unspaced(joined[-1]) and _unspaced(text[0])):
            joined += " "
        joined += text
    return joined


def transcribe_in_windows(audio, decode_windows, batch_size: int, *, window_samples: int = N_SAMPLES,
                          by_length: bool = False) -> list[str]:
    """One transcript per clip: every clip cut into windows, ``decode_windows`` called on
    batches of at most ``batch_size`` windows, each clip's window texts joined (``join_window_texts``).

    Shared by the Whisper backends so that long clips are handled the same way in each;
    other models pass their own maximum input as ``window_samples``.  ``by_length``
    batches windows of similar length together (models whose cost grows with the
    padded length); the transcripts come back in the clips' order either way.
    """
    audio = audio_batch(audio)
    windows: list[np.ndarray] = []
    owner: list[int] = []
    for index, clip in enumerate(audio):
        for window in audible_windows(split_windows(clip, window_samples)):
            windows.append(window)
            owner.append(index)
    order = sorted(range(len(windows)), key=lambda i: len(windows[i])) if by_length else list(range(len(windows)))
    decoded: dict[int, str] = {}
    step = max(1, batch_size)
    for start in range(0, len(order), step):
        chunk = order[start : start + step]
        decoded.update(zip(chunk, decode_windows([windows[i] for i in chunk])))
    texts = [decoded[i] for i in range(len(windows))]
    pieces: list[list[str]] = [[] for _ in audio]
    for index, text in zip(owner, texts):
        pieces[index].append(text)
    return [join_window_texts(p) for p in pieces]
