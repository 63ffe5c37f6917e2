"""Case 83: review-sheet cells a spreadsheet runs as formulas or reads as numbers.

The review sheet (``refdis --review-sheet``, and the report page's "export
review CSV") is made to be opened in a spreadsheet, and its cells hold text
from the benchmark and the models: clip ids, model names and, under
``--normalizer none``, the words.  Written as they were, LibreOffice 7.4 (its
default CSV import, then saved as CSV) gave back ``x`` for the cell
``=HYPERLINK("http://example.invalid","x")`` (the formula ran), ``7`` for
``r = 007`` against ``a = 7`` and ``100000`` for ``r = 1e5`` against
``a = 100000`` (the reviewer judges an edit whose two sides look the same),
``7`` for the clip id ``007``.  Such a cell is now written behind an apostrophe,
the spreadsheets' mark of text (LibreOffice keeps it and saves it back, Excel
hides it), and ``refdis --review`` takes it off again.
"""

from __future__ import annotations

import csv
import html.parser
import json
import shutil

import pytest
from test_report_chromium import run_chromium

from asraudit.probes.review import cell_text, sheet_cell

ROWS = [("-3.wav", 'the cat =HYPERLINK("http://example.invalid","x") sat', "the cat sat"),
        ("@a.wav", "agent 007 was here", "agent 7 was here"),
        ("007", "it costs 1e5 now", "it costs 100000 now"),
        ("+1.wav", "half is 1/2 okay", "half is 0.5 okay"),
        ("c5.wav", "the cat sat on a mat", "the dog sat on a mat")]
# What each edit's cells must be in the file: the spreadsheet's text mark exactly where a spreadsheet would not
# keep the text (formula starts; numbers that are not plain integers), every other cell as it was.
EXPECTED = [
    ["'-3.wav@2-3", "'-3.wav", "delete", "middle", 'the cat [- =HYPERLINK("http://example.invalid","x")] sat',
     "'=HYPERLINK(\"http://example.invalid\",\"x\")", "", "3", "3", "panel", "", ""],
    ["'@a.wav@1-2", "'@a.wav", "substitute", "middle", "agent [007 -> 7] was here", "'007", "7", "3", "3",
     "panel", "", ""],
    ["007@2-3", "'007", "substitute", "middle", "it costs [1e5 -> 100000] now", "'1e5", "100000", "3", "3",
     "panel", "", ""],
    ["'+1.wav@2-3", "'+1.wav", "substitute", "middle", "half is [1/2 -> 0.5] okay", "'1/2", "'0.5", "3", "3",
     "panel", "", ""],
    ["c5.wav@1-2", "c5.wav", "substitute", "middle", "the [cat -> dog] sat on a mat", "cat", "dog", "3", "3",
     "panel", "", ""],
]


def _preds(folder):
    folder.mkdir()
    for m in ("m1", "m2", "m3"):
        with (folder / f"{m}.jsonl").open("w", encoding="utf-8") as fh:
            for c, r, h in ROWS:
                fh.write(json.dumps({"audio_filepath": c, "text": r, "pred_text": h}) + "\n")
    return folder


