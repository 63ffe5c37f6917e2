"""Conditions do exactly what they say, deterministically."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from asraudit.audio.conditions import (
    Codec,
    DonorSplice,
    Noise,
    Original,
    Revoice,
    Reverb,
    Silence,
    SpanMask,
    Truncate,
    babble_from,
    compose,
    measured_snr_db,
    synthetic_rir,
)

SR = 16_000


def _speechlike(seconds: float = 2.0, seed: int = 0) -> np.ndarray:
    """Amplitude-modulated harmonics: syllable-rate bursts, like speech to a meter."""
    t = np.arange(int(seconds * SR)) / SR
    rng = np.random.default_rng(seed)
    carrier = sum(np.sin(2 * np.pi * f * t + rng.uniform(0, 6)) / k for k, f in enumerate((140, 280, 420, 900), 1))
    envelope = 0.5 + 0.5 * np.sin(2 * np.pi * 4 * t)
    return (0.2 * carrier * envelope).astype(np.float32)


def test_original_and_silence_keep_length():
    x = _speechlike()
    assert np.array_equal(Original()(x), x)
    s = Silence()(x)
    assert s.shape == x.shape and not s.any()


def test_mask_leaves_samples_outside_the_guard_bit_identical():
    x = _speechlike(3.0)
    mask = SpanMask(1.0, 1.5, fill="noise", pad=0.2, guard=0.05, seed=3)
    y = mask(x)
    lo, hi = int((1.0 - 0.05) * SR), int((1.5 + 0.05) * SR)
    assert np.array_equal(y[:lo], x[:lo]) and np.array_equal(y[hi + 1:], x[hi + 1:])
    inner = slice(int(1.0 * SR) + 200, int(1.5 * SR) - 200)
    assert not np.allclose(y[inner], x[inner])


def test_mask_respects_neighbouring_word_boundaries():
    x = _speechlike(3.0)
    y = SpanMask(1.0, 1.5, pad=0.05, guard=0.05, not_before=0.99, not_after=1.51)(x)
    assert np.array_equal(y[: int(0.99 * SR)], x[: int(0.99 * SR)])
    assert np.array_equal(y[int(1.51 * SR) + 1:], x[int(1.51 * SR) + 1:])


def test_silence_mask_zeroes_the_span_core():
    x = _speechlike(2.0)
    y = SpanMask(0.5, 1.0)(x)
    core = slice(int(0.5 * SR) + 100, int(1.0 * SR) - 100)
    assert not y[core].any()


def test_noise_mask_is_at_the_requested_attenuation():
    x = _speechlike(3.0)
    y = SpanMask(1.0, 2.0, fill="noise", attenuation_db=20, pad=0, guard=0)(x)
    core = y[int(1.01 * SR): int(1.99 * SR)]
    ratio_db = 20 * np.log10(np.sqrt(np.mean(x.astype(np.float64) ** 2)) / np.sqrt(np.mean(core.astype(np.float64) ** 2)))
    assert abs(ratio_db - 20) < 0.5


@pytest.mark.parametrize("snr", [-5.0, 0.0, 10.0, 30.0])
def test_white_noise_snr_measured_on_the_output_equals_the_request(snr):
    x = _speechlike()
    y = Noise(snr_db=snr, seed=1)(x)
    assert abs(measured_snr_db(x, y) - snr) < 0.1


def test_babble_snr_and_donor_identity():
    x = _speechlike(seed=0)
    donors = [("d1", _speechlike(1.3, seed=1)), ("d2", _speechlike(0.7, seed=2))]
    cond = babble_from(donors, snr_db=5.0, seed=2)
    assert abs(measured_snr_db(x, cond(x)) - 5.0) < 0.1
    assert "d1|d2" in cond.id


def test_conditions_are_deterministic_and_ids_track_parameters():
    x = _speechlike()
    a, b = Noise(snr_db=10, seed=4), Noise(snr_db=10, seed=4)
    assert np.array_equal(a(x), b(x)) and a.id == b.id
    assert Noise(snr_db=10, seed=5).id != a.id and Noise(snr_db=11, seed=4).id != a.id
    assert SpanMask(1.0, 1.2).id != SpanMask(1.0, 1.3).id


def test_truncation_window_lands_on_the_right_samples():
    x = np.arange(5 * SR, dtype=np.float32)
    cond = Truncate(2.0, 2.5, before=0.25, after=0.5)
    y = cond(x)
    assert y[0] == 1.75 * SR and y[-1] == 3.0 * SR - 1 and len(y) == int(1.25 * SR)
    assert cond.time_map(2.0) == pytest.approx(0.25)
    edge = Truncate(0.1, 4.9, before=1.0, after=1.0)(x)
    assert len(edge) == len(x)


def test_donor_splice_prepends_and_shifts_times():
    x = _speechlike(1.0)
    donor = _speechlike(3.0, seed=9)
    cond = DonorSplice(donor, "bench-17", seconds=2.0, where="prepend", gap=0.25)
    y = cond(x)
    assert len(y) == len(x) + int(2.25 * SR)
    assert np.array_equal(y[: 2 * SR], donor[: 2 * SR]) and np.array_equal(y[-len(x):], x)
    assert cond.time_map(0.5) == pytest.approx(2.75)
    other = DonorSplice(_speechlike(3.0, seed=10), "bench-17", seconds=2.0)
    assert other.id != cond.id  # same name, different audio: different id


def test_donor_shorter_than_requested_is_a_clear_error():
    with pytest.raises(ValueError, match="fewer than"):
        DonorSplice(np.zeros(SR, np.float32), "short", seconds=2.0)(np.zeros(SR, np.float32))


def test_reverb_rir_decays_by_60_db_at_rt60():
    rir = synthetic_rir(0.5, seed=0)
    tail = rir[1:]
    first = np.sqrt(np.mean(tail[:400] ** 2))
    last = np.sqrt(np.mean(tail[-400:] ** 2))
    assert 50 < 20 * np.log10(first / last) < 70
    x = _speechlike()
    y = Reverb(0.4)(x)
    assert y.shape == x.shape and abs(np.sqrt(np.mean(y ** 2)) - np.sqrt(np.mean(x ** 2))) < 1e-3


@pytest.mark.parametrize("codec", ["mp3", "opus", "vorbis"])
def test_codec_round_trip_keeps_length_and_alignment(codec):
    x = _speechlike(2.0)
    y = Codec(codec, quality=0.3)(x)
    assert y.shape == x.shape
    # After delay compensation the decoded audio lines up with the input.
    corr = np.corrcoef(x[SR // 4: -SR // 4], y[SR // 4: -SR // 4])[0, 1]
    assert corr > 0.8, corr


def test_compose_applies_in_order_and_maps_times():
    x = _speechlike(1.0)
    donor = _speechlike(2.0, seed=3)
    splice = DonorSplice(donor, "d", seconds=1.0)
    cond = compose(splice, SpanMask(splice.time_map(0.2), splice.time_map(0.4)))
    y = cond(x)
    assert cond.id.startswith("splice(") and "+mask(" in cond.id
    assert np.array_equal(y[:SR], donor[:SR])
    assert not y[int(1.25 * SR): int(1.35 * SR)].any()
    assert compose(Original()).id == "original"


def test_revoice_from_a_recording_replaces_the_audio():
    rec = _speechlike(1.5, seed=7)
    y = Revoice("reader-2", audio=rec)(_speechlike(1.0))
    assert np.array_equal(y, rec)


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_revoice_with_tts_speaks_the_text():
    y = Revoice("en-us", text="twenty one per cent")(np.zeros(SR, np.float32))
    assert y.dtype == np.float32 and len(y) > SR // 2 and np.abs(y).max() > 0.01
