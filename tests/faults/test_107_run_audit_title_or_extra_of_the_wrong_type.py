"""Case 107: ``run_audit(..., title=...)`` / ``extra=...`` of the wrong type, from Python.

``title=123`` (a run number) or ``title=["a"]`` ran the whole audit and
wrote the value into summary.json, which ``asraudit report`` then refused as
not a summary of its own layout (``at title: 123 is not of type 'string'``);
``extra="calib"`` ran every model, then stopped with ``TypeError: 'str'
object is not callable``, a traceback.  Now each is one line naming the
argument, before anything is read or written; a str title still replaces
the spec's name.
"""

from __future__ import annotations

import json

import pytest

from asraudit import InputError, run_audit

from conftest import panel_files

ROWS = [(f"c{i}", f"well the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(4)]


def spec(tmp_path) -> dict:
    folder = panel_files(tmp_path / "p", ROWS)
    return {"name": "t", "out": str(tmp_path / "out"), "corpus": {"predictions": str(folder / "m1.jsonl")},
            "model": [{"predictions": str(folder / f"{m}.jsonl"), "panel": True} for m in ("m1", "m2", "m3")]}


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"title": 123}, "title is the report's title, a str, got 123"),
    ({"title": ["a"]}, "title is the report's title, a str, got ['a']"),
    ({"title": b"run 3"}, "title is the report's title, a str, got b'run 3'"),
    ({"extra": "calib"}, "extra is a function of (context, result) run as the last stage, got 'calib'"),
])
def test_a_title_or_extra_of_the_wrong_type_is_refused_before_any_work(tmp_path, kwargs, message):
    with pytest.raises(InputError) as err:
        run_audit(spec(tmp_path), progress=False, **kwargs)
    assert str(err.value) == message
    assert not (tmp_path / "out").exists()


def test_a_str_title_still_names_the_report(tmp_path, cli):
    result = run_audit(spec(tmp_path), progress=False, title="run 3")
    assert json.loads(result.summary_path.read_text(encoding="utf-8"))["title"] == "run 3"
    ran = cli("report", result.summary_path, "--out", tmp_path / "again.html")
    assert ran.code == 0 and (tmp_path / "again.html").is_file()
