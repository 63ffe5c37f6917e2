"""Case 320: a JSONL file made by joining two (``cat a.jsonl b.jsonl``), the second saved with a byte-order mark.

The row after the mark was refused as ``broken JSON row: Unexpected UTF-8 BOM (decode using utf-8-sig) (column 1)``:
Python's advice to a programmer, which a user of asraudit cannot follow, and nothing said where the mark came from.
The line now says what it is and what to do (a mark on the first line is dropped, as before).
"""

from __future__ import annotations

import json

import pytest


def _rows(ids):
    return "".join(json.dumps({"audio_filepath": c, "text": "the cat sat", "pred_text": "the cat sat"}) + "\n"
                   for c in ids)


@pytest.mark.parametrize("command", [("wer", "--bootstrap", "0"), ("preds",)])
def test_a_mark_inside_the_file_is_named(tmp_path, cli, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "all.jsonl").write_text("\ufeff" + _rows(["c0", "c1"]) + "\ufeff" + _rows(["d0"]), encoding="utf-8")
    ran = cli(command[0], "--preds", "all.jsonl", *command[1:])
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [
        "asraudit: error: all.jsonl, row 3: a byte-order mark (bytes EF BB BF) starts this row, inside the file: two "
        "files joined (cat a.jsonl b.jsonl), the second saved with a mark? Remove the mark from this row"]
