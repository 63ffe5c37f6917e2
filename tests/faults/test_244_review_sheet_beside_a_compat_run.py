"""Case 244: ``refdis --compat hume --review filled.csv``: a review sheet read beside a run that mines other edits.

A review sheet judges the full miner's edits (``--review-sheet`` writes it;
``--compat hume`` refuses to write one).  Case 94 reads a sheet against the
full miner's run, leaving out the rows of another run's edits; beside a
``--compat hume`` run the sheet's precision was printed under that run's
table as it stood: ``8 judged, miner precision 100.00%`` under a run whose
settings (``--min-run-len 3``) had found no edit at all, exit 0.  Now the
combination is refused before any file is read; the sheet alone, or beside
the full miner, reads as before.
"""

from __future__ import annotations

import csv
import json


def files(folder):
    preds = folder / "p"
    preds.mkdir()
    rows = [(f"c{i}", f"well the cat sat on the mat number {i}") for i in range(8)]
    for m in ("m1", "m2", "m3"):
        (preds / f"{m}.jsonl").write_text("".join(
            json.dumps({"audio_filepath": c, "text": t, "pred_text": t.replace("well ", "")}) + "\n" for c, t in rows),
            encoding="utf-8")
    return preds


def filled_sheet(cli, preds, folder):
    assert cli("refdis", "--preds", preds, "--panel", "m1,m2,m3", "--review-sheet", folder / "sheet.csv").code == 0
    rows = list(csv.reader((folder / "sheet.csv").open(newline="", encoding="utf-8")))
    column = rows[0].index("judgement")
    for row in rows[1:]:
        row[column] = "real"
    with (folder / "filled.csv").open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    return folder / "filled.csv"


def test_a_sheet_beside_a_compat_run_is_refused(tmp_path, cli):
    preds = files(tmp_path)
    sheet = filled_sheet(cli, preds, tmp_path)
    ran = cli("refdis", "--preds", preds, "--panel", "m1,m2,m3", "--compat", "hume", "--min-run-len", "3",
              "--review", sheet, "--json", tmp_path / "h.json")
    assert (ran.code, ran.out, ran.error_lines) == (2, "", [
        "asraudit: error: --review reads a sheet of the full miner's edits (written by --review-sheet), which "
        "--compat hume does not mine, so the sheet's precision would be printed as this run's: read it beside the run "
        "without --compat hume, or alone (refdis --review FILE)"])
    assert not (tmp_path / "h.json").exists()


def test_the_sheet_alone_or_beside_the_full_miner_reads_as_before(tmp_path, cli):
    preds = files(tmp_path)
    sheet = filled_sheet(cli, preds, tmp_path)
    ran = cli("refdis", "--review", sheet)
    assert ran.code == 0 and "8 judged (0 skipped), miner precision 100.00%" in ran.out
    ran = cli("refdis", "--preds", preds, "--panel", "m1,m2,m3", "--review", sheet)
    assert ran.code == 0 and "against this run's 8 edits: 8 judged" in ran.out
