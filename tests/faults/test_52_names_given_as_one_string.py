"""Case 52: model names, clip ids and tokens given as one string (or not as names) from Python.

Case 18 refused a panel given as one string in ``accept_ref_from_predictions``;
the other lists of names took a string as its characters.
``measure_refdis(clips, "abc", scored="dd")`` mined with models ``a``, ``b``,
``c`` and scored ``d`` (whatever the models were called), and a panel member
no clip has a transcript of (a typo) voted on nothing: the panel silently
mined with one voter fewer, here no edit at all.  ``corrections={"c0": "the
cat sat"}`` was diffed character by character into made-up edits.
``score_model(..., clip_ids="c1")`` was ``KeyError: 'c'``, an unknown id a
bare ``KeyError``, a ``PredictionSet`` for ``preds`` an ``AttributeError``;
``models="m3"`` looked for models ``m`` and ``3``.  Now each is one line
naming the argument, from the check the panel already had.
"""

from __future__ import annotations

import pytest

from asraudit import (InputError, accept_ref_from_predictions, clip_inputs, get_normalizer, load_predictions,
                      measure_refdis, score_model)

from conftest import write_preds

ROWS = [(f"c{i}", f"well the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(4)]


@pytest.fixture(scope="module")
def preds(tmp_path_factory):
    folder = tmp_path_factory.mktemp("preds")
    for name in ("a", "b", "c", "d"):
        write_preds(folder / f"{name}.jsonl", ROWS)
    return load_predictions(folder)


@pytest.fixture(scope="module")
def clips(preds):
    return clip_inputs(preds.references(), {m: {c: p.hypothesis for c, p in preds.models[m].rows.items()}
                                            for m in preds.model_names}, get_normalizer("whisper"))


def refused(call) -> str:
    with pytest.raises(InputError) as err:
        call()
    return str(err.value)


def test_measure_refdis(clips):
    assert len(measure_refdis(clips, ["a", "b", "c"], scored=["d"], n_boot=0).edits) == 4
    assert refused(lambda: measure_refdis(clips, "abc", scored=["d"])) == \
        "the panel is a list of model names, got the string 'abc'"
    assert refused(lambda: measure_refdis(clips, ["a", "b", "c"], scored="dd")) == \
        "scored is a list of model names, got the string 'dd'"
    assert refused(lambda: measure_refdis(clips, ["a", "b", "C"], scored=["d"])) == \
        "the panel names C, which no clip has a transcript of; the clips have transcripts of a, b, c, d"
    assert refused(lambda: measure_refdis(clips, ["a", "b", "c"], scored=["d"],
                                          corrections={"c0": "the cat sat on mat 0"})) == \
        "corrections['c0'] is a list of tokens (the corrected reference, split), got the string 'the cat sat on mat 0'"
    fixed = measure_refdis(clips, [], scored=["d"], corrections={"c0": ("the", "cat", "sat", "on", "mat", "0")},
                           n_boot=0)
    assert [(e.clip_id, e.kind, e.ref_start, e.ref_end) for e in fixed.edits] == [("c0", "delete", 0, 1)]


def test_accept_ref_from_predictions_models(preds):
    assert refused(lambda: accept_ref_from_predictions(preds, ["a", "b", "c"], models="d")) == \
        "models is a list of model names, got the string 'd'"
    assert refused(lambda: accept_ref_from_predictions(preds, [0, 1, 2])) == \
        "the panel holds 0, not a name: the panel is a list of model names"
    assert list(accept_ref_from_predictions(preds, ["a", "b", "c"], models=["d"]).accept_ref) == ["d"]


def test_score_model(preds):
    normalize = get_normalizer("whisper")
    source = preds.models["a"].source
    assert refused(lambda: score_model(preds.models["a"], normalize, clip_ids="c1")) == \
        "clip_ids is a list of clip ids, got the string 'c1'"
    assert refused(lambda: score_model(preds.models["a"], normalize, clip_ids=["c1", "zz"])) == \
        f"{source}: clip_ids names clip 'zz', which model a has no row for (1 of 2 clip ids have none)"
    assert refused(lambda: score_model(preds, normalize)) == \
        "preds is one model's predictions, a ModelPredictions (a PredictionSet holds one per model: " \
        "preds.models[name]), got PredictionSet"
    assert score_model(preds.models["a"], normalize, clip_ids=["c1"], n_boot=0).score.clips == 1


def test_clip_inputs_and_require_models(preds):
    normalize = get_normalizer("whisper")
    assert refused(lambda: clip_inputs({"c0": "a"}, {"m": {"c0": "a"}}, normalize, models="m")) == \
        "models is a list of model names, got the string 'm'"
    assert refused(lambda: clip_inputs({"c0": "a"}, {"m": {"c0": "a"}}, normalize, models=["x"])) == \
        "models names x, which transcripts has no entry for; it has m"
    assert refused(lambda: clip_inputs(["a"], [["a"]], normalize)) == \
        "references is a dict (clip id -> text), got list"
    assert refused(lambda: preds.require_models("a")) == "models is a list of model names, got the string 'a'"
