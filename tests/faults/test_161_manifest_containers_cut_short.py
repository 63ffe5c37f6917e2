"""Case 161: containers a manifest can name (no suffix a folder corpus lists), whose header declares their length,
cut at half their bytes (case 120 was AU, Wave64, RF64 and SPHERE): Amiga IFF 8SVX (``BODY``), Creative VOC (its
first sound block's length) and Psion WVE (its sample count). Each was read as the half it holds (8SVX and VOC
1.00 s, WVE 2.00 s of 4.00 s), with no error. Now their headers are read as the WAV's is (``audio/wav_header.py``)
when the corpus is read and at every decode. IRCAM and PAF declare no length (their samples run to the end of
the file); MATLAB 5 and MPC2K are checked since case 173 (``test_173_matlab_mpc_avr_cut_short.py``)."""

from __future__ import annotations

import io

import numpy as np
import pytest
import soundfile as sf

from asraudit.audio.io import check_audio_bytes, decode_audio_bytes

from conftest import assert_refused_as_cut_short

TONE = (0.3 * np.sin(np.arange(32_000) / 7.0)).astype(np.float32)


def _encoded(fmt: str, subtype: str, audio=TONE, rate=16_000) -> bytes:
    buffer = io.BytesIO()
    sf.write(buffer, audio, rate, format=fmt, subtype=subtype)
    return buffer.getvalue()


@pytest.mark.parametrize("fmt, subtype, rate, suffix, container, declared, present", [
    ("SVX", "PCM_16", 16_000, "8svx", "IFF 8SVX", 64000, 31950),
    ("VOC", "PCM_16", 16_000, "voc", "VOC", 64000, 31979),
    ("WVE", "ALAW", 8_000, "wve", "WVE", 32000, 15984),
])
def test_a_container_cut_short_is_refused_before_any_model_runs(tmp_path, cli, fmt, subtype, rate, suffix, container,
                                                              declared, present):
    data = _encoded(fmt, subtype, rate=rate)
    cut = data[: len(data) // 2]
    assert_refused_as_cut_short(tmp_path, cli, cut, f"cut.{suffix}", container, declared, present)


def test_whole_files_of_every_subtype_still_read():
    rng = np.random.default_rng(0)
    read = 0
    for fmt, rate in (("SVX", 16_000), ("VOC", 16_000), ("WVE", 8_000)):
        for subtype in sf.available_subtypes(fmt):
            for channels in (1, 2):
                audio = (0.2 * rng.standard_normal((16_001, channels))).astype(np.float32)
                try:
                    data = _encoded(fmt, subtype, audio, rate)
                except (sf.LibsndfileError, RuntimeError, ValueError):
                    continue  # a subtype or channel count this container's writer refuses
                if not data:
                    continue  # libsndfile's SVX and WVE writers leave a stereo file empty
                check_audio_bytes(data, name=f"x.{fmt}")
                decode_audio_bytes(data, name=f"x.{fmt}")
                read += 1
    assert read >= 9
