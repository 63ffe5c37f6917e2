"""Case 291: ``model.transcribe`` from Python given a batch that is no list, or clips that are not samples.

Case 58's check of the batch took any iterable: ``transcribe(None)`` or a
number was ``TypeError: 'NoneType' object is not iterable`` from inside
``models.base``; a dict of clip id -> samples (what a notebook holds) was
iterated as its ids, and those ids, a list of file paths (``["a.wav"]``), of
``Clip`` objects or a ``Corpus`` itself, an encoded file's bytes or None were
each refused as ``audio[0] is a 0-D array of shape ()``, which says nothing of
what was passed or what to do.  Now each is one line naming what it is and the call that
gives samples.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from asraudit import Clip, Corpus, InputError, load_model

SECOND = np.zeros(16000, dtype=np.float32)
NOT_A_BATCH = "audio is a batch of clips, a list of 1-D sample arrays, got {}"
PATH = ("audio[0] is the path 'a.wav', not samples: decode the file first (Clip(id, path).decode(), or "
        "asraudit.audio.io.load_audio)")
CLIP = "audio[0] is the Clip 'c0', not its samples: pass clip.decode() ([c.decode() for c in corpus] for a corpus)"


@pytest.fixture(scope="module")
def model():
    pytest.importorskip("pocketsphinx")
    return load_model("pocketsphinx")


@pytest.mark.parametrize(("audio", "message"), [
    (None, NOT_A_BATCH.format("None")),
    (3, NOT_A_BATCH.format("3")),
    ({"c0": SECOND}, NOT_A_BATCH.format("a dict (iterated, it gives its keys, not its samples): pass "
                                        "list(d.values())")),
    (["a.wav"], PATH),
    ([Path("a.wav")], PATH),
    ([Clip("c0", SECOND)], CLIP),
    (Corpus("c", [Clip("c0", SECOND)]), CLIP),
    ([b"RIFF0000WAVE"], "audio[0] is 12 bytes (an encoded file?), not samples: decode them first "
                        "(Clip(id, data).decode())"),
    ([SECOND, None], "audio[1] is None, not a clip's samples"),
], ids=["None", "a number", "a dict", "a path", "a Path", "a Clip", "a Corpus", "bytes", "None in the batch"])
def test_what_is_not_samples_is_named(model, audio, message):
    with pytest.raises(InputError) as err:
        model.transcribe(audio)
    assert str(err.value) == message


def test_samples_still_go(model):
    clip = Clip("c0", SECOND)
    assert model.transcribe([clip.decode()]) == model.transcribe([SECOND]) == model.transcribe([list(SECOND)])
