"""Case 13: an output named after an input file is refused before any work; the input is left as it was.

``wer --json``, ``conventions --json`` and every ``refdis`` output
(``--json``, ``--edits-out``, ``--corrected-out``, ``--review-sheet``) named
after one of the prediction files they read (or ``--manifest``,
``--corrected``, ``--review``) replaced that file with their own output, exit
0; ``preds --export`` into the folder it read rewrote the files in its
layout (dropping every other column); an audit replaying an earlier audit's
``<out>/preds`` files into the same ``out`` rewrote them.  Two outputs on one
path kept only the last.  A symlink or hard link to an input is that input.
"""

from __future__ import annotations

import json
import os

import pytest

from conftest import panel_files

ROWS = [(f"c{i}.wav", f"well the cat sat on mat {i}", f"the cat sat on the mat {i}") for i in range(4)]


@pytest.fixture()
def preds(tmp_path):
    d = panel_files(tmp_path / "preds", ROWS)
    with (d / "m1.jsonl").open("a", encoding="utf-8") as fh:  # a column the export would drop
        fh.write(json.dumps({"audio_filepath": "x.wav", "text": "a", "pred_text": "a", "speaker": "s1"}) + "\n")
    return d


def _snapshot(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.mark.parametrize("command", [
    ("wer", "--json"), ("conventions", "--json"), ("refdis", "--json"), ("refdis", "--edits-out"),
    ("refdis", "--corrected-out"), ("refdis", "--review-sheet"),
])
def test_an_output_named_after_a_prediction_file_is_refused(preds, cli, command):
    name, flag = command
    before = _snapshot(preds)
    panel = ("--panel", "m1,m2,m3") if name == "refdis" else ()
    ran = cli(name, "--preds", preds, *panel, flag, preds / "m2.jsonl")
    assert ran.code == 2 and ran.out == ""
    assert ran.error_lines == [f"asraudit: error: {preds / 'm2.jsonl'}: {flag} would overwrite the prediction file "
                               "of model m2, an input: write it to another file"]
    assert _snapshot(preds) == before


def test_a_link_to_an_input_and_the_other_inputs_are_inputs_too(preds, tmp_path, cli):
    before = _snapshot(preds)
    link = tmp_path / "scores.json"
    os.symlink(preds / "m1.jsonl", link)
    ran = cli("wer", "--preds", preds, "--json", link)
    assert ran.error_lines == [f"asraudit: error: {link}: --json would overwrite the prediction file of model m1, "
                               "an input: write it to another file"]
    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text("".join(json.dumps({"audio_filepath": c, "speaker": "s"}) + "\n" for c, _, _ in ROWS))
    ran = cli("wer", "--preds", preds, "--group-field", "speaker", "--manifest", manifest, "--json", manifest)
    assert ran.error_lines == [f"asraudit: error: {manifest}: --json would overwrite --manifest, an input: "
                               "write it to another file"]
    corrected = tmp_path / "corrected.jsonl"
    corrected.write_text(json.dumps({"audio_filepath": "c0.wav", "corrected_text": "the cat sat on the mat 0"}) + "\n")
    kept = corrected.read_bytes()
    ran = cli("refdis", "--preds", preds, "--corrected", corrected, "--corrected-out", corrected)
    assert ran.error_lines == [f"asraudit: error: {corrected}: --corrected-out would overwrite --corrected, an input: "
                               "write it to another file"]
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("edit_id,kind,judgement\ne1,delete,yes\n", encoding="utf-8")
    ran = cli("refdis", "--review", sheet, "--json", sheet)
    assert ran.error_lines == [f"asraudit: error: {sheet}: --json would overwrite --review, an input: "
                               "write it to another file"]
    ran = cli("refdis", "--preds", preds, "--panel", "m1,m2,m3", "--review-sheet", sheet, "--review", sheet)
    assert ran.error_lines == [f"asraudit: error: {sheet}: --review-sheet would overwrite --review, an input: "
                               "write it to another file"]
    assert corrected.read_bytes() == kept
    assert sheet.read_text(encoding="utf-8") == "edit_id,kind,judgement\ne1,delete,yes\n"  # the judgements kept
    assert _snapshot(preds) == before


def test_two_outputs_on_one_path_are_refused(preds, tmp_path, cli):
    out = tmp_path / "out.json"
    ran = cli("refdis", "--preds", preds, "--panel", "m1,m2,m3", "--json", out, "--edits-out", out)
    assert ran.code == 2 and ran.out == ""
    assert ran.error_lines == [f"asraudit: error: {out}: --json and --edits-out name the same file: give each its own"]
    assert not out.exists()


def test_preds_export_into_the_folder_it_reads_is_refused(preds, tmp_path, cli):
    before = _snapshot(preds)
    ran = cli("preds", "--preds", preds, "--export", preds)
    assert ran.code == 2 and ran.out == ""
    assert ran.error_lines == [f"asraudit: error: {preds / 'm1.jsonl'}: --export would overwrite the prediction file "
                               "of model m1, an input: write it to another file"]
    assert _snapshot(preds) == before
    elsewhere = cli("preds", "--preds", preds, "--export", tmp_path / "export")
    assert elsewhere.code == 0, elsewhere.err
    assert sorted(p.name for p in (tmp_path / "export").iterdir()) == ["m1.jsonl", "m2.jsonl", "m3.jsonl"]


def test_an_audit_replaying_its_own_exports_into_the_same_out_is_refused(preds, tmp_path, cli):
    exported = tmp_path / "out" / "preds"
    exported.mkdir(parents=True)
    for name in ("m1", "m2", "m3"):
        (exported / f"{name}.jsonl").write_bytes((preds / f"{name}.jsonl").read_bytes())
    before = _snapshot(exported)
    models = "".join(f'[[model]]\npredictions = "out/preds/{n}.jsonl"\npanel = true\n\n' for n in ("m1", "m2", "m3"))
    spec = tmp_path / "audit.toml"
    spec.write_text(f'out = "out"\nbootstrap = 20\n[corpus]\npredictions = "{preds / "m2.jsonl"}"\n\n{models}'
                    "[refdis]\nmajority = 0.66\nmin_panel = 2\n", encoding="utf-8")
    for args in (("--check",), ("--no-progress",)):
        ran = cli("audit", spec, *args)
        assert ran.code == 2
        assert ran.error_lines == [
            f"asraudit: error: {spec}: {exported / 'm1.jsonl'}: the audit's export of model 'm1' would overwrite the "
            "prediction file of [[model]] #1, an input: choose another out, or move the input out of <out>/preds"]
    assert _snapshot(exported) == before
