"""Case 94: ``refdis --preds ... --review sheet.csv`` with a sheet written for another run.

A review sheet lists one run's edits.  Read beside another run (other
prediction files, other miner settings), its judgements were counted whole
and printed as this run's miner precision, exit 0, though some judged edits
were never mined by this run.  Now, with ``--preds``, the precision is over
the sheet's judgements of this run's edits (matched by id and by the kind,
``r`` and ``a`` the sheet shows), and the judged rows of other edits are
named in one warning and left out.  ``--review`` alone reads the sheet as
before.
"""

from __future__ import annotations

import csv

from conftest import panel_files

ROWS_A = [("c0", "well the cat sat", "the cat sat"), ("c1", "so the dog ran", "the dog ran"),
          ("c2", "a bird flew", "a bird flew")]
ROWS_B = [("c0", "well the cat sat", "the cat sat"), ("c1", "so the dog ran", "so the dog ran"),
          ("c2", "a bird flew", "a bird flew")]


def _filled(sheet, path, verdicts):
    rows = list(csv.DictReader(sheet.open(encoding="utf-8")))
    for row in rows:
        row["judgement"] = verdicts[row["edit_id"]]
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_judgements_of_edits_this_run_did_not_mine_are_named_and_left_out(tmp_path, cli):
    run_a = panel_files(tmp_path / "a", ROWS_A)
    sheet = tmp_path / "sheet.csv"
    assert cli("refdis", "--preds", run_a, "--panel", "m1,m2,m3", "--review-sheet", sheet).code == 0
    filled = _filled(sheet, tmp_path / "filled.csv", {"c0@0-1": "yes", "c1@0-1": "no"})
    alone = cli("refdis", "--review", filled)
    assert alone.code == 0 and f"review {filled}: 2 judged (0 skipped), miner precision 50.00%" in alone.out

    run_b = panel_files(tmp_path / "b", ROWS_B)  # this run mines "well" in c0 only
    ran = cli("refdis", "--preds", run_b, "--panel", "m1,m2,m3", "--review", filled)
    assert ran.code == 0, ran.err
    assert (f"asraudit: warning: {filled}: 1 judged edit(s) are not edits of this run (first: 'c1@0-1'): the sheet "
            "was written for another run (other files or settings); they are left out of the precision") in ran.err
    assert (f"review {filled} against this run's 1 edits: 1 judged (0 skipped), miner precision 100.00%"
            in ran.out), ran.out


def test_a_sheet_whose_span_shows_other_words_is_another_edit(tmp_path, cli):
    run_a = panel_files(tmp_path / "a", ROWS_A)
    sheet = tmp_path / "sheet.csv"
    assert cli("refdis", "--preds", run_a, "--panel", "m1,m2,m3", "--review-sheet", sheet).code == 0
    filled = _filled(sheet, tmp_path / "filled.csv", {"c0@0-1": "yes", "c1@0-1": "yes"})
    filled.write_text(filled.read_text(encoding="utf-8").replace(",so,", ",hey,"), encoding="utf-8")
    ran = cli("refdis", "--preds", run_a, "--panel", "m1,m2,m3", "--review", filled)
    assert ran.code == 0 and "(first: 'c1@0-1')" in ran.err
    assert "against this run's 2 edits: 1 judged (0 skipped), miner precision 100.00%" in ran.out
