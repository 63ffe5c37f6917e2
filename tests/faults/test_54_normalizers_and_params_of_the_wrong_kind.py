"""Case 54: a normalizer, a text or the miner's params of the wrong kind, from Python.

``get_normalizer(None)`` was ``AttributeError: 'NoneType' object has no
attribute 'startswith'``; a normalizer applied to None (a missing value) was
``... no attribute 'isascii'``; ``normalizer=None`` in
``accept_ref_from_predictions`` was ``'NoneType' object is not callable``
after every file was read, and a function of the caller's that returns
None or a list of words (``str.split``) was ``AttributeError: 'list' object
has no attribute 'split'`` from the aligner; ``score_model(m, "whisper")``
was ``'str' object is not callable``; a text that is None in
``clip_inputs`` named no clip; ``params={"majority": 0.6}`` was
``AttributeError: 'dict' object has no attribute 'validate'``.  Now each is
one line naming the argument (and the text or clip), before any file is
read where it can be; a normalizer's name is also taken where a function is.
"""

from __future__ import annotations

import pytest

from asraudit import (InputError, accept_ref_from_predictions, clip_inputs, get_normalizer, load_predictions,
                      score_model)

from conftest import panel_files

ROWS = [(f"c{i}", f"well the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(4)]
NAMES = "whisper, basic, none, leaderboard, basic-es, basic-fr, basic-de, basic-it, basic-nl, basic-pl, basic-pt"


@pytest.fixture(scope="module")
def preds(tmp_path_factory):
    return load_predictions(panel_files(tmp_path_factory.mktemp("preds"), ROWS))


def message(call, kind=InputError) -> str:
    with pytest.raises(kind) as err:
        call()
    return str(err.value)


def test_get_normalizer_and_the_normalizers_themselves():
    assert message(lambda: get_normalizer(None)) == f"a normalizer is named by a string, one of {NAMES}, got None"
    for name in ("whisper", "basic", "none"):
        assert message(lambda: get_normalizer(name)(None), TypeError) == "a normalizer takes a str, got None"
        assert message(lambda: get_normalizer(name)(float("nan")), TypeError) == "a normalizer takes a str, got nan"
    assert get_normalizer("whisper")("Mr.  Smith's CAT") == "mister smith is cat"  # unchanged for text


def test_accept_ref_from_predictions(preds):
    panel = ["m1", "m2", "m3"]
    assert message(lambda: accept_ref_from_predictions("no/such/folder", panel, normalizer=None)) == \
        f"normalizer is a normalizer's name ({NAMES}) or a function of a str to a str, got None"
    assert message(lambda: accept_ref_from_predictions(preds, panel, normalizer=str.split)) == \
        "normalizer returned ['the', 'cat', 'sat', 'on', 'mat', '0'] for 'the cat sat on mat 0': " \
        "a normalizer returns a str (the words joined by spaces)"
    assert message(lambda: accept_ref_from_predictions(preds, panel, normalizer=lambda text: None)) == \
        "normalizer returned None for 'the cat sat on mat 0': a normalizer returns a str (the words joined " \
        "by spaces)"
    assert message(lambda: accept_ref_from_predictions("no/such/folder", panel, {"majority": 0.6})) == \
        "params is a RefdisParams, got dict: RefdisParams(**knobs) builds one from a dict"
    assert len(accept_ref_from_predictions(preds, panel, normalizer=str.lower).edits) == 4


def test_score_model_and_clip_inputs(preds):
    model = preds.models["m1"]
    assert score_model(model, "whisper", n_boot=10).score == score_model(model, get_normalizer("whisper"),
                                                                         n_boot=10).score
    assert message(lambda: score_model(model, None)) == \
        f"normalize is a normalizer's name ({NAMES}) or a function of a str to a str, got None"
    assert message(lambda: clip_inputs({"c0": "a"}, {"m": {"c0": None}}, get_normalizer("whisper"))) == \
        "transcripts['m']['c0'] is None, not a text: give each clip a str"
    assert message(lambda: clip_inputs({"c0": 7}, {"m": {"c0": "a"}}, "whisper")) == \
        "references['c0'] is 7, not a text: give each clip a str (None: no reference)"
    assert clip_inputs({"c0": None}, {"m": {"c0": "A"}}, "whisper")[0].hyps == {"m": ("a",)}
