"""Case 58: ``model.transcribe`` from Python given something other than a list of 1-D sample arrays.

A notebook passes one clip where a batch belongs: ``model.transcribe(clip)``
iterated the clip's samples, so pocketsphinx returned one empty transcript
per sample (16,000 for a second), silently, and Whisper raised
``IndexError: tuple index out of range`` from its window cutter; a NaN
sample made Whisper write ``)))))...``; a stereo ``(n, 2)`` array or a path
were tracebacks from inside.  An empty clip was pocketsphinx's
``IndexError: Out of bounds on buffer access``, and it left the utterance
open: every later call on the model failed with ``RuntimeError: Failed to
start utterance processing``.  Now one shared check of the batch, in every
backend's ``transcribe``, says what is wrong in one line, and an empty clip
is no speech to pocketsphinx.
"""

from __future__ import annotations

import numpy as np
import pytest

from asraudit import InputError, load_model

SECOND = np.zeros(16000, dtype=np.float32)
BATCH = "audio is a batch of clips, a list of 1-D sample arrays, got one array of 16000 sample(s): pass [clip] " \
        "for one clip"


def refused(model, audio) -> str:
    with pytest.raises(InputError) as err:
        model.transcribe(audio)
    return str(err.value)


def _each_model():
    yield "pocketsphinx", "pocketsphinx"
    yield "whisper-tiny.en", "ctranslate2"


@pytest.fixture(scope="module", params=[p[0] for p in _each_model()])
def model(request):
    pytest.importorskip(dict(_each_model())[request.param])
    return load_model(request.param)


def test_one_clip_a_stereo_clip_a_path_or_nan_is_one_line(model):
    assert refused(model, SECOND) == BATCH
    assert refused(model, [np.zeros((8000, 2), dtype=np.float32)]) == \
        "audio[0] is a 2-D array of shape (8000, 2): a clip is a 1-D array of mono samples (float, 16 kHz)"
    assert refused(model, "a.wav") == "audio is a batch of clips (arrays of 16000 Hz samples), got the path " \
                                      "'a.wav': decode it first (Clip.decode(), or asraudit.audio.io.load_audio)"
    noisy = SECOND.copy()
    noisy[100] = np.nan
    assert refused(model, [SECOND, noisy]) == "audio[1] holds nan at sample 100: a clip's samples are finite numbers"


def test_batches_that_are_batches_still_go(model):
    one = model.transcribe([SECOND[:8000]])
    assert len(one) == 1 and isinstance(one[0], str)
    assert model.transcribe(x for x in [SECOND[:8000]]) == one  # a generator is read once
    assert len(model.transcribe(np.zeros((2, 8000), dtype=np.float32))) == 2  # a 2-D array is its rows


def test_an_empty_clip_leaves_pocketsphinx_usable():
    pytest.importorskip("pocketsphinx")
    model = load_model("pocketsphinx")
    assert model.transcribe([np.zeros(0, dtype=np.float32)]) == [""]
    assert model.transcribe([SECOND[:8000]]) == load_model("pocketsphinx").transcribe([SECOND[:8000]])
