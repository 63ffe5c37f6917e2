"""Case 119: an Ogg file (Opus, Vorbis) cut short, damaged, or two files joined (case 102 was MP3, AIFF, FLAC).

An Ogg file declares no length: libsndfile takes it from the last page it finds. An Opus clip cut at 75% of its
bytes (a partial copy or download) was read as 1.97 s of its 3.76 s, one missing its last page as 2.97 s, one
with a page damaged in the middle (its CRC wrong) as 2.76 s, and two clips joined with ``cat`` (a chained Ogg
file) as the first alone, one whose page's capture pattern was damaged as 2.76 s: the missing words counted as the model's deletions, exit 0. A Vorbis file cut short
was refused, but as "audio is empty (no samples)" or "file is malformed", naming no cause. Now the pages are
walked (``audio/ogg_pages.py``: back to back, each whole and passing its CRC, every stream ending in a page with
the end-of-stream flag) when the corpus is read, before any model runs, and at every decode; good files of every
writer at hand pass (the committed clips, libsndfile's Opus and Vorbis, the report's encoder).
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from asraudit.audio.encode import opus_bytes
from asraudit.audio.io import check_audio_bytes, check_audio_file, decode_audio_bytes, load_audio
from asraudit.errors import InputError

DEMO = Path(__file__).resolve().parents[2] / "src" / "asraudit" / "demo" / "data"
CLIP = DEMO / "parliament_mini" / "audio" / "s001-flite-slt.ogg"  # Opus, 3.76 s, six pages
AGAIN = "; a partial copy or download? Copy it again"


def _pages(data: bytes) -> list[int]:
    return [m.start() for m in re.finditer(b"OggS", data)]


def _vorbis() -> bytes:
    buffer = io.BytesIO()
    sf.write(buffer, (0.3 * np.sin(np.arange(32_000) / 7.0)).astype(np.float32), 16_000, format="OGG",
             subtype="VORBIS")
    return buffer.getvalue()


def _cases() -> dict[str, tuple[bytes, str]]:
    opus = CLIP.read_bytes()
    pages = _pages(opus)
    middle = bytearray(opus)
    middle[pages[3] + 100] ^= 0xFF  # a byte of the fourth page's body (the base read 2.76 s of 3.76)
    vorbis = _vorbis()
    return {
        "cut.opus": (opus[: int(len(opus) * 0.75)],
                     f"the file is cut short: its last Ogg page (at byte 5078) declares 2355 bytes, the file holds "
                     f"1488 of them{AGAIN}"),
        "nolast.opus": (opus[: pages[-1]],
                        "the file is cut short: its Ogg stream has no last page (no page carries the end-of-stream "
                        f"flag), so pages are missing at its end{AGAIN}"),
        "crc.opus": (bytes(middle),
                     "the file is damaged: its Ogg page at byte 2687 fails its checksum (CRC), and a decoder skips "
                     f"such a page{AGAIN}"),
        "joined.opus": (opus + (DEMO / "parliament_mini" / "audio" / "s002-flite-slt.ogg").read_bytes(),
                        "the file holds two Ogg streams one after another (two files joined with cat?), and "
                        "libsndfile reads only the first: convert it to WAV or FLAC with a tool that reads every "
                        "stream (ffmpeg)"),
        "header.opus": (opus[:pages[3]] + b"X" + opus[pages[3] + 1:],  # the fourth page's "OggS" damaged
                        "the file is damaged: the bytes at offset 2687 of 8755 are not an Ogg page (its pages run "
                        f"back to back to its end){AGAIN}"),
        "cut.ogg": (vorbis[: len(vorbis) // 2],
                    "the file is cut short: its last Ogg page (at byte 58) declares 3388 bytes, the file holds "
                    f"{len(vorbis) // 2 - 58} of them{AGAIN}"),
        "nolast.ogg": (vorbis[: _pages(vorbis)[-1]],
                       "the file is cut short: its Ogg stream has no last page (no page carries the end-of-stream "
                       f"flag), so pages are missing at its end{AGAIN}"),
    }


def test_the_ogg_crc_is_the_formats_own():
    """Polynomial 0x04C11DB7, initial value 0, no reflection: the bitwise definition on a few inputs."""
    from asraudit.audio.ogg_pages import ogg_crc

    def bitwise(data: bytes) -> int:
        crc = 0
        for byte in data:
            crc ^= byte << 24
            for _ in range(8):
                crc = ((crc << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if crc & 0x80000000 else (crc << 1) & 0xFFFFFFFF
        return crc

    rng = np.random.default_rng(0)
    for data in (b"", b"\x00", b"OggS", rng.bytes(1000)):
        assert ogg_crc(data) == bitwise(data)


def test_damaged_ogg_files_are_refused_before_any_model_runs(tmp_path, cli):
    (tmp_path / "good.opus").write_bytes(CLIP.read_bytes())
    for name, (data, message) in _cases().items():
        (tmp_path / name).write_bytes(data)
        manifest = tmp_path / f"{name}.jsonl"
        manifest.write_text(json.dumps({"audio_filepath": "good.opus", "text": "a"}) + "\n"
                            + json.dumps({"audio_filepath": name, "text": "a"}) + "\n", encoding="utf-8")
        out = tmp_path / f"out-{name}"
        ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", manifest, "--out", out, "--no-progress")
        assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {manifest}, row 2: audio file "
                                                   f"{tmp_path / name}: {message}"]), name
        assert not (out / "pocketsphinx.jsonl").exists()
        for check in (check_audio_bytes, decode_audio_bytes):  # a dataset row's bytes
            with pytest.raises(InputError) as err:
                check(data, name=name)
            assert str(err.value) == f"{name}: {message}"
        with pytest.raises(InputError) as err:
            load_audio(tmp_path / name)  # every decode, as the MP3's and the WAV's
        assert str(err.value) == f"{tmp_path / name}: {message}"


def test_every_committed_clip_and_the_writers_at_hand_pass():
    clips = sorted(DEMO.rglob("*.ogg")) + sorted(DEMO.rglob("*.opus"))
    assert len(clips) > 800
    for clip in clips:
        assert check_audio_file(clip) > 0
    rng = np.random.default_rng(1)
    for rate, subtype in ((8_000, "OPUS"), (16_000, "OPUS"), (48_000, "OPUS"), (16_000, "VORBIS"),
                          (44_100, "VORBIS")):
        for seconds in (0.05, 1.0, 12.5):
            for channels in (1, 2):
                audio = (0.2 * rng.standard_normal((int(rate * seconds), channels))).astype(np.float32)
                buffer = io.BytesIO()
                sf.write(buffer, audio, rate, format="OGG", subtype=subtype)
                data = buffer.getvalue()
                check_audio_bytes(data, name="w.ogg")
                assert len(decode_audio_bytes(data, name="w.ogg")) == pytest.approx(16_000 * seconds, abs=2)
    tagged = CLIP.read_bytes() + b"TAG" + bytes(125)  # bytes after the stream ended (an ID3v1 tag): nothing lost
    assert len(decode_audio_bytes(tagged, name="t.opus")) == len(load_audio(CLIP))
    speech = load_audio(CLIP)
    data = opus_bytes(speech)  # the report's encoder
    check_audio_bytes(data, name="r.ogg")
    assert len(decode_audio_bytes(data, name="r.ogg")) == len(speech)
