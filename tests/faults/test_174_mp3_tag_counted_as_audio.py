"""Case 174: a whole CBR MP3 without a Xing/Info header (older encoders, ``lame -t``) that carries a large ID3v2 tag
(cover art, as taggers embed it: 64 KB here, commonly more).

libsndfile (mpg123) estimates the length of an MP3 without a Xing header from the file's size and its bitrate,
counting the tag's bytes as audio: a 4.05-s file at 160 kbit/s with a 64-KB tag was announced as 7.26 s.  Case
102's check compared that with what the frames hold and refused the whole file as "cut short: its MP3 header
declares 7.26 s, its frames hold 4.05 s (56%)"; with a 4-KB tag (within that check's tolerance) the file was
read, and its duration (prediction files, RTFx, a manifest's ``duration`` check) was the estimate, 4.25 s, not
the audio.  The
decoder reads every frame either way.  Now a file with no Xing header, whose frames hold less than the estimate,
is read, and its length is the frames' (measured on 274 LAME and libsndfile MP3s, 23 of them with such tags:
every length within 10 ms of the decoded samples); a file whose Xing header declares more than its frames hold
is still refused as cut short.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
import soundfile as sf

from asraudit.audio.io import audio_duration, check_audio_bytes, check_audio_file, load_audio

pytestmark = pytest.mark.skipif("MP3" not in sf.available_formats(), reason="libsndfile writes no MP3 here")

# MPEG-1 Layer III bitrates (kbit/s) by the header's index.
_KBPS = (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320)


def _cbr_without_xing(seconds: float = 4.0) -> bytes:
    """A CBR MP3 at 44.1 kHz as an encoder that writes no Info header leaves it."""
    rng = np.random.default_rng(0)
    t = np.arange(int(seconds * 44_100)) / 44_100
    audio = np.clip(0.5 * np.sin(2 * np.pi * 440 * t) + 0.1 * rng.normal(size=t.size), -1, 1).astype(np.float32)
    buffer = io.BytesIO()
    sf.write(buffer, audio, 44_100, format="MP3", subtype="MPEG_LAYER_III", bitrate_mode="CONSTANT",
             compression_level=0.5)  # 160 kbit/s in every frame (at the default level, libsndfile varies it)
    data = buffer.getvalue()
    start = data.index(b"\xff")
    assert b"Info" in data[start:start + 64] or b"Xing" in data[start:start + 64]
    header = data[start:start + 4]
    length = 144 * _KBPS[header[2] >> 4] * 1000 // 44_100 + ((header[2] >> 1) & 1)
    return data[:start] + data[start + length:]


def _tagged(data: bytes, art: int) -> bytes:
    """``data`` after an ID3v2.3 tag holding an ``APIC`` frame of ``art`` bytes (a picture: any bytes)."""
    payload = b"\x00image/jpeg\x00\x03\x00" + np.random.default_rng(1).integers(0, 256, art, np.uint8).tobytes()
    frame = b"APIC" + len(payload).to_bytes(4, "big") + b"\x00\x00" + payload
    synchsafe = bytes((len(frame) >> shift) & 0x7F for shift in (21, 14, 7, 0))
    return b"ID3\x03\x00\x00" + synchsafe + frame + data


@pytest.mark.parametrize("art", [64_000, 4_000])
def test_a_whole_mp3_with_a_large_tag_is_read_at_its_length(tmp_path, cli, art):
    data = _tagged(_cbr_without_xing(), art)
    path = tmp_path / "tagged.mp3"
    path.write_bytes(data)
    assert sf.info(str(path)).duration > 4.1  # libsndfile's estimate counts the tag
    decoded = len(load_audio(path)) / 16_000
    assert abs(decoded - 4.0) < 0.1  # ... and the decoder reads the frames
    for seconds in (check_audio_file(path), check_audio_bytes(data, name="tagged.mp3"), audio_duration(path)):
        assert abs(seconds - decoded) < 0.01

    manifest = tmp_path / "m.jsonl"  # its duration, as a tool that decoded it wrote it, agrees
    manifest.write_text(json.dumps({"audio_filepath": "tagged.mp3", "text": "a tone", "duration": round(decoded, 3)})
                        + "\n", encoding="utf-8")
    ran = cli("transcribe", "--corpus", manifest, "--model", "pocketsphinx", "--out", tmp_path / "out",
              "--no-progress")
    assert ran.code == 0, ran.err
    rows = [json.loads(line) for line in (tmp_path / "out" / "pocketsphinx.jsonl").read_text().splitlines()]
    assert [r["audio_filepath"] for r in rows] == ["tagged.mp3"] and abs(rows[0]["duration"] - decoded) < 0.01
