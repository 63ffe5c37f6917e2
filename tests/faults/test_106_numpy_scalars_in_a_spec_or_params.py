"""Case 106: numpy scalars (a DataFrame's cell, an array's element) as the values of a spec or the miner's params.

``dataclasses.replace(spec, bootstrap=np.int64(20))`` (or ``seed``), and
``RefdisParams(min_panel=np.int64(2))`` given to an audit, passed every
check (a numpy integer is a whole number) and were kept as numpy: every
stage ran, then writing summary.json stopped with ``TypeError: Object of type
int64 is not JSON serializable``, a traceback after the work.  In a dict
spec (or ``RefdisParams`` built by hand) ``np.True_`` was refused as "must
be true or false" and ``np.float32(0.75)`` as not a number.  Now a numpy
scalar is the Python value it holds wherever a spec's or the params' value
is read (``asraudit.arguments.plain``).
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from asraudit import RefdisParams, parse_spec, run_audit

from conftest import panel_files

np = pytest.importorskip("numpy")

ROWS = [(f"c{i}", f"well the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(4)]


def spec_dict(tmp_path, out="out", **extra):
    folder = panel_files(tmp_path / "p", ROWS)
    return {"name": "t", "out": str(tmp_path / out), "corpus": {"predictions": str(folder / "m1.jsonl")},
            "model": [{"predictions": str(folder / f"{m}.jsonl"), "panel": np.bool_(True)} for m in ("m1", "m2", "m3")],
            **extra}


@pytest.mark.parametrize("change", [
    {"bootstrap": np.int64(20)},
    {"seed": np.int64(3)},
    {"refdis": RefdisParams(min_panel=np.int64(2), majority=np.float32(0.75), leave_one_out=np.bool_(True))},
])
def test_numpy_values_in_a_changed_spec_write_the_summary(tmp_path, change):
    spec = parse_spec({**spec_dict(tmp_path), "model": [{"predictions": str(tmp_path / "p" / f"{m}.jsonl"),
                                                          "panel": True} for m in ("m1", "m2", "m3")]})
    result = run_audit(replace(spec, **change), progress=False)
    summary = json.loads(result.summary_path.read_text(encoding="utf-8"))
    assert summary["models"]["m1"]["wer"] == pytest.approx(1 / 7)  # the numbers were written
    params = replace(spec, **change).refdis
    assert all(type(getattr(params, f)) in (int, float, bool) for f in ("majority", "min_panel", "leave_one_out"))


def test_numpy_values_in_a_dict_spec_are_their_python_values(tmp_path):
    data = spec_dict(tmp_path, refdis={"majority": np.float32(0.75), "min_panel": np.int64(3)},
                     bootstrap=np.int64(10), seed=np.int32(1))
    spec = parse_spec(data)
    assert [m.panel for m in spec.models] == [True, True, True] and type(spec.models[0].panel) is bool
    assert spec.refdis.majority == pytest.approx(0.75) and type(spec.refdis.majority) is float
    assert type(spec.refdis.min_panel) is int and type(spec.bootstrap) is int and type(spec.seed) is int
    result = run_audit(data, progress=False)
    assert json.loads(result.summary_path.read_text(encoding="utf-8"))["models"]["m1"]["wer"] == pytest.approx(1 / 7)
