"""Case 222: numpy scalars as a model's options from Python (a DataFrame's cell, an array's element).

``load_model("whisper-tiny.en", beam_size=np.int64(2))`` was refused
(``option beam_size must be an integer of at least 1, got np.int64(2)``), as
were ``np.float32`` and ``np.bool_`` options of pocketsphinx and an HTTP
model's ``timeout=np.int64(30)``: every backend checks ``isinstance(value,
int)``.  In a dict spec (``{"options": {"beam_size": np.int64(2)}}``) the
numpy value was kept in the spec, so the model was refused, and had it
loaded, summary.json's provenance (``json.dumps``) could not be written
after every stage.  Case 106 read every other value of a spec as its Python
value; now a model's options are read so too, in ``load_model`` and in the
spec: the model loads, with the same configuration as the Python value's.

The same cells as ``measure_refdis``' ``groups`` (a speaker column of a
frame: ``dict(zip(df.clip, df.speaker))``): ``np.float32(3.0)`` was a group
"3.0" beside speaker "3" (case 89 made ``3.0`` and ``3`` one group for
Python floats only), its NaN a group "nan", and pandas' ``pd.NA`` stopped
the run with ``TypeError: boolean value of NA is ambiguous``.  Now a numpy
scalar is its Python value there too, and ``pd.NA`` / ``pd.NaT`` are
missing, group ``(none)``, as NaN and None are (case 136).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from asraudit import InputError, RefdisParams, clip_inputs, load_model, measure_refdis, parse_spec


def test_numpy_options_load_as_their_python_values():
    pytest.importorskip("pocketsphinx")
    plain = load_model("pocketsphinx", maxhmmpf=3000, bestpath=False, beam=1e-40)
    assert load_model("pocketsphinx", maxhmmpf=np.int64(3000), bestpath=np.False_,
                      beam=np.float64(1e-40)).config_hash == plain.config_hash
    http = load_model("http://127.0.0.1:9/v1", timeout=np.int64(30))
    assert http.config_hash == load_model("http://127.0.0.1:9/v1", timeout=30).config_hash


def test_numpy_options_of_a_ct2_whisper():
    pytest.importorskip("ctranslate2")
    two = load_model("whisper-tiny.en", beam_size=np.int64(2), patience=np.float32(1.5))
    assert two.config_hash == load_model("whisper-tiny.en", beam_size=2, patience=1.5).config_hash


def test_wrong_values_are_still_refused():
    pytest.importorskip("pocketsphinx")
    with pytest.raises(InputError) as err:
        load_model("pocketsphinx", maxhmmpf=np.float64(2.5))
    assert str(err.value) == "model 'pocketsphinx': option maxhmmpf must be a whole number, got 2.5"
    with pytest.raises(InputError) as err:
        load_model("pocketsphinx", bestpath="no")
    assert str(err.value).startswith("model 'pocketsphinx': option bestpath must be true or false")


def test_a_dict_spec_keeps_python_values_in_its_options(tmp_path):
    preds = tmp_path / "m.jsonl"
    preds.write_text(json.dumps({"audio_filepath": "c0", "text": "a", "pred_text": "a"}) + "\n", encoding="utf-8")
    spec = parse_spec({"out": str(tmp_path / "out"), "corpus": {"predictions": str(preds)},
                       "model": [{"spec": "pocketsphinx", "options": {"maxhmmpf": np.int64(3000),
                                                                      "beam": [np.float32(0.5)]}}]})
    assert spec.models[0].options == {"maxhmmpf": 3000, "beam": [0.5]}
    assert type(spec.models[0].options["maxhmmpf"]) is int
    assert json.loads(json.dumps(spec.to_json()))["models"][0]["options"] == {"maxhmmpf": 3000, "beam": [0.5]}


def test_group_values_from_a_frames_cells():
    pd = pytest.importorskip("pandas")
    panel = ["m1", "m2", "m3"]
    refs = {f"c{i}": f"madam president the report number {i} is late" for i in range(6)}
    clips = clip_inputs(refs, {m: {c: r.removeprefix("madam president ") for c, r in refs.items()} for m in panel},
                        "whisper")
    speakers = [np.int64(3), np.float32(3.0), 3.0, pd.NA, np.float32("nan"), pd.NaT]
    result = measure_refdis(clips, panel, RefdisParams(leave_one_out=False), scored=["m1"], n_boot=0,
                            groups=dict(zip(refs, speakers)))
    assert {group: by_model["m1"].n_eligible for group, by_model in result.by_group.items()} == {"3": 3, "(none)": 3}
