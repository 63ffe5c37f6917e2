"""Case 59: ``model.score(audio, candidates)`` from Python given one string, a batch, None or NaN.

``score(clip, "the cat")`` iterated the string: seven one-character
candidates were scored and returned, silently; a batch ``[clip]`` was
``ValueError: expected mono audio (1-D array), got shape (1, 16000)`` from
the feature extractor; a candidate that is None was ``AttributeError:
'NoneType' object has no attribute 'strip'`` from the tokenizer; a NaN
sample gave NaN log-probs, silently.  Every backend's ``score`` now checks
its arguments with one shared function (``models.base.score_arguments``),
whose list check is the one ``corpus_wer`` uses.
"""

from __future__ import annotations

import numpy as np
import pytest

from asraudit import InputError, load_model

pytest.importorskip("ctranslate2")

SECOND = np.zeros(16000, dtype=np.float32)


@pytest.fixture(scope="module")
def model():
    return load_model("whisper-tiny.en")


def refused(model, audio, candidates) -> str:
    with pytest.raises(InputError) as err:
        model.score(audio, candidates)
    return str(err.value)


def test_arguments_that_are_not_one_clip_and_a_list_of_texts(model):
    assert refused(model, SECOND, "the cat") == \
        "candidates is a list of texts, each scored against the clip, got the string 'the cat': wrap one text in a list"
    assert refused(model, SECOND, ["the cat", None]) == "candidates[1] is None, not a text: give each a str ('' " \
                                                        "for an empty one)"
    assert refused(model, [SECOND], ["the cat"]) == "audio is one clip, a 1-D array of mono samples (float, 16 kHz), " \
                                                    "got a 2-D array of shape (1, 16000): score one clip at a time"
    noisy = SECOND.copy()
    noisy[5] = np.inf
    assert refused(model, noisy, ["the cat"]) == "audio holds inf at sample 5: a clip's samples are finite numbers"


def test_a_list_of_texts_is_scored_as_before(model):
    scores = model.score(SECOND, ["the cat"])
    assert [s.text for s in scores] == ["the cat"] and len(scores[0].logprobs) == 3
    assert all(np.isfinite(scores[0].logprobs))
    assert [s.logprobs for s in model.score(SECOND, ("the cat",))] == [scores[0].logprobs]
