"""Case 295: a selection of models from Python that names none, or names them in no order:
``pset.common_clip_ids([])``, ``accept_ref_from_predictions(..., models=[])``, ``measure_refdis(..., scored=[])``,
``clip_inputs(..., models=[])``; ``load_predictions({path, ...})`` (a set of paths, as ``set(folder.glob(...))``
gives), ``scored={"m3", "m1"}`` (a set of names).

The clips every model of an empty list ran are all clips: ``common_clip_ids([])`` returned every clip of the set,
silently; ``models=[]`` mined the panel's edits and scored no model on them: an empty ``accept_ref``, no error,
where ``refdis --models ""`` is refused; ``clip_inputs`` left every clip out.  A set iterates in hash order, which
is another each run (``PYTHONHASHSEED``): its files, or its names, became the models in that order, and every
table listed them in it.  Now an empty selection is refused naming the argument, and a set is taken sorted, as a
folder's files are read (a list keeps its order).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from asraudit import InputError, accept_ref_from_predictions, clip_inputs, load_predictions, measure_refdis

from conftest import PROJECT_ROOT, write_preds

NAMES = ["whisper", "parakeet", "canary", "granite", "voxtral", "moonshine", "kyutai", "phi"]


@pytest.fixture()
def files(tmp_path):
    return [write_preds(tmp_path / f"{m}.jsonl", [("c0", "a cat", "a cat"), (f"only-{m}", "a dog", "a dog")])
            for m in NAMES]


def test_the_shared_clips_of_no_model_are_refused(files):
    pset = load_predictions(files)
    with pytest.raises(InputError) as err:
        pset.common_clip_ids([])
    assert str(err.value) == ("models is empty: name the models whose shared clips you want, or give None for the "
                              "clips every model ran")
    assert pset.common_clip_ids() == ["c0"]
    assert pset.common_clip_ids(["phi"]) == ["c0", "only-phi"]


def _model_order(files, seed: int) -> list[str]:
    """The models of load_predictions(set(files)) in a process of the hash seed ``seed``."""
    code = ("import json, sys; from asraudit import load_predictions; "
            "print(json.dumps(load_predictions(set(json.loads(sys.argv[1]))).model_names))")
    env = {**os.environ, "PYTHONHASHSEED": str(seed),
           "PYTHONPATH": str(PROJECT_ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", code, json.dumps([str(f) for f in files])], env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_a_set_of_files_gives_one_order_in_every_run(files):
    orders = [_model_order(files, seed) for seed in (1, 2, 3)]
    assert orders == [sorted(NAMES)] * 3  # each run's hash order was its own (8 names: 40,320 orders)
    assert load_predictions(files).model_names == NAMES  # a list keeps its order


def test_no_model_to_score_is_refused(files):
    pset = load_predictions(files)
    panel = NAMES[:3]
    with pytest.raises(InputError) as err:
        accept_ref_from_predictions(pset, panel, models=[])
    assert str(err.value) == "models is empty: name the models to score, or give None to score every model"
    transcripts = {m: {cid: p.hypothesis for cid, p in pset.models[m].rows.items()} for m in NAMES}
    with pytest.raises(InputError) as err:
        clip_inputs(pset.references(), transcripts, "whisper", models=[])
    assert str(err.value) == ("models is empty: name the models whose transcripts to take, or give None for every "
                              "model of transcripts")
    clips = clip_inputs(pset.references(), transcripts, "whisper")
    with pytest.raises(InputError) as err:
        measure_refdis(clips, panel, scored=[], n_boot=0)
    assert str(err.value) == ("scored is empty: name the models to score on the edits (the panel's members too, "
                              "scored leave-one-out)")
    assert list(accept_ref_from_predictions(pset, panel, models=["phi"]).accept_ref) == ["phi"]


def _scored_order(files, seed: int) -> list[str]:
    """The scored models of accept_ref_from_predictions(models=set(NAMES)) under the hash seed ``seed``."""
    code = ("import json, sys; from asraudit import accept_ref_from_predictions; "
            "names = json.loads(sys.argv[2]); "
            "r = accept_ref_from_predictions(json.loads(sys.argv[1]), names[:3], models=set(names), n_boot=0); "
            "print(json.dumps(list(r.accept_ref)))")
    env = {**os.environ, "PYTHONHASHSEED": str(seed),
           "PYTHONPATH": str(PROJECT_ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", code, json.dumps([str(f) for f in files]), json.dumps(NAMES)],
                          env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_a_set_of_model_names_gives_one_order_in_every_run(files):
    assert [_scored_order(files, seed) for seed in (1, 2, 3)] == [sorted(NAMES)] * 3
    assert list(accept_ref_from_predictions(files, NAMES[:3], models=NAMES, n_boot=0).accept_ref) == NAMES
