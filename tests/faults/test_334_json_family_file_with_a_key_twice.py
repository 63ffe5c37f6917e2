"""Case 334: a JSON family file (``conventions --families f.json``, an audit's ``[conventions] language``) with a
key given twice in one object: two ``"family"`` lists (a second block pasted below the first), or a family
with ``"forms"`` twice.

Python's JSON reader keeps the last value without a word: the families of the first list were dropped and the
readout ran without them, exit 0 (a family defined by the user missing from every table), and the family's
first forms were never scanned.  The same file in TOML is refused (``Cannot overwrite a value``).  Now a key
given twice is refused naming it, as the project's other JSON readers do.
"""

from __future__ import annotations

import json

import pytest

from conftest import write_preds

from asraudit.probes.families import load_catalogue

MISTER = '{"name": "mister", "class": "honorific", "arms": ["Mr", "Mister"], "forms": [["Mr", "Mister"]]}'
DOCTOR = '{"name": "doctor", "class": "honorific", "arms": ["Dr", "Doctor"], "forms": [["Dr", "Doctor"]]}'
WORDS = "is given twice in one object, and a JSON reader keeps only the last value, without a word (a TOML file " \
        "refuses it too): merge the two, or remove one"


@pytest.mark.parametrize("text, key", [
    (f'{{"schema": 1, "family": [{MISTER}], "family": [{DOCTOR}]}}', "family"),
    ('{"family": [{"name": "mister", "class": "honorific", "arms": ["Mr", "Mister"], "forms": [["Mr", "Mister"]], '
     '"forms": [["Mrs", "Missus"]]}]}', "forms"),
], ids=["two-family-lists", "forms-twice"])
def test_conventions_refuses_the_file(tmp_path, cli, text, key):
    families = tmp_path / "f.json"
    families.write_text(text, encoding="utf-8")
    preds = tmp_path / "p"
    preds.mkdir()
    write_preds(preds / "m.jsonl", [("c0", "mr smith", "mister smith")])
    ran = cli("conventions", "--preds", preds, "--families", families)
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {families}: key {key!r} {WORDS}"])
    assert ran.out == ""


def test_control_one_family_list_is_read(tmp_path):
    families = tmp_path / "f.json"
    families.write_text(json.dumps({"schema": 1, "family": [json.loads(MISTER), json.loads(DOCTOR)]}),
                        encoding="utf-8")
    assert [f.name for f in load_catalogue(families).families] == ["mister", "doctor"]
