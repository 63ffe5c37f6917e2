"""Case 151: a FLAC file damaged in the middle (bytes of one frame changed: a bad sector, a corrupted copy).

Its header and its last sample read well (the check of a FLAC cut short, case 102, seeks to the end without
decoding the frames between), so the corpus check passed, and the decode failed only when the run reached the
clip, ``cannot decode audio (Error : unknown error in flac decoder.)``, after the models had run on the clips
before it.  Each frame carries a CRC that libFLAC checks as it decodes: every frame is now decoded when the corpus
is read, and the damaged file is named before any model runs.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
import soundfile as sf

from asraudit.audio.io import check_audio_bytes, check_audio_file
from asraudit.errors import InputError

LINE = ("the file is damaged: a FLAC frame after 4.10 s of its 10.00 s cannot be decoded (Error : unknown error in "
        "flac decoder.); a corrupted copy? Copy it again")


def _damaged_flac(path):
    rng = np.random.default_rng(0)
    t = np.arange(160_000) / 16_000
    sf.write(path, (0.3 * np.sin(2 * np.pi * 220 * t) + 0.05 * rng.standard_normal(t.size)).astype(np.float32),
             16_000)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x5A  # one byte of a frame in the middle
    path.write_bytes(bytes(data))
    with sf.SoundFile(path) as f:  # what the check before this case read: the header and the last sample
        assert f.frames == 160_000
        f.seek(f.frames - 1)
        assert len(f.read(1)) == 1
    return path


def test_the_damaged_frame_is_found_when_the_corpus_is_read(tmp_path, cli):
    bad = _damaged_flac(tmp_path / "b.flac")
    sf.write(tmp_path / "a.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(json.dumps({"audio_filepath": name, "text": "x"}) + "\n" for name in ("a.wav", "b.flac")),
                        encoding="utf-8")
    ran = cli("transcribe", "--corpus", manifest, "--model", "pocketsphinx", "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {manifest}, row 2: audio file {bad}: {LINE}"]
    assert not (tmp_path / "out").exists()


def test_a_dataset_rows_bytes_are_checked_alike(tmp_path):
    data = _damaged_flac(tmp_path / "b.flac").read_bytes()
    with pytest.raises(InputError) as err:
        check_audio_bytes(data, name="row 3")
    assert str(err.value) == f"row 3: {LINE}"
    buffer = io.BytesIO()
    sf.write(buffer, np.zeros(32_000, dtype=np.float32), 16_000, format="FLAC")
    assert check_audio_bytes(buffer.getvalue()) == 2.0  # a sound one passes


def test_a_sound_flac_passes(tmp_path):
    sf.write(tmp_path / "a.flac", np.zeros(48_000, dtype=np.float32), 16_000)
    assert check_audio_file(tmp_path / "a.flac") == 3.0
