"""Case 249: ``asraudit report`` over a summary.json damaged or merged by hand: a model's entry given twice in
``models`` (an entry pasted again and edited), a number of 5,001 digits, arrays nested 100,000 deep, a file
saved as UTF-16 (case 228 was the paper's release).

Before, the summary was read with ``json.loads``: the model given twice kept its last entry and the page was
written from it with no word, exit 0; the long number and the nesting were ``ValueError`` and ``RecursionError``
tracebacks; UTF-16 was ``'utf-8' codec can't decode byte 0xff``."""

from __future__ import annotations

import json

import pytest

from conftest import text_only_audit_summary


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    path = text_only_audit_summary(tmp_path_factory.mktemp("audit"), n_clips=4, bootstrap=0)
    return path.read_text(encoding="utf-8")


def _report(cli, tmp_path, raw):
    path = tmp_path / "summary.json"
    if isinstance(raw, bytes):
        path.write_bytes(raw)
    else:
        path.write_text(raw, encoding="utf-8")
    page = tmp_path / "page.html"
    ran = cli("report", path, "--out", page)
    return ran, path, page


def test_a_model_given_twice_is_refused(summary, cli, tmp_path):
    data = json.loads(summary)
    m3 = json.dumps(data["models"]["m3"])
    first = json.dumps({"m3": {**data["models"]["m3"], "wer": 0.01}})[1:-1]  # the entry pasted, then edited
    raw = json.dumps(data).replace(f'"m3": {m3}', f'{first}, "m3": {m3}', 1)
    assert raw.count('"m3": {"spec"') == 2
    ran, path, page = _report(cli, tmp_path, raw)
    assert ran.code == 2 and not page.exists()
    assert ran.error_lines == [f"asraudit: error: {path}: key 'm3' is given twice in one object, and a JSON reader "
                               "keeps only the last value, without a word: keep one"]


@pytest.mark.parametrize("damage, message", [
    (lambda s: s.replace('"title": "t"', '"title": "t", "x": 1' + "0" * 5000, 1),
     "not a JSON file Python reads: a number of more than 4300 digits, more than any field holds (a damaged file?)"),
    (lambda s: s.rstrip()[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
     "not a JSON file Python reads: arrays or objects nested deeper than Python reads (a damaged file?)"),
])
def test_a_damaged_file_is_one_line(summary, cli, tmp_path, damage, message):
    ran, path, page = _report(cli, tmp_path, damage(summary))
    assert ran.code == 2 and not page.exists()
    assert ran.error_lines == [f"asraudit: error: {path}: {message}"]


def test_utf16_is_named_and_the_summary_as_written_renders(summary, cli, tmp_path):
    ran, path, page = _report(cli, tmp_path, summary.encode("utf-16"))
    assert ran.error_lines == [f"asraudit: error: {path}, row 1: UTF-16 text (its byte-order mark starts the file), "
                               "not UTF-8: save the file as UTF-8"]
    ran, path, page = _report(cli, tmp_path, "\ufeff" + summary)  # a Windows editor's mark, read as before
    assert ran.code == 0, ran.err
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
