"""Case 219: a set (or a dict's ``.keys()``) where a list of texts, one per clip, goes, from Python.

``corpus_wer`` / ``corpus_cer`` pair their two lists by position.  A set
has no order: ``corpus_wer(set(refs), hyps)`` paired the texts in hash
order (another pairing in each Python process, as ``PYTHONHASHSEED``
changes) and merged equal texts, and returned whatever that gave, with no
error; ``d.keys()`` scored the clip ids, as a dict itself did before case
50.  A model's ``score(audio, candidates)`` took a set of candidates the
same way and returned scores in an order the caller cannot map back.  Now
each is one line naming the argument; a dict's ``.values()``, a tuple, a
generator and a numpy array of texts still score.
"""

from __future__ import annotations

import numpy as np
import pytest

from asraudit import InputError, corpus_cer, corpus_wer
from asraudit.models.base import score_arguments

REFS = ["the cat sat", "on the mat", "a dog"]
HYPS = ["the cat sat", "on the mat", "a dog"]
SET = ("refs is a list of texts, one per clip, got a {}: a set has no order (its texts would pair up with the "
       "other list's in hash order, a different one each run) and keeps one of equal texts: pass a list")


@pytest.mark.parametrize("score", [corpus_wer, corpus_cer])
def test_a_set_or_a_dicts_keys_is_refused_naming_the_argument(score):
    for refs, kind in ((set(REFS), "set"), (frozenset(REFS), "frozenset")):
        with pytest.raises(InputError) as err:
            score(refs, HYPS, n_boot=0)
        assert str(err.value) == SET.format(kind)
    with pytest.raises(InputError) as err:
        score(REFS, dict(zip(["c0", "c1", "c2"], HYPS)).keys(), n_boot=0)
    assert str(err.value) == ("hyps is a list of texts, one per clip, got a dict_keys (its keys would be scored, not "
                              "its texts): pass its values as a list, in the clip order of the other list")


@pytest.mark.parametrize("score", [corpus_wer, corpus_cer])
def test_ordered_texts_still_score(score):
    by_clip = dict(zip(["c0", "c1", "c2"], HYPS))
    for hyps in (by_clip.values(), tuple(HYPS), (h for h in HYPS), np.array(HYPS)):
        assert score(REFS, hyps, n_boot=0).rate == 0.0
    assert score(REFS, ["the cat sat", "on a mat", "a dog"], n_boot=0).errors == (1 if score is corpus_wer else 3)


def test_a_set_of_candidates_to_score_is_refused():
    clip = np.zeros(1600, dtype=np.float32)
    with pytest.raises(InputError) as err:
        score_arguments(clip, {"the cat", "a cat"})
    assert str(err.value).startswith("candidates is a list of texts, each scored against the clip, got a set: "
                                     "a set has no order")
    assert score_arguments(clip, ("the cat", "a cat"))[1] == ["the cat", "a cat"]
