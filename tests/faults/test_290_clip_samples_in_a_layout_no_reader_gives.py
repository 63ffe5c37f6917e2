"""Case 290: a clip's samples built in Python in a layout or type no reader gives, decoded with ``Clip.decode()``.

``decode`` reads a 2-D array as (frames, channels), as soundfile gives a
file.  A (channels, frames) array, as ``torchaudio.load`` and
``librosa.load(mono=False)`` give, was read as one frame of 16,000 channels:
speech was refused with a wrong reason (``its 16000 channels cancel when mixed
to mono ...: one is the other inverted?``), and a signal with an offset was
decoded to one sample, silently, then transcribed as "".  A 64-bit integer
array (numpy's type for a list of Python ints) holding 16-bit PCM values was
scaled by 2**63 into silence (peak 6.5e-16), silently.  A clip decoded without
a ``Corpus`` (case 63 checks the clips a Corpus holds) whose audio is a list
of samples, None or a numpy scalar was pathlib's ``TypeError: expected str,
bytes or os.PathLike object, not list``.  Now each is one line naming the clip.
"""

from __future__ import annotations

import numpy as np
import pytest

from asraudit import Clip, InputError

T = np.arange(16_000) / 16_000
SPEECH = (0.3 * np.sin(2 * np.pi * 220 * T)).astype(np.float32)
LAYOUT = ("clip a: an array of shape {shape} reads as {frames} frame(s) of {channels} channels: a (channels, frames) "
          "array, as torchaudio.load and librosa.load(mono=False) give? Samples are 1-D or (frames, channels): pass "
          "samples.T, or samples.mean(axis=0) for mono")
KIND = "clip 'a': audio is a file path, the bytes of a file or a numpy array of samples, got {kind}"


def _message(audio) -> str:
    with pytest.raises(InputError) as err:
        Clip("a", audio).decode()
    return str(err.value)


@pytest.mark.parametrize("samples", [SPEECH[None, :], np.stack([SPEECH, 0.5 * SPEECH]), 0.2 + SPEECH[None, :],
                                     (SPEECH[None, :] * 20_000).astype(np.int16)],
                         ids=["mono-channels-first", "stereo-channels-first", "with-an-offset", "int16-channels-first"])
def test_a_channels_first_array_is_refused(samples):
    channels, frames = samples.shape
    assert _message(samples) == LAYOUT.format(shape=samples.shape, frames=channels, channels=frames)


def test_64_bit_integers_are_refused():
    pcm = (SPEECH * 20_000).astype(np.int64)  # np.array(list_of_ints) is int64
    assert _message(pcm) == ("clip a: samples of type int64: no audio is stored as 64-bit integers (an array of "
                             "Python ints is int64), and scaled by that type's full scale its values are silence: "
                             "cast them to the PCM type they hold (samples.astype(np.int16)) or give float samples "
                             "in [-1, 1]")
    assert np.abs(Clip("a", pcm.astype(np.int16)).decode()).max() == pytest.approx(0.3 * 20_000 / 32768, rel=1e-3)


@pytest.mark.parametrize(("audio", "kind"), [([0.0] * 800, "list"), (None, "NoneType"), (np.float32(0.5), "float32")])
def test_audio_of_no_kind_decode_reads_is_refused_outside_a_corpus(audio, kind):
    assert _message(audio) == KIND.format(kind=kind)
    with pytest.raises(InputError) as err:
        Clip("a", audio).file_digest
    assert str(err.value) == KIND.format(kind=kind)


def test_frames_then_channels_still_decode():
    assert Clip("a", SPEECH).decode().shape == (16_000,)
    stereo = Clip("a", np.stack([SPEECH, 0.5 * SPEECH], axis=1)).decode()
    assert stereo.shape == (16_000,) and np.abs(stereo).max() == pytest.approx(0.225, rel=1e-3)
