"""Case 284: ``PredictionSet.common_clip_ids("m1")``, one model's name given as a string where a list of names
goes.  The string was iterated as its characters: the set refused models ``m`` and ``1`` that the caller never
named (``no prediction file for model(s) m, 1``), and with models named ``a`` and ``b``, ``common_clip_ids("ab")``
silently returned the clips both ran.  Now it is refused naming the argument, as ``require_models("a")`` is
(case 52)."""

from __future__ import annotations

import pytest

from asraudit import InputError, load_predictions
from conftest import write_preds


def _set(tmp_path, models):
    folder = tmp_path / "preds"
    folder.mkdir()
    for model in models:
        write_preds(folder / f"{model}.jsonl", [("c0", "a b", "a b"), ("c1", "c d", "c d")])
    return load_predictions(folder)


def test_one_string_is_refused(tmp_path):
    pset = _set(tmp_path, ("m1", "m2"))
    with pytest.raises(InputError, match="^models is a list of model names, got the string 'm1'$"):
        pset.common_clip_ids("m1")


def test_a_string_of_model_names_is_not_split(tmp_path):
    pset = _set(tmp_path, ("a", "b"))
    with pytest.raises(InputError, match="got the string 'ab'"):
        pset.common_clip_ids("ab")


def test_lists_and_generators_still_go(tmp_path):
    pset = _set(tmp_path, ("m1", "m2"))
    assert pset.common_clip_ids(["m1"]) == ["c0", "c1"]
    assert pset.common_clip_ids(m for m in ["m1", "m2"]) == ["c0", "c1"]
    assert pset.common_clip_ids() == ["c0", "c1"]
