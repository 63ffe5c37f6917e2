"""Case 173: the containers case 161 left unchecked whose header does declare their length, cut at half their bytes:
MATLAB 5 and MATLAB 4 (libsndfile's ``MAT5``/``MAT4``: a ``samplerate`` and a ``wavedata`` matrix), Akai MPC2000
samples (``MPC2K``) and Atari AVR (``2BIT``).  Each was read as the half it holds, with no error (libsndfile takes
their length from the file's size): the missing words counted as the model's deletions.

MATLAB 5's matrix element declares 8 bytes more than libsndfile writes, but the data element inside it gives the
samples' size exactly; MATLAB 4's matrix header gives rows, columns and precision; MPC2000's header gives the
sample's end point (within its data, on a sampler); AVR's the sample length (for stereo, the smaller of its two
readings is compared).  IRCAM and Ensoniq PAF declare no length and stay unchecked.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
import soundfile as sf

from asraudit.audio.io import check_audio_bytes, decode_audio_bytes
from asraudit.errors import InputError

from conftest import assert_refused_as_cut_short

TONE = (0.3 * np.sin(np.arange(32_000) / 7.0)).astype(np.float32)


def _encoded(fmt: str, subtype: str, audio=TONE, endian: str = "FILE") -> bytes:
    buffer = io.BytesIO()
    sf.write(buffer, audio, 16_000, format=fmt, subtype=subtype, endian=endian)
    return buffer.getvalue()


@pytest.mark.parametrize("fmt, subtype, container, present", [
    ("MAT5", "PCM_16", "MATLAB 5", 31868),
    ("MAT4", "PCM_16", "MATLAB 4", 31966),
    ("MPC2K", "PCM_16", "MPC2000", 31979),
    ("AVR", "PCM_16", "AVR", 31936),
])
def test_a_container_cut_short_is_refused_before_any_model_runs(tmp_path, cli, fmt, subtype, container, present):
    data = _encoded(fmt, subtype)
    cut = data[: len(data) // 2]
    assert_refused_as_cut_short(tmp_path, cli, cut, f"cut.{fmt.lower()}", container, 64000, present)
    with pytest.raises(InputError):
        check_audio_bytes(data[:-1], name=f"cut.{fmt.lower()}")  # one byte short is short too


def test_whole_files_of_every_subtype_channel_count_and_byte_order_still_read():
    rng = np.random.default_rng(0)
    read = 0
    for fmt in ("MAT5", "MAT4", "MPC2K", "AVR", "IRCAM", "PAF"):
        for subtype in sf.available_subtypes(fmt):
            for channels in (1, 2):
                for endian in ("LITTLE", "BIG"):
                    audio = (0.2 * rng.standard_normal((16_001, channels))).astype(np.float32)
                    try:
                        data = _encoded(fmt, subtype, audio, endian)
                    except (sf.LibsndfileError, RuntimeError, ValueError):
                        continue  # a subtype, channel count or byte order this container's writer refuses
                    # PAF's 24-bit samples come in blocks of 10 frames, the last one padded
                    assert 0 <= check_audio_bytes(data, name=f"x.{fmt}") * 16_000 - 16_001 < 10
                    assert 16_001 <= decode_audio_bytes(data, name=f"x.{fmt}").size < 16_011
                    read += 1
    assert read >= 40
