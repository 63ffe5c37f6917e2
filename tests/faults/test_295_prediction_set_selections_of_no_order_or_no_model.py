"""Case 295: a ``PredictionSet`` selection from Python that names no model, or names the files in no order:
``pset.common_clip_ids([])``, ``load_predictions({path, path, ...})`` (a set of paths, as ``set(folder.glob(...))``
or a set comprehension gives).

The clips every model of an empty list ran are all clips: ``common_clip_ids([])`` returned every clip of the set,
as if the caller had asked for none of them to be filtered, silently.  A set iterates in hash order, which is
another each run (``PYTHONHASHSEED``): its files became the models in that order, and every table and summary
listed them in it.  Now the empty list is refused naming the argument, and a set's files are read sorted, as a
folder's files are (a list keeps its order).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from asraudit import InputError, load_predictions

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
