"""What a user sees names files relative to the spec or the working directory, never the machine's layout.

A report or a summary.json is shared; an absolute path in it tells the
reader where one machine kept its files (often a home folder and a user
name) and nothing they can use.
"""

from __future__ import annotations

import json
from pathlib import Path

from asraudit.cli import main
from asraudit.display_paths import display_model_spec, display_path
from asraudit.demo.organism import BENCHMARK_DIR
from asraudit.errors import InputError


def test_a_path_under_a_base_is_shown_relative_to_it(tmp_path):
    assert display_path(tmp_path / "preds" / "a.jsonl", tmp_path) == "preds/a.jsonl"
    assert display_path(tmp_path, tmp_path) == "."


def test_the_first_base_that_holds_the_path_wins(tmp_path):
    spec_dir = tmp_path / "audits"
    assert display_path(spec_dir / "out" / "x", spec_dir, tmp_path) == "out/x"
    assert display_path(tmp_path / "data" / "x", spec_dir, tmp_path) == "data/x"


def test_a_path_under_no_base_or_already_relative_is_shown_as_given(tmp_path):
    elsewhere = tmp_path.parent / "elsewhere" / "x.jsonl"
    assert display_path(elsewhere, tmp_path) == str(elsewhere)  # no ../ chain valid from one folder only
    assert display_path("preds/a.jsonl", tmp_path) == "preds/a.jsonl"


def test_model_specs_show_their_path_part_relative_and_names_unchanged(tmp_path):
    assert display_model_spec(f"replay:{tmp_path}/preds/a.jsonl", tmp_path) == "replay:preds/a.jsonl"
    assert display_model_spec(f"ct2:{tmp_path}/model", tmp_path) == "ct2:model"
    assert display_model_spec(str(tmp_path / "model"), tmp_path) == "model"
    for name in ("whisper-tiny.en", "hf:openai/whisper-base", "http://localhost:8000/v1"):
        assert display_model_spec(name, tmp_path) == name


def test_an_input_error_names_the_file_relative_to_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = InputError("bad row", tmp_path / "preds" / "a.jsonl", 3)
    assert str(err) == "preds/a.jsonl, row 3: bad row"
    assert err.source == str(tmp_path / "preds" / "a.jsonl")  # the full path is kept for code


def _write_preds(path: Path, rows, field: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"audio_filepath": r["audio_filepath"], "text": r["text"],
                                        "pred_text": r[field], "duration": r["duration"]}) + "\n"
                            for r in rows), encoding="utf-8")


def test_an_audit_run_from_a_folder_writes_and_prints_no_absolute_path_of_it(tmp_path, monkeypatch, capsys):
    rows = [json.loads(line) for line in (BENCHMARK_DIR / "test.jsonl").read_text(encoding="utf-8").splitlines()][:28]
    project = tmp_path / "project"
    for name, field in (("a", "spoken"), ("b", "spoken"), ("c", "spoken"), ("echo", "text")):
        _write_preds(project / "audits" / "preds" / f"{name}.jsonl", rows, field)
    spec = project / "audits" / "audit.toml"
    spec.write_text('name = "paths"\nout = "out"\nbootstrap = 50\n[corpus]\npredictions = "preds/a.jsonl"\n'
                    + "".join(f'[[model]]\npredictions = "preds/{m}.jsonl"\npanel = {str(m != "echo").lower()}\n'
                              for m in ("a", "b", "c", "echo"))
                    + "[refdis]\nmajority = 0.66\nmin_panel = 2\n", encoding="utf-8")
    monkeypatch.chdir(project)
    assert main(["audit", "audits/audit.toml", "--no-progress"]) == 0
    printed = capsys.readouterr()
    out = project / "audits" / "out"
    summary = (out / "summary.json").read_text(encoding="utf-8")
    report = (out / "report.html").read_text(encoding="utf-8")
    for text in (summary, report, printed.out, printed.err):
        assert str(tmp_path) not in text
    s = json.loads(summary)
    assert s["subtitle"].startswith("28 clips of preds/a.jsonl;")  # relative to the spec's folder
    prov = s["provenance"]
    assert prov["spec_file"] == "audits/audit.toml" and prov["store"] == "out/asraudit.sqlite"
    assert prov["corpus"]["source"] == "preds/a.jsonl" and prov["spec"]["out"] == "out"
    assert s["models"]["echo"]["spec"] == "replay:preds/echo.jsonl"
    assert "report: audits/out/report.html" in printed.out  # printed relative to the working directory


def test_an_out_folder_given_outside_the_spec_folder_is_shown_relative_to_the_working_directory(
        tmp_path, monkeypatch, capsys):
    rows = [json.loads(line) for line in (BENCHMARK_DIR / "test.jsonl").read_text(encoding="utf-8").splitlines()][:14]
    specs = tmp_path / "specs"
    for name in ("a", "b", "c"):
        _write_preds(specs / "preds" / f"{name}.jsonl", rows, "spoken")
    spec = specs / "audit.toml"
    spec.write_text('name = "paths"\nbootstrap = 20\n[corpus]\npredictions = "preds/a.jsonl"\n'
                    + "".join(f'[[model]]\npredictions = "preds/{m}.jsonl"\npanel = true\n' for m in "abc")
                    + "[refdis]\nmajority = 0.66\nmin_panel = 2\n", encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert main(["audit", str(spec), "--out", str(work / "result"), "--no-progress"]) == 0
    capsys.readouterr()
    summary = (work / "result" / "summary.json").read_text(encoding="utf-8")
    assert str(tmp_path) not in summary
    assert json.loads(summary)["provenance"]["spec"]["out"] == "result"
