"""Case 299: the other ``PredictionSet`` methods that take model names, given one name as a string or a name
no file has: ``models_with_rows("m1")``, ``require_some_rows("m1")``, ``require_shared_clips("m1m2")`` (and
``scored="m2"``), ``models_with_rows(["zz"])``.  The string was iterated as its characters (``KeyError: 'm'``;
with a model named ``e``, ``require_some_rows("e")`` went through on the string), an unknown name a bare
``KeyError: 'zz'``.  Now each takes its names through the check ``common_clip_ids`` and ``require_models`` have
(case 284, ``asraudit.arguments.names``) and refuses an unknown model as ``require_models`` does."""

from __future__ import annotations

import pytest

from asraudit import InputError, load_predictions
from conftest import write_preds


def _set(tmp_path, models=("m1", "m2")):
    folder = tmp_path / "preds"
    folder.mkdir()
    for model in models:
        write_preds(folder / f"{model}.jsonl", [("c0", "a b", "a b"), ("c1", "c d", "c d")])
    return load_predictions(folder)


@pytest.mark.parametrize("call, message", [
    (lambda p: p.models_with_rows("m1"), "models is a list of model names, got the string 'm1'"),
    (lambda p: p.require_some_rows("m1"), "models is a list of model names, got the string 'm1'"),
    (lambda p: p.require_shared_clips("m1m2"), "panel is a list of model names, got the string 'm1m2'"),
    (lambda p: p.require_shared_clips(["m1"], "m2"), "scored is a list of model names, got the string 'm2'"),
])
def test_one_string_is_refused(tmp_path, call, message):
    with pytest.raises(InputError) as info:
        call(_set(tmp_path))
    assert str(info.value) == message


def test_a_one_character_model_name_as_a_string_is_refused(tmp_path):
    pset = _set(tmp_path, ("e", "m2"))
    with pytest.raises(InputError, match="^models is a list of model names, got the string 'e'$"):
        pset.require_some_rows("e")


@pytest.mark.parametrize("call", [
    lambda p: p.models_with_rows(["zz"]),
    lambda p: p.require_some_rows(["zz"]),
    lambda p: p.require_shared_clips(["zz"]),
    lambda p: p.require_shared_clips(["m1"], ["zz"]),
])
def test_an_unknown_model_is_named(tmp_path, call):
    with pytest.raises(InputError, match="^no prediction file for model\\(s\\) zz; available: m1, m2$"):
        call(_set(tmp_path))


def test_lists_and_generators_still_go(tmp_path):
    pset = _set(tmp_path)
    assert pset.models_with_rows(["m2", "m1"]) == ["m2", "m1"]
    assert pset.models_with_rows(m for m in ["m1"]) == ["m1"]
    pset.require_some_rows(("m1", "m2"))
    pset.require_shared_clips(["m1", "m2"], ["m1", "m2"])
    pset.require_shared_clips(["m1"])
