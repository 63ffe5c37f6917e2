"""Case 15: a CSV cell over 131,072 characters, and files with CR-only line endings.

A hypothesis caught in a decoding loop (200,000 characters) read from a CSV
raised ``_csv.Error: field larger than field limit (131072)`` as a
traceback, while the same row in JSONL was scored.  A CSV saved with old Mac
line endings (a lone CR between lines) raised ``_csv.Error: new-line
character seen in unquoted field`` as a traceback; the same JSONL was
``broken JSON row: Extra data (column 129)``.  Now the long cell is read
like any other, and a lone CR is one line naming the file and row and how to
save it.
"""

from __future__ import annotations

import json

import pytest

CR_MESSAGE = ("a carriage return (CR) that ends no line: a file with old Mac (CR-only) line endings reads as one line; "
              "save it with LF or CRLF line endings")


def test_a_cell_past_csvs_default_limit_is_read_like_jsonl(tmp_path, cli):
    loop = " ".join(["thank you"] * 20000)  # 199,999 characters
    (tmp_path / "csv").mkdir()
    (tmp_path / "jsonl").mkdir()
    (tmp_path / "csv" / "m.csv").write_text(f"audio_filepath,text,pred_text\nc0,thank you,{loop}\nc1,a b,a b\n",
                                            encoding="utf-8")
    (tmp_path / "jsonl" / "m.jsonl").write_text(
        json.dumps({"audio_filepath": "c0", "text": "thank you", "pred_text": loop}) + "\n"
        + json.dumps({"audio_filepath": "c1", "text": "a b", "pred_text": "a b"}) + "\n", encoding="utf-8")
    from_csv = cli("wer", "--preds", tmp_path / "csv", "--normalizer", "none", "--json", tmp_path / "csv.json")
    from_jsonl = cli("wer", "--preds", tmp_path / "jsonl", "--normalizer", "none", "--json", tmp_path / "jsonl.json")
    assert from_csv.code == 0, from_csv.err
    assert from_csv.out == from_jsonl.out
    scores = json.loads((tmp_path / "csv.json").read_text(encoding="utf-8"))["models"]["m"]
    assert (scores["insertions"], scores["ref_words"]) == (39998, 4)


@pytest.mark.parametrize("name, content, row", [
    ("m.csv", "audio_filepath,text,pred_text\rc0,a b,a b\rc1,c d,c\r", 1),
    ("m.csv", "audio_filepath,text,pred_text\nc0,a b,a b\nc1,c d,c\rc2,e f,e f\n", 3),
    ("m.jsonl", '{"audio_filepath": "c0", "text": "a b", "pred_text": "a b"}\r'
                '{"audio_filepath": "c1", "text": "c d", "pred_text": "c"}\r', 1),
])
def test_a_lone_carriage_return_is_one_line_naming_the_row(tmp_path, cli, name, content, row):
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8"))
    ran = cli("wer", "--preds", path)
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [f"asraudit: error: {path}, row {row}: {CR_MESSAGE}"]
