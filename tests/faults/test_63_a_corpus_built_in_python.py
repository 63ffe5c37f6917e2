"""Case 63: a ``Corpus`` built in Python from things that are not clips.

``Corpus(name, clips)`` took anything: a string of ids was ``AttributeError:
'str' object has no attribute 'id'``; a clip whose id is an int (a pandas
index) was accepted and then met no prediction file's clip (their ids are
str); a clip whose audio is a list of samples was accepted and failed when
decoded with pathlib's ``TypeError: expected str, bytes or os.PathLike
object, not list``.  Now each is one line when the corpus is built.
"""

from __future__ import annotations

import numpy as np
import pytest

from asraudit import Clip, Corpus, InputError

SAMPLES = np.zeros(800, dtype=np.float32)


@pytest.mark.parametrize(("clips", "message"), [
    ("abc", "clips is a list of Clip, got str"),
    ([Clip("a", SAMPLES), "b"], "clips[1] is a str, not a Clip"),
    ([Clip(7, SAMPLES)], "clip 7: a clip id is a non-empty str (a number's id is str(n))"),
    ([Clip("a", [0.0] * 800)], "clip 'a': audio is a file path, the bytes of a file or a numpy array of samples, "
                               "got list"),
])
def test_what_is_not_a_clip_is_one_line(clips, message):
    with pytest.raises(InputError) as err:
        Corpus("mine", clips)
    assert str(err.value) == message


def test_clips_are_a_corpus():
    corpus = Corpus("mine", [Clip("a", SAMPLES, "x"), Clip("b", np.zeros(400, dtype=np.int16), "y")])
    assert [c.id for c in corpus] == ["a", "b"] and corpus["b"].decode().shape == (400,)