def test_the_sheet_protects_the_cells_and_reads_back(tmp_path, cli):
    preds = _preds(tmp_path / "p")
    sheet = tmp_path / "sheet.csv"
    ran = cli("refdis", "--preds", preds, "--panel", "m1,m2,m3", "--normalizer", "none", "--review-sheet", sheet)
    assert ran.code == 0, ran.err
    with sheet.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[1:] == EXPECTED
    # Filled in (the marks kept, as LibreOffice saves them) and read back: the edit ids without their marks, so
    # the same edit saved once with its mark and once without (Excel hides it) is one edit judged twice.
    filled = [rows[0]] + [r[:10] + [j, ""] for r, j in zip(rows[1:], ("yes", "no", "yes", "no", "yes"))]
    with sheet.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(filled)
    ran = cli("refdis", "--review", sheet)
    assert ran.code == 0, ran.err
    assert ran.out.splitlines()[0].startswith(f"review {sheet}: 5 judged (0 skipped), miner precision 60.00%")
    with sheet.open("a", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerow(["-3.wav@2-3"] + filled[1][1:])
    ran = cli("refdis", "--review", sheet)
    assert ran.error_lines == [f"asraudit: error: {sheet}, row 7: edit '-3.wav@2-3' appears twice (first at row 2): "
                               "keep one row per edit, or its judgement counts twice"]


@pytest.mark.parametrize("text, written", [
    ("=1+1", "'=1+1"), ("+44 20", "'+44 20"), ("-", "'-"), ("@home", "'@home"), ("\tx", "'\tx"),
    ("007", "'007"), ("1e5", "'1e5"), ("1,000", "'1,000"), ("3:30", "'3:30"), ("1 1/2", "'1 1/2"),
    ("12345678901234567", "'12345678901234567"), ("0.5", "'0.5"), ("50%", "'50%"),
    ("7", "7"), ("0", "0"), ("150", "150"), ("1234.wav", "1234.wav"), ("e", "e"), ("", ""), ("a-b", "a-b"),
    ("'quoted'", "'quoted'"), (3, 3),
])
def test_which_cells_are_marked_and_that_reading_takes_the_mark_off(text, written):
    assert sheet_cell(text) == written
    if isinstance(text, str):
        assert cell_text(written) == text.strip()


# ------------------------------------------------------------------ the report page's export, in a browser

EXPORT = """<script>(function () {
  var block = document.querySelector('#edits .review');
  block.querySelector('input[value=yes]').checked = true;
  block.querySelector('.review-note').value = '- heard twice';
  block.dispatchEvent(new Event('input', {bubbles: true}));
  document.getElementById('review-export').click();
})();</script></body>"""


class _Textarea(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.inside, self.text = False, ""

    def handle_starttag(self, tag, attrs):
        self.inside = tag == "textarea" and dict(attrs).get("id") == "review-csv"

    def handle_endtag(self, tag):
        self.inside = False

    def handle_data(self, data):
        if self.inside:
            self.text += data


def test_the_report_pages_export_marks_the_same_cells(tmp_path, cli):
    if shutil.which("chromium") is None:
        pytest.skip("Debian chromium is not installed (apt-get install chromium)")
    _preds(tmp_path / "p")
    models = "".join(f'[[model]]\npredictions = "p/m{i}.jsonl"\npanel = true\n\n' for i in (1, 2, 3))
    spec = tmp_path / "audit.toml"
    spec.write_text(f'name = "t"\nout = "out"\nbootstrap = 20\nnormalizer = "none"\n[corpus]\n'
                    f'predictions = "p/m1.jsonl"\n\n{models}', encoding="utf-8")
    assert cli("audit", spec, "--no-progress").code == 0
    page = tmp_path / "page.html"
    page.write_text((tmp_path / "out" / "report.html").read_text(encoding="utf-8").replace("</body>", EXPORT),
                    encoding="utf-8")
    dom = run_chromium(["--dump-dom", page.as_uri()], tmp_path / "profile")
    parser = _Textarea()
    parser.feed(dom)
    rows = list(csv.reader(parser.text.splitlines()))
    assert rows[0][:3] == ["edit_id", "clip_id", "kind"]
    by_id = {cell_text(r[0]): r for r in rows[1:]}
    assert by_id.keys() == {cell_text(e[0]) for e in EXPECTED}
    for expected in EXPECTED:  # the cells both writers mark: the ids and the edit's two sides
        exported = by_id[cell_text(expected[0])]
        assert [exported[0], exported[1], exported[5], exported[6]] == [expected[0], expected[1], expected[5],
                                                                       expected[6]]
    marked = [r for r in rows[1:] if r[10]]
    assert [(r[10], r[11]) for r in marked] == [("yes", "'- heard twice")]  # the reviewer's own note too
