"""Case 61: integer samples from Python: ``scipy.io.wavfile.read`` gives int16, and a notebook passes them on.

``model.transcribe([int16_samples])`` read the integers as floats in the
thousands: pocketsphinx wrote "five us" for "he might even have been made
the amiable himself", silently (an int16 array cast to float32: "of a a
hours").  ``Clip(id, int16_samples).decode()`` refused the array with the
advice for a file ("float samples reach 11561 ... or save the file as
PCM_16"), although the array's type says its scale; a boolean array was
decoded as samples of 0 and 1.  Now ``decode`` scales integer PCM by its
type's full scale, as libsndfile scales a PCM file, and ``transcribe`` /
``score`` refuse integer samples, and floats at integer scale, in one line.
"""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf

from asraudit import Clip, InputError, load_model

pytest.importorskip("pocketsphinx")


@pytest.fixture(scope="module")
def speech(librivox):
    clip = librivox[0]
    return sf.read(clip.wav_path, dtype="int16")[0], sf.read(clip.wav_path, dtype="float32")[0]


def test_decode_scales_integer_pcm_as_a_file_is_scaled(speech):
    int16, float32 = speech
    assert np.array_equal(Clip("a", int16).decode(), float32)  # libsndfile's own scaling, bit for bit
    assert np.array_equal(Clip("a", int16.astype(np.int32) << 16).decode(), float32)
    assert Clip("a", np.array([0, 128, 255], dtype=np.uint8)).decode().tolist() == [-1.0, 0.0, 127 / 128]
    with pytest.raises(InputError) as err:
        Clip("a", np.ones(10, dtype=bool)).decode()
    assert str(err.value) == "clip a: samples of type bool are no audio: give float samples in [-1, 1] or integer PCM"


def test_a_model_refuses_integer_samples_and_transcribes_the_decoded_clip(speech):
    int16, float32 = speech
    model = load_model("pocketsphinx")
    with pytest.raises(InputError) as err:
        model.transcribe([int16])
    assert str(err.value) == "audio[0] holds int16 samples: a model takes float samples in [-1, 1]: " \
                             "Clip(id, samples).decode() scales integer PCM, or divide by its full scale"
    with pytest.raises(InputError) as err:
        model.transcribe([float32, int16.astype(np.float32)])
    assert str(err.value) == f"audio[1]'s samples reach {np.abs(int16).max()}, far outside [-1, 1] (integer " \
                             "values stored as float?): divide them by the integer full scale (32768 for 16-bit)"
    assert model.transcribe([Clip("a", int16).decode()]) == model.transcribe([float32])
