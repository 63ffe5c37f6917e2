"""Case 23: ``refdis`` on prediction files whose references differ for a clip.

The refusal was several lines (``references disagree across prediction
files on 2 clip(s):`` then one indented line per clip with every model's
reference), naming no file or row.  Now it is one line at the first file and
row whose reference differs from the first seen, with the count and where
the full list is (``asraudit preds``); the warning before it is unchanged.
"""

from __future__ import annotations

import pytest

from conftest import write_preds

ROWS = [(f"c{i}", f"well the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(4)]


@pytest.mark.parametrize("compat", [(), ("--compat", "hume")])
def test_differing_references_are_one_line_naming_file_and_row(tmp_path, cli, compat):
    for name in ("m1", "m2", "m3"):
        rows = [(c, "a different reference" if name == "m3" and c in ("c1", "c2") else r, h) for c, r, h in ROWS]
        write_preds(tmp_path / f"{name}.jsonl", rows)
    ran = cli("refdis", "--preds", tmp_path, "--panel", "m1,m2,m3", *compat)
    assert (ran.code, ran.out) == (2, "")
    assert ran.err.splitlines()[0] == "asraudit: warning: references differ across models on 2 clip(s): c1, c2"
    assert ran.error_lines == [
        f"asraudit: error: {tmp_path / 'm3.jsonl'}, row 2: clip 'c1': reference 'a different reference' differs from "
        "m1's 'well the cat sat on mat 1'; 2 clip(s) differ in all, `asraudit preds` lists them: models are compared "
        "on one reference per clip, so every prediction file must carry the same"]
    assert len([line for line in ran.err.splitlines() if not line.startswith("asraudit: warning:")]) == 1
