"""Case 228: a copy of the paper's released results whose JSON a reader chokes on or merges without a word.

``asraudit reference --dir`` (and an audit's ``[published]``) read each file
with ``json.loads``: a model's results given twice in one object of
``ortho_switch.json`` (a row pasted again, edited) kept the last, and the
first was lost with no word (case 88 refuses a model listed twice in a
set's list); a number of 5,001 digits (a damaged file) was ``ValueError:
Exceeds the limit (4300 digits) for integer string conversion`` and arrays
nested 100,000 deep ``RecursionError``, both tracebacks; a count of 400
digits was read, then ``OverflowError: int too large to convert to float``
from the Wilson interval while the set was printed; a file saved with a
byte-order mark (Notepad) was refused as ``Unexpected UTF-8 BOM``.  Now each
is one line naming the file (and the row), before anything is printed; the
byte-order mark is read past, as every other input does.
"""

from __future__ import annotations

import json

from conftest import TINY_AGGREGATE, TINY_SWITCH, TINY_SWITCH_ROW, write_release

AGGREGATE, ROW, SWITCH = TINY_AGGREGATE, TINY_SWITCH_ROW, TINY_SWITCH


def refused(cli, folder) -> list[str]:
    lines = []
    for name in ([], ["g"], ["tiny"]):
        ran = cli("reference", "--dir", folder, *name)
        assert ran.code == 2 and not ran.out, ran.out
        lines += ran.error_lines
    assert len(set(lines)) == 1, lines
    return lines[:1]


def test_a_model_given_twice_in_one_object(tmp_path, cli):
    folder = write_release(tmp_path, AGGREGATE, SWITCH)
    pasted = json.dumps({**ROW, "switch": 0.0, "lo": 0.0, "hi": 0.5,
                         "arms": {"Mr": {"hits": 0, "n": 4}, "mister": {"hits": 3, "n": 4}}})
    text = (folder / "ortho_switch.json").read_text(encoding="utf-8")
    (folder / "ortho_switch.json").write_text(text.replace('"results": {"m": ', f'"results": {{"m": {pasted}, "m": '),
                                              encoding="utf-8")
    assert refused(cli, folder) == [
        f"asraudit: error: {folder}/ortho_switch.json: key 'm' is given twice in one object, and a JSON reader keeps "
        "only the last value, without a word: keep one"]


def test_numbers_and_nesting_python_does_not_read(tmp_path, cli):
    text = json.dumps(AGGREGATE)
    for case, damaged, said in (
            ("digits", text.replace('"eligible_runs": 4', '"eligible_runs": 4' + "0" * 5000),
             "not a JSON file Python reads: a number of more than 4300 digits, more than any field holds (a damaged "
             "file?)"),
            ("deep", text[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
             "not a JSON file Python reads: arrays or objects nested deeper than Python reads (a damaged file?)"),
            ("count", text.replace('"accepted_ref": 1', '"accepted_ref": 1' + "0" * 399)
                          .replace('"followed_consensus": 3', '"followed_consensus": 3' + "0" * 399)
                          .replace('"eligible_runs": 4', '"eligible_runs": 1' + "0" * 400),
             "benchmaxx_leaderboard[1]: accepted_ref is a count of 400 digits, more than any release holds (a "
             "damaged file?)")):
        (tmp_path / case).mkdir()
        folder = write_release(tmp_path / case, AGGREGATE, SWITCH)
        (folder / "tiny_aggregate.json").write_text(damaged, encoding="utf-8")
        assert refused(cli, folder) == [f"asraudit: error: {folder}/tiny_aggregate.json: {said}"], case


def test_a_byte_order_mark_is_read_past(tmp_path, cli):
    folder = write_release(tmp_path, AGGREGATE, SWITCH)
    plain = cli("reference", "--dir", folder, "tiny")
    for name in ("tiny_aggregate.json", "ortho_switch.json"):
        path = folder / name
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    marked = cli("reference", "--dir", folder, "tiny")
    assert marked.code == 0 and marked.out == plain.out and "25.00%" in marked.out
    assert cli("reference", "--dir", folder, "g").code == 0
