"""Case 219: a set (or a dict's ``.keys()``) where a list of texts, one per clip, goes, from Python.

``corpus_wer`` / ``corpus_cer`` pair their two lists by position.  A set
has no order: ``corpus_wer(set(refs), hyps)`` paired the texts in hash
order (another pairing in each Python process, as ``PYTHONHASHSEED``
changes) and merged equal texts, and returned whatever that gave, with no
error; ``d.keys()`` scored the clip ids, as a dict itself did before case
50.  A model's ``score(audio, candidates)`` took a set of candidates the
same way and returned scores in an order the caller cannot map back.  Now
each is one line naming the argument; a dict's ``.values()``, a tuple, a
generator and a numpy array of texts still score.  ``score_model(m,
normalize, clip_ids=set(a.rows) & set(b.rows))`` (the clips two models
share, a set where order only decides what the bootstrap resamples) gave
another interval in each process (40 clips: ``high`` 0.4065, 0.4049 and
0.4066 under ``PYTHONHASHSEED`` 1, 2 and 3); a set of clip ids is now taken
in the file's row order: the same interval every run, the one the list of
those ids in that order gives.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from asraudit import InputError, corpus_cer, corpus_wer
from asraudit.models.base import score_arguments

from conftest import PROJECT_ROOT, write_preds

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


SCORE_A_SET = """
import json, sys
from asraudit import load_predictions, score_model
m = load_predictions(sys.argv[1]).models["m"]
shared = set(m.rows) - {"c3"}
i = score_model(m, "whisper", clip_ids=shared, n_boot=200).score.interval
print(json.dumps([i.low, i.high]))
"""


def test_a_set_of_clip_ids_scores_in_row_order_in_every_process(tmp_path):
    from asraudit import load_predictions, score_model

    rows = [(f"c{i}", f"the cat sat on mat {i} " + "x " * (i % 5), f"the hat sat on mat {i}") for i in range(40)]
    write_preds(tmp_path / "m.jsonl", rows)
    bounds = set()
    for hash_seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(PROJECT_ROOT / "src")}
        ran = subprocess.run([sys.executable, "-c", SCORE_A_SET, str(tmp_path)], env=env, capture_output=True,
                             text=True, check=True)
        bounds.add(tuple(json.loads(ran.stdout)))
    m = load_predictions(tmp_path).models["m"]
    in_row_order = score_model(m, "whisper", clip_ids=[c for c in m.rows if c != "c3"], n_boot=200).score.interval
    assert bounds == {(in_row_order.low, in_row_order.high)}
    assert score_model(m, "whisper", clip_ids=frozenset(["c1", "c0"]), n_boot=0).clip_ids == ("c0", "c1")
