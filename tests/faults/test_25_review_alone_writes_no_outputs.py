"""Case 25: ``refdis --review filled.csv --json out.json`` without ``--preds``.

``--review`` alone prints the miner's precision; the outputs named with it
(``--json``, ``--edits-out``, ``--corrected-out``, ``--review-sheet``) were
silently not written, exit 0.  Now naming one is an error before anything
is read.
"""

from __future__ import annotations


def test_outputs_named_with_review_alone_are_refused(tmp_path, cli):
    sheet = tmp_path / "filled.csv"
    sheet.write_text("edit_id,kind,judgement\ne1,delete,yes\ne2,delete,no\n", encoding="utf-8")
    ran = cli("refdis", "--review", sheet, "--json", tmp_path / "r.json", "--edits-out", tmp_path / "e.jsonl")
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == ["asraudit: error: --edits-out, --json need --preds: --review alone only prints the "
                               "miner's precision"]
    alone = cli("refdis", "--review", sheet)
    assert alone.code == 0 and "2 judged (0 skipped), miner precision 50.00%" in alone.out
