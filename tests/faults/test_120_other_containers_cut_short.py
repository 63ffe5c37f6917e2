"""Case 120: the other containers a folder corpus reads, whose header declares their length, cut short (case 73
was the WAV, case 102 the AIFF, MP3 and FLAC): Sun/NeXT AU (``.au``, ``.snd``), Sony Wave64 (``.w64``), RF64
(``.rf64``, a WAV over 4 GB) and NIST SPHERE (``.sph``: TIMIT, Switchboard).

Each, cut at half its bytes (a partial copy or download), was read as the half it holds (AU 1.00 s, Wave64 and
RF64 1.00 s, SPHERE 0.98 s of 2.00 s), with no error: the missing words counted as the model's deletions. Now
their headers are read as the WAV's is (``audio/wav_header.py``), when the corpus is read and at every decode.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
import soundfile as sf

from asraudit.audio.io import check_audio_bytes, decode_audio_bytes

from conftest import assert_refused_as_cut_short

TONE = (0.3 * np.sin(np.arange(32_000) / 7.0)).astype(np.float32)  # 2 s at 16 kHz


def _encoded(fmt: str, subtype: str = "PCM_16", audio=TONE) -> bytes:
    buffer = io.BytesIO()
    sf.write(buffer, audio, 16_000, format=fmt, subtype=subtype)
    return buffer.getvalue()


@pytest.mark.parametrize("fmt, suffix, container, present", [
    ("AU", "au", "AU", 31988),
    ("W64", "w64", "Wave64", 31948),
    ("RF64", "rf64", "RF64", 31948),
    ("NIST", "sph", "NIST SPHERE", 31488),
])
def test_a_container_cut_short_is_refused_before_any_model_runs(tmp_path, cli, fmt, suffix, container, present):
    data = _encoded(fmt)
    cut = data[: len(data) // 2]
    assert_refused_as_cut_short(tmp_path, cli, cut, f"cut.{suffix}", container, 64000, present)


def test_whole_files_of_every_subtype_still_read():
    rng = np.random.default_rng(0)
    for fmt in ("AU", "W64", "RF64", "NIST"):
        for subtype in sf.available_subtypes(fmt):
            for channels in (1, 2):
                audio = (0.2 * rng.standard_normal((16_001, channels))).astype(np.float32)
                try:
                    data = _encoded(fmt, subtype, audio)
                except (sf.LibsndfileError, RuntimeError, ValueError):
                    continue  # a subtype this container's writer refuses
                check_audio_bytes(data, name=f"x.{fmt}")
                assert len(decode_audio_bytes(data, name=f"x.{fmt}")) >= 16_001  # ADPCM pads its last block
    au = bytearray(_encoded("AU"))
    au[8:12] = b"\xff\xff\xff\xff"  # a streamed AU: its size unknown, read to the end
    assert len(decode_audio_bytes(bytes(au), name="s.au")) == 32_000
