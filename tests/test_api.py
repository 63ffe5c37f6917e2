"""The public API: `from asraudit import ...` offers what a notebook needs, typed, documented and light to import.

``import asraudit`` must not load torch, CTranslate2, pyarrow or Ray: a
text-only user would wait seconds and need the model extras for nothing.
The convenience over the reference-error recipe must give the numbers
``asraudit refdis`` prints, since both are the same recipe.
"""

from __future__ import annotations

import inspect
import json
import re
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import asraudit
from asraudit.cli import main
from asraudit.demo.organism import BENCHMARK_DIR

HEAVY = ("torch", "transformers", "ctranslate2", "pyarrow", "ray")
SRC = Path(asraudit.__file__).resolve().parents[1]


def _modules_loaded_by(code: str) -> set[str]:
    """Top-level packages in sys.modules after ``code`` runs in a fresh interpreter (this checkout first)."""
    probe = f"{code}\nimport sys, json\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120,
                         env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"})
    return set(json.loads(out.stdout.splitlines()[-1]))


def test_importing_asraudit_loads_no_model_backend_nor_pyarrow_nor_ray():
    loaded = _modules_loaded_by("import asraudit")
    assert "asraudit" in loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_the_text_only_path_loads_no_model_backend():
    loaded = _modules_loaded_by("from asraudit import accept_ref_from_predictions, load_predictions, get_normalizer")
    assert not loaded & {"torch", "transformers", "ctranslate2", "ray"}


def test_importing_asraudit_keeps_passive_openmp_waiting():
    out = subprocess.run([sys.executable, "-c", "import os, asraudit; print(os.environ['OMP_WAIT_POLICY'])"],
                         capture_output=True, text=True, check=True, timeout=60,
                         env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"})
    assert out.stdout.strip() == "PASSIVE"


def test_every_exported_name_resolves_and_is_documented():
    assert len(set(asraudit.__all__)) == len(asraudit.__all__)
    for name in asraudit.__all__:
        value = getattr(asraudit, name)
        if name != "__version__":
            assert inspect.getdoc(value), f"{name} has no docstring"
    assert set(asraudit.__all__) <= set(dir(asraudit))
    with pytest.raises(AttributeError):
        asraudit.no_such_name  # noqa: B018


def test_every_exported_function_has_typed_parameters_and_return():
    functions = [n for n in asraudit.__all__ if inspect.isfunction(getattr(asraudit, n))]
    assert {"load_predictions", "load_corpus", "load_model", "get_normalizer", "accept_ref_from_predictions",
            "measure_refdis", "corpus_wer", "run_audit", "load_spec", "parse_spec"} <= set(functions)
    for name in functions:
        fn = getattr(asraudit, name)
        hints = typing.get_type_hints(fn)  # resolves every annotation: a typo in one fails here
        params = inspect.signature(fn).parameters
        untyped = [p for p in params if p not in hints]
        assert not untyped, f"{name}: untyped parameters {untyped}"
        assert "return" in hints, f"{name}: no return type"


def test_every_documented_name_is_exported_and_every_export_documented():
    page = (SRC.parent / "docs" / "python-api.md").read_text(encoding="utf-8")
    # the first cell of each table row names one or more exports: `load_model(spec, ...)`, `Corpus`, `Clip`
    listed = {name for line in page.splitlines() if line.startswith("| `")
              for name in re.findall(r"`(\w+)", line.split("|")[1])}
    assert listed == set(asraudit.__all__)


def _rows(n: int) -> list[dict]:
    lines = (BENCHMARK_DIR / "test.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[:n]]


def _write_preds(folder: Path, rows, field_of: dict[str, str]) -> Path:
    """One leaderboard file per model; durations given, so a text-only audit needs no audio."""
    folder.mkdir(parents=True, exist_ok=True)
    for model, field in field_of.items():
        (folder / f"{model}.jsonl").write_text(
            "".join(json.dumps({"audio_filepath": r["audio_filepath"], "text": r["text"], "pred_text": r[field],
                                "duration": r["duration"]}) + "\n" for r in rows), encoding="utf-8")
    return folder


def test_accept_ref_from_predictions_gives_the_numbers_asraudit_refdis_prints(tmp_path, capsys):
    rows = _rows(56)
    # The panel writes what was said; "echo" writes the reference, errors included; "half" echoes every other clip.
    for i, r in enumerate(rows):
        r["half"] = r["text"] if i % 2 else r["spoken"]
    # Four members, so each one's leave-one-out panel still has the default minimum of three.
    panel = ["p1", "p2", "p3", "p4"]
    preds = _write_preds(tmp_path / "preds", rows, {**{m: "spoken" for m in panel}, "echo": "text", "half": "half"})
    result = asraudit.accept_ref_from_predictions(asraudit.load_predictions(preds), panel)
    assert main(["refdis", "--preds", str(preds), "--panel", ",".join(panel), "--json", str(tmp_path / "r.json")]) == 0
    capsys.readouterr()
    cli = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert len(result.edits) == cli["n_edits"] > 10
    for model, a in result.accept_ref.items():
        assert a.to_json() == cli["accept_ref"][model]
    assert result.accept_ref["echo"].rate == 1.0 and result.accept_ref["p1"].rate == 0.0
    assert 0.2 < result.accept_ref["half"].rate < 0.8
    # A folder path works as well as a loaded PredictionSet.
    again = asraudit.accept_ref_from_predictions(preds, panel, models=["echo"])
    assert list(again.accept_ref) == ["echo"] and again.accept_ref["echo"].n_ref == result.accept_ref["echo"].n_ref


def test_accept_ref_from_predictions_refuses_a_panel_without_files(tmp_path):
    rows = _rows(5)
    preds = _write_preds(tmp_path / "preds", rows, {"p1": "spoken", "p2": "spoken"})
    with pytest.raises(asraudit.InputError, match="no prediction file for model"):
        asraudit.accept_ref_from_predictions(preds, ["p1", "p2", "p3"])


def test_run_audit_takes_a_dict_or_a_toml_path_and_out_overrides(tmp_path, monkeypatch):
    _write_preds(tmp_path / "preds", _rows(14), {"a": "spoken", "b": "spoken"})
    spec = {"corpus": {"predictions": "preds/a.jsonl"}, "refdis": {"min_panel": 2},
            "model": [{"predictions": "preds/a.jsonl", "panel": True}, {"predictions": "preds/b.jsonl", "panel": True}]}
    monkeypatch.chdir(tmp_path)
    from_dict = asraudit.run_audit(spec, out="from-dict", progress=False)
    assert from_dict.summary_path.resolve() == (tmp_path / "from-dict" / "summary.json").resolve()  # out: from the cwd
    assert from_dict.summary_path.is_file()
    toml = "\n".join(['[corpus]', 'predictions = "preds/a.jsonl"', '[refdis]', 'min_panel = 2',
                      '[[model]]', 'predictions = "preds/a.jsonl"', 'panel = true',
                      '[[model]]', 'predictions = "preds/b.jsonl"', 'panel = true', ''])
    (tmp_path / "audit.toml").write_text(toml, encoding="utf-8")
    from_file = asraudit.run_audit(tmp_path / "audit.toml", out=tmp_path / "from-file", progress=False)
    assert from_file.summary["models"].keys() == from_dict.summary["models"].keys()
    with pytest.raises(asraudit.InputError, match="a dict, a TOML file path or an AuditSpec"):
        asraudit.run_audit(42)  # type: ignore[arg-type]
