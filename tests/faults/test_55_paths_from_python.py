"""Case 55: paths from Python: None, a number, bytes, a dict, an empty list or string, pathlib objects.

``load_predictions(None)`` was ``TypeError: 'NoneType' object is not
iterable``, bytes ``expected str, bytes or os.PathLike object, not int`` (it
was iterated), ``[]`` an empty set of models, silently; ``load_corpus``,
``load_spec``, ``ResultStore`` and ``run_audit(..., out=3)`` gave pathlib's
``TypeError``; ``parse_spec([...])`` a ``dict`` ``TypeError``;
``load_model(None)`` ``'NoneType' object has no attribute 'strip'``.  A dict
spec holding ``pathlib.Path`` values (what a notebook has) was refused:
``predictions must be a string, got PosixPath('...')``.  And ``out = ""``
(in a spec file or a dict) is the spec's own folder to pathlib: the audit
wrote its store, ``preds/``, ``tables/``, ``summary.json`` and
``report.html`` among the user's files.  Now each is one line naming the
argument, nothing written; ``Path`` values go wherever a path does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from asraudit import (InputError, ResultStore, load_corpus, load_model, load_predictions, load_spec, parse_spec,
                      run_audit)

from conftest import files_under, panel_files

ROWS = [(f"c{i}", f"well the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(4)]


def refused(call) -> str:
    with pytest.raises(InputError) as err:
        call()
    return str(err.value)


def test_one_line_for_what_is_not_a_path(tmp_path):
    folder = panel_files(tmp_path / "p", ROWS)
    assert refused(lambda: load_predictions(None)) == \
        "paths is a path or a list of paths (str or pathlib.Path), got None"
    assert refused(lambda: load_predictions([])) == "paths is empty: name a folder of files or the files"
    assert refused(lambda: load_predictions(b"p")) == \
        "paths is a path (a str or pathlib.Path), got the bytes b'p': decode it (os.fsdecode)"
    assert refused(lambda: load_predictions({"m1": folder / "m1.jsonl"})).startswith(
        "paths is a path or a list of paths (str or pathlib.Path), got {'m1': ")
    assert refused(lambda: load_predictions("")) == \
        "paths is an empty path: name a file or folder ('.' for the working directory)"
    assert refused(lambda: load_corpus(None)) == "spec is a path (a str or pathlib.Path), got None"
    assert refused(lambda: load_spec(None)) == "path is a path (a str or pathlib.Path), got None"
    assert refused(lambda: ResultStore(3)) == "path is a path (a str or pathlib.Path), got 3"
    assert refused(lambda: parse_spec([1])) == "<spec>: an audit spec is a dict shaped like the TOML file, got list"
    assert refused(lambda: load_model(None)) == "spec is a model's name or a path, got None"
    assert load_predictions([folder / "m1.jsonl", str(folder / "m2.jsonl")]).model_names == ["m1", "m2"]
    assert files_under(tmp_path) == {"p/m1.jsonl", "p/m2.jsonl", "p/m3.jsonl"}


def _spec(folder: Path, out) -> dict:
    return {"name": "t", "out": out, "corpus": {"predictions": folder / "m1.jsonl"},
            "model": [{"predictions": folder / f"{m}.jsonl", "panel": True} for m in ("m1", "m2", "m3")]}


def test_a_dict_spec_takes_pathlib_paths(tmp_path):
    folder = panel_files(tmp_path / "p", ROWS)
    result = run_audit(_spec(folder, tmp_path / "out"), progress=False)
    assert sorted(result.flags) == ["m1", "m2", "m3"]
    assert result.summary_path == tmp_path / "out" / "summary.json"
    assert refused(lambda: run_audit(_spec(folder, tmp_path / "out"), out=3, progress=False)) == \
        "out is a path (a str or pathlib.Path), got 3"


def test_an_empty_out_is_refused_and_nothing_is_written(tmp_path, cli):
    folder = panel_files(tmp_path / "data", ROWS)
    before = files_under(tmp_path)
    assert refused(lambda: run_audit(_spec(folder, ""), progress=False)) == \
        "<spec dict>: spec: out is an empty path: name a folder"
    assert refused(lambda: run_audit(_spec(folder, "out"), out="", progress=False)) == \
        "out is an empty path: name a file or folder ('.' for the working directory)"
    models = "".join(f'[[model]]\npredictions = "data/{m}.jsonl"\npanel = true\n' for m in ("m1", "m2", "m3"))
    spec = tmp_path / "a.toml"
    spec.write_text(f'name = "x"\nout = ""\n[corpus]\npredictions = "data/m1.jsonl"\n{models}', encoding="utf-8")
    ran = cli("audit", spec, "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {spec}: spec: out is an empty path: name a folder"])
    assert files_under(tmp_path) == before | {"a.toml"}  # no store, preds/, tables/ or report beside the spec
