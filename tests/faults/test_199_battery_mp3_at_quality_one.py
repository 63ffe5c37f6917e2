"""Case 199: a battery ``codec`` condition of MP3 at ``quality = 1``, the top of the range the spec documents
([0, 1]).

libsndfile writes MP3 through LAME, asking for VBR quality 10 x ``quality``, and LAME takes less than 10, so
libsndfile refuses 1.0 (``Error set compression level 1.0``). The refusal came before any model ran (case 155's
``check_sources``), but it said the installed libsndfile cannot write MP3 at all and should be updated: the
soundfile wheel's own libsndfile 1.2.2, the one refusing, writes MP3 at every other quality, and no update was
to be had. The line now says that libsndfile writes the codec but not at that quality; a libsndfile that writes
no MP3 at all (case 155) still reads as before.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
import soundfile

from asraudit.errors import InputError
from asraudit.probes.battery import check_sources, parse_spec


def _writes_mp3(quality: float) -> bool:
    try:
        with soundfile.SoundFile(io.BytesIO(), "w", samplerate=16000, channels=1, format="MP3",
                                 subtype="MPEG_LAYER_III", compression_level=quality) as fh:
            fh.write(np.zeros(1600, dtype=np.float32))
    except (ValueError, TypeError, RuntimeError):
        return False
    return True


pytestmark = pytest.mark.skipif(not _writes_mp3(0.5) or _writes_mp3(1.0),
                                reason="this libsndfile writes no MP3, or writes it at quality 1")


def _spec(quality):
    return parse_spec({"condition": [{"name": "original"},
                                     {"name": "x", "type": "codec", "codec": "mp3", "quality": quality}]}, "b.toml")


def test_mp3_at_quality_one_is_refused_for_its_quality_not_for_the_libsndfile_version():
    with pytest.raises(InputError) as err:
        check_sources(_spec(1.0))
    message = str(err.value)
    assert message.startswith(f"b.toml: [[condition]] #2 (x): codec mp3: the installed libsndfile "
                              f"({soundfile.__libsndfile_version__}) writes MP3 MPEG_LAYER_III but not at quality 1 (")
    assert message.endswith("): give another quality (its MP3 encoder takes less than 1)")  # libsndfile's words between
    assert "update libsndfile" not in str(err.value)


@pytest.mark.parametrize("quality", [0, 0.5, 0.99])
def test_the_qualities_below_one_are_written(quality):
    check_sources(_spec(quality))
