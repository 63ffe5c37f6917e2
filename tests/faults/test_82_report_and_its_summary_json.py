"""Case 82: ``asraudit report`` and the summary.json it renders.

``asraudit report out/summary.json --out out/summary.json`` (a completed path
one word short), or ``--out`` a link to it, replaced the audit's summary, its
only record, with HTML, exit 0; a summary saved as ``report.html`` was
replaced the same way by the page's default name.  The page can be rendered
again from the summary at will, never the other way round: the output is
refused before anything is written, the summary untouched.

A summary.json saved back by another tool: whole numbers written as floats
(``"span": [1.0, 2.0]``, ``"votes": 3.0``; JSON Schema's integer allows them,
and pandas or numpy write them so) stopped the page with ``TypeError: slice
indices must be integers`` (a traceback); a UTF-8 byte-order mark (a Windows
editor) was refused.  Both are read as the audit wrote them.  A lone surrogate
(``"\\ud83d"``, half of an emoji) stopped the page with ``UnicodeEncodeError``
as it was written; it is refused naming its place, as in a prediction file.
"""

from __future__ import annotations

import json
import os

import pytest

from conftest import write_preds

ROWS = [(f"c{i}.wav", f"mr smith said the cat sat on mat {i}", f"mister smith said the cat sat on the mat {i}")
        for i in range(6)]


@pytest.fixture()
def audit_out(tmp_path, cli):
    """The out folder of a small text-only audit (three replayed panel models)."""
    models = ""
    for i in range(3):
        write_preds(tmp_path / f"m{i}.jsonl", ROWS)
        models += f'[[model]]\npredictions = "m{i}.jsonl"\npanel = true\n\n'
    spec = tmp_path / "audit.toml"
    spec.write_text(f'name = "t"\nout = "out"\nbootstrap = 20\n[corpus]\npredictions = "m0.jsonl"\n\n{models}',
                    encoding="utf-8")
    ran = cli("audit", spec, "--no-progress")
    assert ran.code == 0, ran.err
    return tmp_path / "out"


def test_out_over_the_summary_or_a_link_to_it_is_refused(audit_out, cli):
    summary = audit_out / "summary.json"
    before = summary.read_bytes()
    ran = cli("report", summary, "--out", summary)
    assert ran.code == 2 and ran.out == ""
    assert ran.error_lines == [f"asraudit: error: {summary}: --out would overwrite the summary.json it renders, "
                               "an input: write the page to another file"]
    link = audit_out / "page.html"
    os.symlink(summary, link)
    ran = cli("report", audit_out, "--out", link)
    assert ran.error_lines == [f"asraudit: error: {link}: --out would overwrite the summary.json it renders, "
                               "an input: write the page to another file"]
    assert summary.read_bytes() == before
    ran = cli("report", audit_out, "--out", audit_out / "again.html")  # any other file is written as before
    assert ran.code == 0 and (audit_out / "again.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert summary.read_bytes() == before


def test_a_summary_named_report_html_is_not_replaced_by_the_default_page(audit_out, cli):
    saved = audit_out / "kept" / "report.html"
    saved.parent.mkdir()
    saved.write_bytes((audit_out / "summary.json").read_bytes())
    ran = cli("report", saved)
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {saved}: the page's default name (report.html beside it) would "
                               "overwrite the summary.json it renders, an input: name the page with --out FILE"]
    assert saved.read_bytes() == (audit_out / "summary.json").read_bytes()
    assert cli("report", saved, "--out", audit_out / "kept" / "page.html").code == 0


def test_a_summary_saved_back_by_another_tool_renders_the_same_page(audit_out, cli):
    summary = audit_out / "summary.json"
    data = json.loads(summary.read_text(encoding="utf-8"))
    assert data["edits"], "the audit mined no edit to render"
    assert cli("report", summary, "--out", audit_out / "own.html").code == 0
    for edit in data["edits"]:  # every integer of the edits as a float, as a float column writes it
        edit["span"] = [float(v) for v in edit["span"]]
        edit["votes"], edit["n_panel"] = float(edit["votes"]), float(edit["n_panel"])
    for name in data["models"]:
        data["models"][name]["n_eligible"] = float(data["models"][name]["n_eligible"])
    resaved = audit_out / "resaved" / "summary.json"
    resaved.parent.mkdir()
    resaved.write_text("\ufeff" + json.dumps(data, indent=1), encoding="utf-8")  # with a byte-order mark
    assert resaved.read_bytes().startswith(b"\xef\xbb\xbf")
    ran = cli("report", resaved, "--out", audit_out / "resaved.html")
    assert ran.code == 0, ran.err
    assert (audit_out / "resaved.html").read_text(encoding="utf-8") == (audit_out / "own.html").read_text(
        encoding="utf-8")


def test_a_lone_surrogate_in_a_resaved_summary_is_named_not_a_traceback(audit_out, cli):
    data = json.loads((audit_out / "summary.json").read_text(encoding="utf-8"))
    data["title"] = "audit \ud83d of the week"  # half of an emoji, as a JSON \u escape writes it
    bad = audit_out / "bad" / "summary.json"
    bad.parent.mkdir()
    bad.write_text(json.dumps(data), encoding="ascii")
    ran = cli("report", bad)
    assert ran.code == 2 and ran.out == ""
    assert ran.error_lines == [f"asraudit: error: {bad}: at title: a text holds a lone surrogate (\\ud83d at character "
                               "6), half of a UTF-16 pair and no character: the file's writer split a character (a "
                               "JSON \\u escape without its partner); remove it or write the whole character"]
    assert not (bad.parent / "report.html").exists()


def test_a_schema_version_saved_as_a_number_says_so(audit_out, cli):
    """``"schema_version": 2.4`` was refused as "schema_version 2.4, this asraudit reads ... or 2.4"."""
    summary = audit_out / "summary.json"
    data = json.loads(summary.read_text(encoding="utf-8"))
    version = data["schema_version"]
    data["schema_version"] = float(version)
    summary.write_text(json.dumps(data), encoding="utf-8")
    ran = cli("report", summary, "--out", audit_out / "page.html")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {summary}: schema_version must be a string (\"{version}\"), got the float {float(version)}"]
