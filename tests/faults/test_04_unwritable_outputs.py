"""Case 4: an output path that cannot be written is one line naming it, exit 2, before any work.

``transcribe --out``, ``wer --json``, ``refdis --edits-out``, ``preds
--export`` and an audit's ``out`` raised PermissionError / NotADirectoryError
/ FileNotFoundError tracebacks; ``wer --json`` printed its table first, and
``audit --check`` passed an ``out`` it could not write.

The suite runs as root on some machines, where permission bits do not stop
a write; a regular file where a parent folder should be stops everyone, so
that is the main variant, and the read-only folder one runs for other users.
"""

from __future__ import annotations

import json
import os

import pytest

from conftest import panel_files

ROWS = [("a", "the cat sat", "the cat sat"), ("b", "twenty dogs", "20 dogs"), ("c", "one two", "one two")]


@pytest.fixture()
def blocked(tmp_path):
    """A regular file; any path below it cannot be created by anyone."""
    f = tmp_path / "not-a-folder"
    f.write_text("x", encoding="utf-8")
    return f


@pytest.fixture()
def preds(tmp_path):
    return panel_files(tmp_path / "preds", ROWS)


def test_wer_json_under_a_file_fails_before_printing_the_table(preds, blocked, cli):
    target = blocked / "w.json"
    ran = cli("wer", "--preds", preds, "--json", target)
    assert ran.error_lines == [f"asraudit: error: {target}: cannot write --json: {blocked} is a file, not a folder"]
    assert ran.code == 2 and ran.out == ""  # no table before the failure


def test_refdis_edits_out_and_preds_export_under_a_file_are_clear_errors(preds, blocked, cli):
    edits = blocked / "edits.jsonl"
    ran = cli("refdis", "--preds", preds, "--panel", "m1,m2,m3", "--edits-out", edits)
    assert ran.error_lines == [f"asraudit: error: {edits}: cannot write --edits-out: {blocked} is a file, not a folder"]
    assert ran.code == 2 and ran.out == ""
    export = blocked / "export"
    ran = cli("preds", "--preds", preds, "--export", export)
    assert ran.error_lines == [f"asraudit: error: {export}: cannot create --export: {blocked} is a file, not a folder"]
    assert ran.code == 2 and ran.out == ""


def test_transcribe_out_under_a_file_fails_before_any_model_runs(preds, blocked, tmp_path, cli):
    out = blocked / "out"
    ran = cli("transcribe", "--model", f"replay:{preds / 'm1.jsonl'}", "--corpus", preds / "m1.jsonl",
              "--out", out, "--no-progress")
    assert ran.error_lines == [f"asraudit: error: {out}: cannot create --out: {blocked} is a file, not a folder"]
    assert ran.code == 2 and ran.out == ""


def test_audit_check_refuses_an_out_it_cannot_write(preds, blocked, tmp_path, cli):
    out = blocked / "audit-out"
    models = "".join(f'[[model]]\npredictions = "{preds / f"m{i}.jsonl"}"\npanel = true\n' for i in (1, 2, 3))
    spec = tmp_path / "a.toml"
    spec.write_text(f'name = "x"\nout = {json.dumps(str(out))}\n[corpus]\npredictions = "{preds / "m1.jsonl"}"\n'
                    + models, encoding="utf-8")
    for extra in (["--check"], ["--no-progress"]):
        ran = cli("audit", spec, *extra)
        assert ran.error_lines == [f"asraudit: error: {out}: cannot create the audit's out: {blocked} is a file, "
                                   "not a folder"]
        assert ran.code == 2


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through permission bits; the file-parent cases cover it")
def test_a_read_only_folder_is_named_as_unwritable(preds, tmp_path, cli):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        target = ro / "w.json"
        ran = cli("wer", "--preds", preds, "--json", target)
        assert ran.error_lines == [f"asraudit: error: {target}: cannot write --json: no write permission in {ro}"]
        assert ran.code == 2 and ran.out == ""
    finally:
        ro.chmod(0o700)


def test_conventions_json_under_a_file_fails_before_printing_the_tables(preds, blocked, cli):
    target = blocked / "c.json"
    ran = cli("conventions", "--preds", preds, "--json", target)
    assert ran.error_lines == [f"asraudit: error: {target}: cannot write --json: {blocked} is a file, not a folder"]
    assert ran.code == 2 and ran.out == ""
