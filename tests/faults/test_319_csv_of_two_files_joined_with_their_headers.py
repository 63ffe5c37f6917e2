"""Case 319: a CSV file made by joining two (``cat a.csv b.csv > all.csv``), the second one's header kept as a row.

Every CSV reader (prediction files, manifests, recipes, ``--manifest``, a corrected reference file) read the
header again as a clip: clip ``audio_filepath`` with reference ``text`` and hypothesis ``pred_text``.  ``wer`` scored
it: 20.00% and 3 clips for a file of 2 clips transcribed without an error, exit 0, no word (a second header saved
with a byte-order mark, as Excel writes one, likewise).  Now ``data.rows.csv_rows`` refuses a row that repeats the
header, naming the row.
"""

from __future__ import annotations

import pytest

HEADER = "audio_filepath,text,pred_text\n"
FIX = ("repeats the header (audio_filepath,text,pred_text): two CSV files joined (cat a.csv b.csv) keep the second "
       "one's header as a row, which would be read as a clip: remove it")


@pytest.mark.parametrize("mark", ["", "\ufeff"], ids=["plain", "byte-order-mark"])
def test_a_header_read_again_is_refused(tmp_path, cli, monkeypatch, mark):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "all.csv").write_text(HEADER + "c0,the cat sat,the cat sat\n" + mark + HEADER
                                      + "d0,on the mat,on the mat\n", encoding="utf-8")
    ran = cli("wer", "--preds", "all.csv", "--bootstrap", "0")
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [f"asraudit: error: all.csv, row 3: {FIX}"]


def test_control_a_clip_named_like_a_column_is_read(tmp_path, cli, monkeypatch):
    """Control: a row with one cell like its column's name is a row like any other."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "all.csv").write_text(HEADER + "c0,the cat sat,the cat sat\naudio_filepath,text,text\n",
                                      encoding="utf-8")
    ran = cli("wer", "--preds", "all.csv", "--bootstrap", "0")
    assert ran.code == 0 and "  2/2" in ran.out
