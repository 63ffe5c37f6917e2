"""Case 73: a WAV file cut short inside its samples (a partial copy or download).

libsndfile read it as the shorter clip it found: the clip was transcribed
without its missing part, and the words in it counted as the model's
deletions.  Its header declares the ``data`` chunk's size, so the corpus
check (before any model runs) and every decode compare that with what the
file holds; a streamed WAV's placeholder size, RF64 and trailing chunks after
the samples are left as they were.
"""

from __future__ import annotations

import io
import json
import struct

import numpy as np
import pytest
import soundfile as sf

from asraudit.audio.io import check_audio_bytes, decode_audio_bytes, load_audio
from asraudit.data.corpus import load_manifest
from asraudit.errors import InputError


def _wav(extra_chunk: bytes = b"") -> bytes:
    """One second of 16-bit mono at 16 kHz, with ``extra_chunk`` between ``fmt `` and ``data``."""
    buffer = io.BytesIO()
    sf.write(buffer, np.sin(np.arange(16_000) / 7.0).astype(np.float32) * 0.3, 16_000, format="WAV",
             subtype="PCM_16")
    data = buffer.getvalue()
    at = data.index(b"data")
    data = data[:at] + extra_chunk + data[at:]
    return data[:4] + struct.pack("<I", len(data) - 8) + data[8:]


CUT = "the file is cut short: its WAV header declares 32000 bytes of samples, the file holds 16000 (50%); " \
      "a partial copy or download? Copy it again"


def test_a_cut_wav_is_refused_when_the_manifest_is_read(tmp_path):
    (tmp_path / "a.wav").write_bytes(_wav()[:-16_000])
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"audio_filepath": "a.wav", "text": "x"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_manifest(manifest)
    assert str(caught.value).endswith(f"m.jsonl, row 1: audio file {tmp_path / 'a.wav'}: {CUT}")


def test_a_cut_wav_is_refused_when_decoded(tmp_path):
    path = tmp_path / "a.wav"
    path.write_bytes(_wav()[:-16_000])
    with pytest.raises(InputError, match="cut short"):
        load_audio(path)
    with pytest.raises(InputError) as caught:
        decode_audio_bytes(_wav()[:-16_000], name="clip 3")
    assert str(caught.value) == f"clip 3: {CUT}"
    with pytest.raises(InputError, match="cut short"):
        check_audio_bytes(_wav()[:-16_000], name="clip 3")


@pytest.mark.parametrize("extra", [b"", b"LIST" + struct.pack("<I", 5) + b"INFOx\x00"], ids=["plain", "odd-chunk"])
def test_a_whole_wav_reads_as_before(tmp_path, extra):
    data = _wav(extra)
    path = tmp_path / "a.wav"
    path.write_bytes(data + b"id3 " + struct.pack("<I", 4) + b"tags")  # a trailing chunk after the samples
    assert len(load_audio(path)) == 16_000
    assert len(decode_audio_bytes(data)) == 16_000
    with pytest.raises(InputError, match="cut short"):  # the odd chunk's pad byte is walked over, not read as data
        decode_audio_bytes(data[:-2])


def test_a_streamed_wav_reads_to_the_end_of_the_file(tmp_path):
    data = bytearray(_wav())
    at = data.index(b"data")
    data[at + 4:at + 8] = struct.pack("<I", 0xFFFFFFFF)  # a writer that did not know the length
    path = tmp_path / "a.wav"
    path.write_bytes(bytes(data))
    assert len(load_audio(path)) == 16_000
