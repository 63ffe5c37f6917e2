"""Case 341: a number written as text in a row file (a CSV mask recipe, where every cell is text; a JSON row
holding ``"1_0"``) with an underscore that groups no thousands: ``index`` ``1_0`` (a typo for ``1`` or ``10``),
``t1`` ``0_5`` (a typo for ``0.5``).

Python's ``int()`` and ``float()`` read digit groups anywhere, so the recipe's word index ``1_0`` was word 10 and a
span ending at ``0_5`` ended at 5 seconds, exit 0, without a word: another word masked than the row meant, a span
ten times the word.  The command line refuses such a number since case 336; a row now refuses it too, naming the
file and row.  A JSON number ``1.0`` as an index is the integer 1 exactly (a float column that a writer such as
pandas keeps), and reads as before (control)."""

from __future__ import annotations

import json

import pytest

from asraudit.data.mask_recipe import read_recipe
from asraudit.data.rows import parse_seconds
from asraudit.errors import InputError


@pytest.mark.parametrize("line, message", [
    ("a.wav,0.1,0.5,tone,1_0", "word index must be an integer, got '1_0': '_' groups digits by three (1_000), and "
                               "here it does not (a typo?)"),
    ("a.wav,0.1,0_5,tone,1", "t1 must be a number of seconds, got '0_5': '_' groups digits by three (1_000), and "
                             "here it does not (a typo?)"),
], ids=["index", "seconds"])
def test_a_csv_recipe_cell_with_a_stray_underscore_is_refused(tmp_path, line, message):
    path = tmp_path / "r.csv"
    path.write_text(f"clip,t0,t1,hidden,index\n{line}\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_recipe(path)
    assert str(err.value) == f"{path}, row 2: {message}"  # the header is row 1


def test_a_json_recipe_index_as_text_with_a_stray_underscore_is_refused(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"clip": "a.wav", "t0": 0.1, "t1": 0.5, "hidden": "tone", "index": "1_0"}) + "\n",
                    encoding="utf-8")
    with pytest.raises(InputError, match=r"row 1: word index must be an integer, got '1_0': '_' groups digits"):
        read_recipe(path)


@pytest.mark.parametrize("index, read", [(1.0, 1), ("1", 1), (3, 3), ("1_000", 1000)])
def test_control_an_index_that_is_an_integer_reads_as_before(tmp_path, index, read):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"clip": "a.wav", "t0": 0.1, "t1": 0.5, "hidden": "tone", "index": index}) + "\n",
                    encoding="utf-8")
    assert read_recipe(path)[0].index == read


def test_control_seconds_as_text_read_as_before(tmp_path):
    assert parse_seconds("0.5", "t1", tmp_path / "r.csv", 1) == 0.5
    assert parse_seconds("1_000", "t1", tmp_path / "r.csv", 1) == 1000.0
