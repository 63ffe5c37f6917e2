"""Granite-Speech features without torchaudio, against a reference computed another way.

The reference frames the signal by hand (reflect padding, a Hann window
centred in the FFT length) and takes numpy's real FFT in float64, and builds
the HTK filterbank from its definition (triangles between adjacent mel
points, peak 1 at each centre), so it shares no code with the torch.stft
path under test.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from asraudit.models.granite_features import granite_log_mel, htk_mel_filterbank, mel_power  # noqa: E402

N_FFT, WIN, HOP, MELS, SR = 512, 400, 160, 80, 16000


def _reference_power(x: np.ndarray) -> np.ndarray:
    padded = np.pad(x.astype(np.float64), N_FFT // 2, mode="reflect")
    n = np.arange(WIN)
    hann = 0.5 - 0.5 * np.cos(2 * np.pi * n / WIN)  # periodic
    window = np.zeros(N_FFT)
    window[(N_FFT - WIN) // 2 : (N_FFT - WIN) // 2 + WIN] = hann
    frames = 1 + (len(padded) - N_FFT) // HOP
    stack = np.stack([padded[i * HOP : i * HOP + N_FFT] * window for i in range(frames)])
    return np.abs(np.fft.rfft(stack, axis=1)) ** 2  # [frames, freqs]


def _reference_bank() -> np.ndarray:
    hz_to_mel = lambda f: 2595.0 * np.log10(1.0 + f / 700.0)  # noqa: E731
    mel_to_hz = lambda m: 700.0 * (10 ** (m / 2595.0) - 1.0)  # noqa: E731
    edges = mel_to_hz(np.linspace(hz_to_mel(0.0), hz_to_mel(SR / 2), MELS + 2))
    freqs = np.linspace(0, SR // 2, N_FFT // 2 + 1)
    bank = np.zeros((len(freqs), MELS))
    for m in range(MELS):
        lo, mid, hi = edges[m], edges[m + 1], edges[m + 2]
        for k, f in enumerate(freqs):
            if lo < f <= mid:
                bank[k, m] = (f - lo) / (mid - lo)
            elif mid < f < hi:
                bank[k, m] = (hi - f) / (hi - mid)
    return bank


def test_filterbank_matches_its_definition():
    np.testing.assert_allclose(htk_mel_filterbank(N_FFT // 2 + 1, SR, MELS), _reference_bank(), atol=1e-12)


def test_mel_power_matches_a_hand_framed_numpy_fft():
    rng = np.random.default_rng(0)
    x = (0.1 * rng.standard_normal(8000) + 0.3 * np.sin(np.arange(8000) * 0.05)).astype(np.float32)
    ours = mel_power(torch.from_numpy(x)[None]).numpy()[0].T.astype(np.float64)  # [frames, mels]
    reference = _reference_power(x) @ _reference_bank()
    assert ours.shape == reference.shape == (8000 // HOP + 1, MELS)
    # float32 output of a float64 computation: relative 1e-6, floor for near-empty bands.
    np.testing.assert_allclose(ours, reference, rtol=1e-6, atol=1e-9 * reference.max())


def test_granite_steps_stack_frame_pairs_and_clip_eight_decades():
    x = torch.zeros(1, 16000)
    x[0, 4000:4400] = 0.5
    feats = granite_log_mel(x)
    assert feats.shape == (1, (16000 // HOP + 1) // 2, 2 * MELS)
    peak = float(np.log10(mel_power(x).numpy().max()))
    assert float(feats.max()) == pytest.approx(peak / 4 + 1, rel=1e-6)
    # After /4 + 1, the floor is 8 decades (= 2.0) below the peak.
    assert float(feats.max() - feats.min()) <= 2.0 + 1e-6
