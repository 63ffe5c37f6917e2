"""A prediction set's first-seen references kept for the next call while it holds the same rows, checked against
the pass worked out anew after every kind of change to the set."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from asraudit.data.predictions import ModelPredictions, Prediction, PredictionSet
from asraudit.errors import InputError


def _set(seed: int = 0) -> PredictionSet:
    rng = random.Random(seed)
    refs = {f"c{i}": f"reference {i}" for i in range(30)}
    models = {}
    for m in ("a", "b", "c"):
        rows = {cid: Prediction(cid, "".join(ref), f"hyp {rng.random()}", None, i)  # equal, not the same object
                for i, (cid, ref) in enumerate(refs.items())}
        models[m] = ModelPredictions(m, Path(f"{m}.jsonl"), rows)
    return PredictionSet(models)


def _check(pset: PredictionSet) -> None:
    want = pset._first_references_anew()
    assert pset._first_references() == want
    assert [c.clip_id for c in pset.reference_conflicts()] == [c.clip_id for c in pset._conflicts(*want)]


def _changes():
    def replace_row(p):
        row = p.models["b"].rows["c3"]
        p.models["b"].rows["c3"] = Prediction("c3", "another reference", row.hypothesis, None, row.row)

    def replace_row_equal(p):
        row = p.models["c"].rows["c4"]
        p.models["c"].rows["c4"] = Prediction("c4", row.reference + "", row.hypothesis, None, row.row)

    def add_row(p):
        p.models["a"].rows["c99"] = Prediction("c99", "new", "x", None, 99)

    def drop_row(p):
        del p.models["a"].rows["c0"]

    def rename_key(p):
        rows = p.models["c"].rows
        rows["zz"] = rows.pop("c5")

    def reorder_rows(p):
        rows = p.models["a"].rows
        p.models["a"].rows = dict(reversed(list(rows.items())))

    def add_model(p):
        rows = {cid: Prediction(cid, "odd one", "h", None, 0) for cid in ("c1", "c2")}
        p.models["d"] = ModelPredictions("d", Path("d.jsonl"), rows)

    def drop_model(p):
        del p.models["a"]

    def reorder_models(p):
        p.models = dict(reversed(list(p.models.items())))

    def swap_model_object(p):
        old = p.models["b"]
        p.models["b"] = ModelPredictions("b", old.source, {k: Prediction(k, "changed", v.hypothesis, None, v.row)
                                                           for k, v in old.rows.items()})

    return [replace_row, replace_row_equal, add_row, drop_row, rename_key, reorder_rows, add_model, drop_model,
            reorder_models, swap_model_object]


@pytest.mark.parametrize("change", _changes(), ids=lambda f: f.__name__)
def test_a_changed_set_gets_its_references_anew(change):
    pset = _set()
    _check(pset)
    _check(pset)  # the kept answer
    change(pset)
    _check(pset)
    _check(pset)


def test_the_callers_copies_are_their_own():
    pset = _set()
    first, differing = pset._first_references()
    first["c0"] = "changed by the caller"
    differing.add("c1")
    assert pset._first_references() == pset._first_references_anew()
    refs = pset.references()
    refs.clear()
    assert pset.references() == pset._first_references_anew()[0]


def test_a_conflict_made_after_the_first_call_is_an_error():
    pset = _set()
    assert pset.references()
    row = pset.models["c"].rows["c7"]
    pset.models["c"].rows["c7"] = Prediction("c7", "something else entirely", row.hypothesis, None, row.row)
    with pytest.raises(InputError):
        pset.references()
