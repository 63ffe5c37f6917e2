"""Case 171: an MP3 damaged in the middle: bytes of its stream overwritten (a bad sector, a corrupted copy: zeros
or garbage over a few hundred bytes, or one changed byte in a frame header).

libsndfile's decoder (mpg123) skips what is not a frame and resynchronises at the next header, with no error: the
file was read 25 ms (a frame or two) short of what it held, the audio of the skipped frames missing, and the
length check of case 102 passed (the frame walker stepped over junk between frames on purpose).  A whole MP3 has
nothing between its frames but tags (ID3v2 at the start, ID3v1, APE and Lyrics3 at the end, and both between
files joined with ``cat``); bytes that are neither, with frames after them, are now refused as damage, when the
corpus is read and at every decode, naming the file and the byte where the frames lose sync.
"""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest
import soundfile as sf

from asraudit.audio.io import check_audio_bytes, check_audio_file, load_audio
from asraudit.errors import InputError

pytestmark = pytest.mark.skipif("MP3" not in sf.available_formats(), reason="libsndfile writes no MP3 here")


def _mp3(seconds: float = 4.0, mode: str = "CONSTANT") -> bytes:
    """An MP3 as libsndfile's LAME writes it (an Info/Xing header frame first), of a noisy tone at 44.1 kHz."""
    rng = np.random.default_rng(0)
    t = np.arange(int(seconds * 44_100)) / 44_100
    audio = np.clip(0.5 * np.sin(2 * np.pi * 440 * t) + 0.1 * rng.normal(size=t.size), -1, 1)
    buffer = io.BytesIO()
    sf.write(buffer, audio.astype(np.float32), 44_100, format="MP3", subtype="MPEG_LAYER_III", bitrate_mode=mode)
    data = buffer.getvalue()
    start = data.index(b"\xff")
    assert b"Xing" in data[start:start + 64] or b"Info" in data[start:start + 64]
    return data


def _id3v2(payload: bytes) -> bytes:
    """An ID3v2.3 tag of one private frame holding ``payload`` (bytes 0xFF and MPEG-like sync words included)."""
    frame = b"PRIV" + len(payload).to_bytes(4, "big") + b"\x00\x00" + payload
    size = len(frame)
    synchsafe = bytes((size >> shift) & 0x7F for shift in (21, 14, 7, 0))
    return b"ID3\x03\x00\x00" + synchsafe + frame


def _tagged(data: bytes) -> bytes:
    """``data`` with an ID3v2 tag before it, and an APEv2 tag (header, one item, footer) and an ID3v1 tag after."""
    item = b"\x05\x00\x00\x00\x00\x00\x00\x00Title\x00x\xff\xfbx\xff"
    def ape(flags: int) -> bytes:
        return b"APETAGEX" + (2000).to_bytes(4, "little") + (len(item) + 32).to_bytes(4, "little") + \
            (1).to_bytes(4, "little") + flags.to_bytes(4, "little") + bytes(8)
    id3v1 = b"TAG" + b"Title".ljust(30, b"\x00") + b"Artist".ljust(30, b"\x00") + bytes(30 + 4 + 30) + b"\xff"
    assert len(id3v1) == 128
    return _id3v2(bytes(range(256)) * 4 + b"\xff\xfb\x90\x64" * 8) + data + ape(0xA0000000) + item + \
        ape(0x80000000) + id3v1


def _damaged(data: bytes, junk: bytes | None) -> bytes:
    """``data`` with ``junk`` written over its middle, or (None) one byte of a frame header there changed."""
    out = bytearray(data)
    middle = len(data) // 2
    if junk is None:
        header = data.index(b"\xff\xfb", middle)
        out[header + 1] = 0x00
    else:
        out[middle:middle + len(junk)] = junk
    return bytes(out)


DAMAGED = (r"the file is damaged: its MP3 frames lose sync at byte [0-9]+ \(after [0-9.]+ s of "
           r"[0-9.]+ s\): [0-9]+ bytes are no MPEG frame, and a decoder skips them and the audio they held, reading "
           r"the clip short; a corrupted copy\? Copy it again")


def test_mp3s_damaged_in_the_middle_are_refused_before_any_model_runs(tmp_path, cli):
    whole = _tagged(_mp3())
    rng = np.random.default_rng(1)
    files = {"whole.mp3": whole, "vbr.mp3": _tagged(_mp3(mode="VARIABLE")),
             "zeros.mp3": _damaged(whole, bytes(400)),
             "garbage.mp3": _damaged(whole, rng.integers(0, 256, 400, dtype=np.uint8).tobytes()),
             "header.mp3": _damaged(whole, None)}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    for name in ("whole.mp3", "vbr.mp3"):  # tags at both ends, an Info/Xing header: whole files read as before
        assert abs(check_audio_file(tmp_path / name) - 4.0) < 0.1
        assert abs(len(load_audio(tmp_path / name)) / 16_000 - 4.0) < 0.1
    for name in ("zeros.mp3", "garbage.mp3", "header.mp3"):
        with pytest.raises(InputError) as caught:  # the header check, when the corpus is read
            check_audio_file(tmp_path / name)
        assert re.fullmatch(re.escape(f"{tmp_path / name}: ") + DAMAGED, str(caught.value)), caught.value
        with pytest.raises(InputError):  # every decode
            load_audio(tmp_path / name)
        with pytest.raises(InputError) as caught:  # a dataset row's bytes
            check_audio_bytes(files[name], name=name)
        assert "the file is damaged: its MP3 frames lose sync" in str(caught.value)

    rows = [{"audio_filepath": name, "text": "a tone"} for name in ("whole.mp3", "zeros.mp3")]
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    ran = cli("transcribe", "--corpus", manifest, "--model", "pocketsphinx", "--out", tmp_path / "out",
              "--no-progress")
    assert ran.code == 2 and len(ran.error_lines) == 1
    assert re.fullmatch("asraudit: error: " + re.escape(f"{manifest}, row 2: audio file {tmp_path / 'zeros.mp3'}: ") + DAMAGED,
                        ran.error_lines[0]), ran.error_lines
    assert not (tmp_path / "out").exists()


def test_tags_between_two_joined_files_are_no_damage(tmp_path):
    """Two tagged files joined with ``cat``: the first's APE and ID3v1 tags and the second's ID3v2 tag lie between
    frames, and the file is still refused as joined (case 102), not called damaged."""
    one = _tagged(_mp3())
    (tmp_path / "joined.mp3").write_bytes(one + one)
    with pytest.raises(InputError) as caught:
        check_audio_file(tmp_path / "joined.mp3")
    assert "but libsndfile would read" in str(caught.value) and "damaged" not in str(caught.value)
