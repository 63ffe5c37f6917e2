"""Case 16: a review sheet filled in a spreadsheet and saved back.

``refdis --review`` read only comma-separated UTF-8 with the exact header
names: a sheet saved with semicolons or tabs (a spreadsheet's CSV where the
comma is the decimal mark) or with a retyped header (``Judgement``) was
``review sheet lacks column(s) edit_id, kind, judgement``; one saved as
Windows-1252 with an accent in a note, or as UTF-16, raised
``UnicodeDecodeError`` as a traceback; a row pasted twice counted its
judgement twice (precision 80% instead of 75%), and the empty rows a
spreadsheet keeps below the sheet were counted as skipped.
"""

from __future__ import annotations

import csv

import pytest

COLUMNS = ["edit_id", "clip_id", "kind", "position", "context", "r", "a", "votes", "n_panel", "found_by",
           "judgement", "note"]
JUDGED = [("yes", "delete"), ("no", "delete"), ("Yes ", "insert"), ("TRUE", "delete"), ("", "delete"),
          ("unsure", "substitute")]
SUMMARY = "4 judged (2 skipped), miner precision 75.00% [30.06, 95.44] (Wilson 95%)"


def _rows(note: str = ""):
    return [{"edit_id": f"c{i}.wav@0-1", "clip_id": f"c{i}.wav", "kind": kind, "position": "start",
             "context": "[- well] the cat", "r": "well", "a": "", "votes": "3", "n_panel": "3", "found_by": "panel",
             "judgement": judgement, "note": note if i == 0 else ""} for i, (judgement, kind) in enumerate(JUDGED)]


def _sheet(path, columns=COLUMNS, rows=None, delimiter=",", encoding="utf-8", header=None):
    with path.open("w", encoding=encoding, newline="") as fh:
        writer = csv.writer(fh, delimiter=delimiter, lineterminator="\r\n")
        writer.writerow(header or columns)
        for rec in rows if rows is not None else _rows():
            writer.writerow([rec.get(c, "") for c in columns])
    return path


@pytest.mark.parametrize("variant", ["semicolons", "tabs", "reordered", "retyped header", "empty rows below"])
def test_a_sheet_saved_back_by_a_spreadsheet_reads_as_written(tmp_path, cli, variant):
    sheet = tmp_path / "filled.csv"
    if variant == "semicolons":
        _sheet(sheet, delimiter=";")
    elif variant == "tabs":
        _sheet(sheet, delimiter="\t")
    elif variant == "reordered":
        _sheet(sheet, columns=COLUMNS[::-1])
    elif variant == "retyped header":
        _sheet(sheet, header=[f" {c.capitalize()}" for c in COLUMNS])
    else:
        _sheet(sheet, rows=_rows() + [{}] * 3)
    ran = cli("refdis", "--review", sheet)
    assert ran.code == 0, ran.err
    assert ran.out.splitlines()[0] == f"review {sheet}: {SUMMARY}"


@pytest.mark.parametrize("encoding, message", [
    ("cp1252", "row 2: not valid UTF-8 (byte 0xe9 at offset {offset}): save the sheet as CSV (UTF-8)"),
    ("utf-16", "row 1: UTF-16 text (its byte-order mark starts the file), not UTF-8: save the sheet as CSV (UTF-8)"),
])
def test_a_sheet_saved_in_another_encoding_is_one_line(tmp_path, cli, encoding, message):
    sheet = _sheet(tmp_path / "filled.csv", rows=_rows(note="café"), encoding=encoding)
    offset = sheet.read_bytes().find(b"\xe9")
    ran = cli("refdis", "--review", sheet)
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [f"asraudit: error: {sheet}, {message.format(offset=offset)}"]


def test_an_edit_judged_twice_is_refused(tmp_path, cli):
    rows = _rows()
    sheet = _sheet(tmp_path / "filled.csv", rows=rows + [rows[0]])
    ran = cli("refdis", "--review", sheet)
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [f"asraudit: error: {sheet}, row 8: edit 'c0.wav@0-1' appears twice (first at row 2): "
                               "keep one row per edit, or its judgement counts twice"]
