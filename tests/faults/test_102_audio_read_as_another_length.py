"""Case 102: audio that libsndfile reads as another length than the file holds (case 73 was the WAV).

libsndfile (mpg123) takes an MP3's length from its Xing/Info header, or
estimates it from the first frame's bitrate when there is none, and reads
exactly that many samples, without a word:

- an MP3 cut short (a partial download) kept its Xing header's full length
  in the header and was read as the half it holds, its missing words counted
  as the model's deletions;
- two MP3 files joined with ``cat`` were read as the first alone;
- a VBR MP3 without a Xing header was read as the few seconds the first
  frame's bitrate gives.

The frames' headers say what the file holds; the corpus check (before any
model runs) and every decode compare that with what libsndfile would read.

An AIFF cut short was read as the half it holds, as the WAV of case 73 was.
A FLAC cut short passed the corpus check and stopped the run when its turn
to be decoded came ("flac decoder lost sync"), after the models had run on
the clips before it; a FLAC written to a pipe (its header gives no length)
the same, with "array is too big", and its duration read as 192 trillion s.
"""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest
import soundfile as sf

from asraudit.audio.io import check_audio_bytes, load_audio
from asraudit.errors import InputError

needs_mp3 = pytest.mark.skipif("MP3" not in sf.available_formats(), reason="libsndfile writes no MP3 here")

# MPEG-1 Layer III bitrates (kbit/s) by the header's index.
_KBPS = (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320)


def _mp3(seconds: float = 6.0) -> bytes:
    """A VBR MP3 at 44.1 kHz: a second of near-silence (low-bitrate frames first), then a loud noisy tone."""
    rng = np.random.default_rng(0)
    t = np.arange(int(seconds * 44_100)) / 44_100
    audio = 0.5 * np.sin(2 * np.pi * 440 * t) + 0.3 * rng.normal(size=t.size)
    audio[:44_100] *= 1e-3
    buffer = io.BytesIO()
    sf.write(buffer, np.clip(audio, -1, 1).astype(np.float32), 44_100, format="MP3", subtype="MPEG_LAYER_III",
             bitrate_mode="VARIABLE")
    return buffer.getvalue()


def _without_xing(data: bytes) -> bytes:
    """``data`` less its first frame, the Xing/Info header frame (MPEG-1 Layer III at 44.1 kHz)."""
    start = data.index(b"\xff")
    assert b"Xing" in data[start:start + 64] or b"Info" in data[start:start + 64]
    header = data[start:start + 4]
    length = 144 * _KBPS[header[2] >> 4] * 1000 // 44_100 + ((header[2] >> 1) & 1)
    return data[:start] + data[start + length:]


NUMBER = r"[0-9]+\.[0-9]{2}"


