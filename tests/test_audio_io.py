"""Audio loading: every format to mono float32 at 16 kHz, and clear errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from asraudit.audio.io import (
    Origin,
    RawFormat,
    audio_duration,
    check_audio_file,
    decode_audio_bytes,
    load_audio,
    prepare,
    resample,
)
from asraudit.errors import InputError

SR = 16_000


def tone(freq: float, seconds: float, rate: int, amp: float = 0.5) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def dominant_frequency(x: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    return float(np.fft.rfftfreq(len(x), 1 / rate)[np.argmax(spectrum)])


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64))))


def test_int16_wav_is_read_as_float32_scaled_to_unit_range(tmp_path: Path):
    ints = np.array([0, 16384, -32768, 32767, -1], dtype=np.int16)
    sf.write(tmp_path / "a.wav", ints, SR, subtype="PCM_16")
    out = load_audio(tmp_path / "a.wav")
    assert out.dtype == np.float32 and out.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(out, ints.astype(np.float32) / 32768)


def test_stereo_is_averaged_not_first_channel(tmp_path: Path):
    left = tone(440, 0.5, SR)
    stereo = np.stack([left, np.zeros_like(left)], axis=1)
    sf.write(tmp_path / "s.wav", stereo, SR, subtype="FLOAT")
    out = load_audio(tmp_path / "s.wav")
    assert out.ndim == 1
    np.testing.assert_allclose(out, left / 2, atol=1e-7)


def test_resampling_keeps_the_tone_and_its_level(tmp_path: Path):
    x = tone(1000, 1.0, 44_100)
    sf.write(tmp_path / "t.flac", x, 44_100, subtype="PCM_24")
    out = load_audio(tmp_path / "t.flac")
    assert len(out) == 16_000
    assert dominant_frequency(out, SR) == pytest.approx(1000, abs=2)
    middle = slice(1000, -1000)  # ignore the filter's edge transients
    assert rms(out[middle]) == pytest.approx(0.5 / np.sqrt(2), rel=0.01)


def test_resampling_removes_content_above_the_new_nyquist_instead_of_aliasing_it():
    # 11 kHz is above 8 kHz: naive decimation would fold it to 5 kHz at full level.
    x = tone(11_000, 1.0, 48_000)
    out = resample(x, 48_000, SR)
    assert 20 * np.log10(rms(out[1000:-1000]) / rms(x)) < -60


@pytest.mark.parametrize(
    "suffix, fmt, subtype",
    [(".ogg", "OGG", "VORBIS"), (".mp3", "MP3", "MPEG_LAYER_III"), (".flac", "FLAC", "PCM_16")],
)
def test_compressed_formats_decode_to_the_same_tone(tmp_path: Path, suffix, fmt, subtype):
    x = tone(500, 1.0, 22_050)
    path = tmp_path / f"c{suffix}"
    sf.write(path, x, 22_050, format=fmt, subtype=subtype)
    out = load_audio(path)
    assert abs(len(out) - SR) < 0.1 * SR  # lossy codecs pad a few frames
    assert dominant_frequency(out, SR) == pytest.approx(500, abs=3)


def test_raw_pcm_defaults_to_16_bit_little_endian_mono_16k(tmp_path: Path):
    ints = np.array([1, -2, 300, -32768], dtype="<i2")
    (tmp_path / "x.raw").write_bytes(ints.tobytes())
    np.testing.assert_array_equal(load_audio(tmp_path / "x.raw"), ints / 32768)
    assert audio_duration(tmp_path / "x.raw") == pytest.approx(4 / SR)


def test_raw_pcm_with_a_declared_rate_is_resampled(tmp_path: Path):
    x = (tone(300, 1.0, 8_000) * 32767).astype("<i2")
    (tmp_path / "x.pcm").write_bytes(x.tobytes())
    out = load_audio(tmp_path / "x.pcm", raw=RawFormat(sample_rate=8_000))
    assert len(out) == SR


def test_truncated_raw_pcm_is_refused(tmp_path: Path):
    (tmp_path / "odd.raw").write_bytes(b"\x00\x01\x02")
    with pytest.raises(InputError, match="not a whole number"):
        load_audio(tmp_path / "odd.raw")


def test_broken_file_error_names_the_file(tmp_path: Path):
    bad = tmp_path / "broken.wav"
    bad.write_bytes(b"RIFF\x10\x00\x00\x00WAVEjunkjunk")
    with pytest.raises(InputError) as err:
        load_audio(bad)
    assert err.value.source == str(bad)
    assert "cannot decode" in str(err.value)


def test_broken_file_error_names_the_manifest_row_when_known(tmp_path: Path):
    bad = tmp_path / "broken.flac"
    bad.write_bytes(b"not audio at all")
    with pytest.raises(InputError) as err:
        load_audio(bad, origin=Origin("corpus.jsonl", 7))
    assert err.value.source == "corpus.jsonl" and err.value.row == 7
    assert str(bad) in str(err.value)


def test_missing_file_is_an_input_error(tmp_path: Path):
    with pytest.raises(InputError, match="no such file"):
        load_audio(tmp_path / "nope.wav")


def test_zero_length_file_is_an_input_error(tmp_path: Path):
    (tmp_path / "empty.wav").write_bytes(b"")
    with pytest.raises(InputError):
        load_audio(tmp_path / "empty.wav")


def test_file_with_no_samples_is_an_input_error(tmp_path: Path):
    sf.write(tmp_path / "nothing.wav", np.zeros(0, np.float32), SR)
    with pytest.raises(InputError, match="empty"):
        load_audio(tmp_path / "nothing.wav")


def test_nan_samples_are_refused():
    x = tone(100, 0.1, SR)
    x[10] = np.nan
    with pytest.raises(InputError, match="NaN"):
        prepare(x, SR)


def test_encoded_bytes_decode_like_the_file(tmp_path: Path):
    x = tone(700, 0.5, 32_000)
    sf.write(tmp_path / "b.flac", x, 32_000)
    from_bytes = decode_audio_bytes((tmp_path / "b.flac").read_bytes(), name="row 3")
    np.testing.assert_array_equal(from_bytes, load_audio(tmp_path / "b.flac"))


def test_empty_bytes_are_an_input_error_naming_the_clip():
    with pytest.raises(InputError, match="0 bytes") as err:
        decode_audio_bytes(b"", name="dataset row 5")
    assert err.value.source == "dataset row 5"


def test_duration_comes_from_the_header(tmp_path: Path):
    sf.write(tmp_path / "d.wav", np.zeros(12_345, np.float32), 44_100)
    assert audio_duration(tmp_path / "d.wav") == pytest.approx(12_345 / 44_100)


def test_the_corpus_check_reads_samples_in_blocks_and_judges_them_as_a_decode_does(tmp_path: Path):
    """``check_audio_file`` reads the samples of float and multichannel files block by block (a 20-minute
    six-channel file took 1.4 GB whole); its verdicts are the decode's, over the whole file."""
    import asraudit.audio.io as audio_io

    n = audio_io._CHECK_BLOCK * 2 + 123  # three blocks
    t = np.arange(n) / 16_000
    tone = (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)
    late_nan = np.stack([tone, tone], axis=1)
    late_nan[-5, 1] = np.nan  # in the last block only
    inverted = np.stack([tone, -tone], axis=1)
    inverted[: audio_io._CHECK_BLOCK // 50, 1] = tone[: audio_io._CHECK_BLOCK // 50]  # the mix: 26 dB down in all
    loud = tone.copy()
    loud[-1] = 30_000.0
    for name, samples in (("nan.wav", late_nan), ("inverted.wav", inverted), ("loud.wav", loud)):
        sf.write(tmp_path / name, samples, 16_000, subtype="FLOAT")
        with pytest.raises(InputError) as whole:
            load_audio(tmp_path / name)
        with pytest.raises(InputError) as blocks:
            check_audio_file(tmp_path / name)
        assert str(blocks.value) == str(whole.value)
    sf.write(tmp_path / "fine.wav", np.stack([tone, 0.5 * tone], axis=1), 16_000, subtype="FLOAT")
    assert check_audio_file(tmp_path / "fine.wav") == pytest.approx(n / 16_000)
