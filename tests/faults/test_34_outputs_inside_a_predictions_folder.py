"""Case 34: an output written into the predictions folder a command reads is refused.

``refdis --preds preds/ --edits-out preds/edits.jsonl`` (or ``--corrected-out``,
``--review-sheet preds/sheet.csv``, ``--json preds/r.json``; ``wer`` and
``conventions --json preds/w.json``) wrote the file among the prediction
files, and the next run read it as a model: ``asraudit: error:
preds/corr.jsonl, row 1: missing column(s) for hypothesis``, or, for an edits
file with no edits, a model ``edits`` that ran no clip.  Chosen over the
loader recognising asraudit's own files: a folder is one model per file by
contract, and an output that is refused up front cannot be half-recognised
later.  Files named one by one (``--preds m1.jsonl m2.jsonl``) may still sit
beside their outputs, and a subfolder is not read.
"""

from __future__ import annotations

import pytest

from conftest import PANEL, panel_files

ROWS = [(f"c{i}", f"the cat sat on the mat number {i}", f"the dog sat on the mat number {i}") for i in range(4)]


@pytest.mark.parametrize("command, option, name", [
    (("refdis", "--panel", ",".join(PANEL)), "--edits-out", "edits.jsonl"),
    (("refdis", "--panel", ",".join(PANEL)), "--corrected-out", "corrected.jsonl"),
    (("refdis", "--panel", ",".join(PANEL)), "--review-sheet", "sheet.csv"),
    (("refdis", "--panel", ",".join(PANEL)), "--json", "r.json"),
    (("wer",), "--json", "w.json"),
    (("conventions",), "--json", "c.json"),
])
def test_an_output_in_the_folder_read_is_refused(tmp_path, cli, command, option, name):
    preds = panel_files(tmp_path / "preds", ROWS)
    ran = cli(command[0], "--preds", preds, *command[1:], option, preds / name)
    assert ran.code == 2
    suffix = name.rsplit(".", 1)[1]
    assert ran.error_lines == [
        f"asraudit: error: {preds / name}: {option} is in the predictions folder {preds}, whose every .{suffix} file "
        f"is read as a model's predictions: the next run would read it as model '{name.rsplit('.', 1)[0]}'; write "
        "it outside the folder"]
    assert ran.out == ""
    assert sorted(p.name for p in preds.iterdir()) == [f"{m}.jsonl" for m in PANEL]
    assert cli("wer", "--preds", preds).code == 0  # the next run reads the three models


def test_outputs_outside_the_folder_or_beside_files_named_one_by_one_are_written(tmp_path, cli):
    preds = panel_files(tmp_path / "preds", ROWS)
    ran = cli("refdis", "--preds", preds, "--panel", ",".join(PANEL), "--edits-out", preds / "sub" / "edits.jsonl",
              "--json", tmp_path / "r.json")
    assert ran.code == 0, ran.err
    files = [preds / f"{m}.jsonl" for m in PANEL]
    ran = cli("wer", "--preds", *files, "--json", preds / "w.json")
    assert ran.code == 0, ran.err
    assert (preds / "sub" / "edits.jsonl").is_file() and (preds / "w.json").is_file()


def test_an_audit_whose_out_is_its_prediction_files_folder_is_refused_by_check(tmp_path, cli, monkeypatch):
    """The audit wrote summary.json among the prediction files it replayed; `wer --preds` over that folder
    then stopped on `summary.json, row 1: broken JSON row`.  Refused by --check; another out runs."""
    monkeypatch.chdir(tmp_path)
    panel_files(tmp_path, ROWS)
    models = "".join(f'[[model]]\npredictions = "{m}.jsonl"\npanel = true\n' for m in PANEL)
    spec = tmp_path / "audit.toml"
    spec.write_text(f'out = "."\n[corpus]\npredictions = "m1.jsonl"\n{models}', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert (ran.code, ran.error_lines) == (2, [
        "asraudit: error: audit.toml: out . is the folder of the corpus's prediction file m1.jsonl: its summary.json "
        "would lie among prediction files, and a run over that folder would read it as a model: choose another out"])
    spec.write_text(f'out = "audit-out"\n[corpus]\npredictions = "m1.jsonl"\n{models}', encoding="utf-8")
    assert cli("audit", spec, "--check").code == 0