@needs_mp3
def test_mp3s_read_short_are_refused_before_any_model_runs(tmp_path, cli):
    whole = _mp3()
    files = {"whole.mp3": whole, "tagged.wav": b"ID3\x03\x00\x00\x00\x00\x00\x0a" + b"\x00" * 10 + whole,
             "cut.mp3": whole[: len(whole) // 2], "joined.mp3": whole + whole, "noxing.mp3": _without_xing(whole)}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    assert abs(len(load_audio(tmp_path / "whole.mp3")) / 16_000 - 6.0) < 0.1
    assert abs(len(load_audio(tmp_path / "tagged.wav")) / 16_000 - 6.0) < 0.1  # an ID3 tag, a lying suffix: fine

    for name, pattern in (
        ("cut.mp3", rf"the file is cut short: its MP3 header declares {NUMBER} s, its frames hold {NUMBER} s "
                    r"\([0-9]+%\); a partial copy or download\? Copy it again"),
        ("joined.mp3", rf"its MP3 frames hold {NUMBER} s, but libsndfile would read {NUMBER} s, the length its "
                       r"first frames give \(two MP3 files joined, or a VBR MP3 without a Xing header\?\): convert "
                       r"it to WAV or FLAC with a tool that reads every frame \(ffmpeg\)"),
        ("noxing.mp3", rf"its MP3 frames hold {NUMBER} s, but libsndfile would read {NUMBER} s, .*"),
    ):
        manifest = tmp_path / f"{name}.jsonl"
        manifest.write_text(json.dumps({"audio_filepath": "whole.mp3", "text": "a tone"}) + "\n"
                            + json.dumps({"audio_filepath": name, "text": "a tone"}) + "\n", encoding="utf-8")
        ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", manifest, "--out", tmp_path / f"out-{name}",
                  "--no-progress")
        assert ran.code == 2 and len(ran.error_lines) == 1, (name, ran.err)
        prefix = f"asraudit: error: {manifest}, row 2: audio file {tmp_path / name}: "
        assert ran.error_lines[0].startswith(prefix)
        assert re.fullmatch(pattern, ran.error_lines[0][len(prefix):]), ran.error_lines[0]
        assert not (tmp_path / f"out-{name}" / "pocketsphinx.jsonl").exists()  # refused before any model ran
        with pytest.raises(InputError, match=pattern.split(":")[0].split(r"\(")[0]):
            load_audio(tmp_path / name)
        with pytest.raises(InputError):
            check_audio_bytes(files[name], name=name)
    held = re.findall(NUMBER, cli("transcribe", "--model", "pocketsphinx", "--corpus", tmp_path / "joined.mp3.jsonl",
                                  "--out", tmp_path / "j2", "--no-progress").error_lines[0])
    assert abs(float(held[0]) - 12.0) < 0.2 and abs(float(held[1]) - 6.0) < 0.2  # the second file was never read


def _manifest_of(tmp_path, name: str, data: bytes):
    sf.write(tmp_path / "good.wav", np.zeros(16_000, np.float32) + 0.01, 16_000, subtype="PCM_16")
    (tmp_path / name).write_bytes(data)
    manifest = tmp_path / f"{name}.jsonl"
    manifest.write_text(json.dumps({"audio_filepath": "good.wav", "text": "a"}) + "\n"
                        + json.dumps({"audio_filepath": name, "text": "a"}) + "\n", encoding="utf-8")
    return manifest


def test_aiff_and_flac_cut_short_are_refused_before_any_model_runs(tmp_path, cli):
    tone = (0.3 * np.sin(np.arange(32_000) / 7.0)).astype(np.float32)
    encoded = {}
    for fmt in ("AIFF", "FLAC"):
        buffer = io.BytesIO()
        sf.write(buffer, tone, 16_000, format=fmt, subtype="PCM_16")
        encoded[fmt] = buffer.getvalue()
    streamed = bytearray(encoded["FLAC"])
    streamed[8 + 13] &= 0xF0  # STREAMINFO's 36-bit total sample count set to 0, as a FLAC written to a pipe
    streamed[8 + 14 : 8 + 18] = b"\x00\x00\x00\x00"
    cases = {
        "cut.aiff": (encoded["AIFF"][: len(encoded["AIFF"]) // 2],
                     "the file is cut short: its AIFF header declares 64000 bytes of samples, the file holds 31973 "
                     "(50%); a partial copy or download? Copy it again"),
        "cut.flac": (encoded["FLAC"][: len(encoded["FLAC"]) // 2],
                     "the file is cut short or damaged: its FLAC header declares 2.00 s, and its last samples cannot "
                     "be read (Internal psf_fseek() failed.); a partial copy or download? Copy it again"),
        "stream.flac": (bytes(streamed),
                        "its FLAC header does not give the number of samples (a stream written to a pipe?), and "
                        "libsndfile cannot read such a file whole: re-encode it from a file (or to WAV)"),
    }
    for name, (data, message) in cases.items():
        manifest = _manifest_of(tmp_path, name, data)
        ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", manifest, "--out", tmp_path / f"out-{name}",
                  "--no-progress")
        assert ran.error_lines == [f"asraudit: error: {manifest}, row 2: audio file {tmp_path / name}: {message}"]
        assert ran.code == 2 and not (tmp_path / f"out-{name}" / "pocketsphinx.jsonl").exists()
        with pytest.raises(InputError, match=re.escape(message)):
            check_audio_bytes(data, name=name)
    with pytest.raises(InputError, match="the file is cut short: its AIFF header"):
        load_audio(tmp_path / "cut.aiff")  # every decode, as the WAV's
    whole = tmp_path / "whole.aiff"
    whole.write_bytes(encoded["AIFF"])
    assert len(load_audio(whole)) == 32_000


def test_a_raw_file_that_is_a_container_is_refused(tmp_path, cli):
    """``.raw``/``.pcm`` is read as header-less 16-bit 16 kHz mono: an 8-kHz WAV named ``a.raw`` was a clip of half
    its length at twice its speed (whisper-tiny.en: "Okay, okay, okay."), an MP3 or FLAC noise, exit 0."""
    tone = (0.3 * np.sin(np.arange(16_000) / 7.0)).astype(np.float32)
    for name, fmt, container, suffix in (("a.raw", "WAV", "WAV", ".wav"), ("b.pcm", "FLAC", "FLAC", ".flac"),
                                         ("c.raw", "AIFF", "AIFF", ".aiff"), ("d.raw", "OGG", "Ogg", ".ogg")):
        buffer = io.BytesIO()
        sf.write(buffer, tone, 8_000, format=fmt)
        data = buffer.getvalue()
        data += b"\0" * (len(data) % 2)  # a whole number of 16-bit samples: the size check alone let it through
        (tmp_path / name).write_bytes(data)
        manifest = tmp_path / f"{name}.jsonl"
        manifest.write_text(json.dumps({"audio_filepath": name, "text": "a"}) + "\n", encoding="utf-8")
        message = (f"the file is {container} audio (its first bytes say so), not the header-less PCM its "
                   f"{name[1:]} suffix stands for: rename it {suffix}")
        ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", manifest, "--out", tmp_path / f"out-{name}",
                  "--no-progress")
        assert ran.error_lines == [f"asraudit: error: {manifest}, row 1: audio file {tmp_path / name}: {message}"]
        assert ran.code == 2
        with pytest.raises(InputError, match=re.escape(message)):
            load_audio(tmp_path / name)
    pcm = (tone * 32767).astype("<i2")
    pcm[:2] = [-1025, -15216]  # FF FB 90 C4: an MPEG frame header, but no second one after it: samples
    (tmp_path / "plain.raw").write_bytes(pcm.tobytes())
    assert len(load_audio(tmp_path / "plain.raw")) == 16_000  # header-less PCM reads as before


def test_a_rate_no_recording_has_and_a_clip_shorter_than_one_sample_at_16k_are_refused(tmp_path, cli):
    """A header claiming 1.6 MHz made a 2-s clip 0.02 s long (2**31 - 1 Hz: no samples at all), and one sample at
    44.1 kHz resampled to none: the models were given an empty array ("you"), exit 0."""
    import struct

    buffer = io.BytesIO()
    sf.write(buffer, (0.3 * np.sin(np.arange(32_000) / 7.0)).astype(np.float32), 16_000, format="WAV",
             subtype="PCM_16")
    data = bytearray(buffer.getvalue())
    at = data.index(b"fmt ") + 12
    data[at : at + 8] = struct.pack("<II", 1_600_000, 3_200_000)  # the rate and bytes per second
    (tmp_path / "fast.wav").write_bytes(bytes(data))
    sf.write(tmp_path / "one.wav", np.array([0.5], np.float32), 44_100, subtype="PCM_16")
    for name, message in (
        ("fast.wav", "sample rate 1600000 Hz is above 768000 Hz, the highest rate audio is recorded at (a broken "
                     "header?): fix the rate its header gives"),
        ("one.wav", "audio is empty at 16 kHz (1 sample(s) at 44100 Hz, less than one at 16 kHz)"),
    ):
        manifest = tmp_path / f"{name}.jsonl"
        manifest.write_text(json.dumps({"audio_filepath": name, "text": "a"}) + "\n", encoding="utf-8")
        ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", manifest, "--out", tmp_path / f"out-{name}",
                  "--no-progress")
        assert ran.error_lines == [f"asraudit: error: {manifest}, row 1: audio file {tmp_path / name}: {message}"]
        assert ran.code == 2 and not (tmp_path / f"out-{name}" / "pocketsphinx.jsonl").exists()
        with pytest.raises(InputError, match=re.escape(message)):
            load_audio(tmp_path / name)
