"""Case 131: `asraudit conventions` on prediction files whose references differ for a clip.

It warned, then judged each model against its own file's reference while the usage table and --show read
the first file's: m2's switch rate was over 1 "Mr" and 3 "Mister" clips beside a usage table of 2 and 2,
and --show marked m2's span in m1's reference text ("[[Mr Smi]]th"; with references that differ only in
spacing, "[[  Mist]]er"). Now refused in one line as refdis refuses it (case 23); references that differ
only in spacing are one reference, the first file's, for every model.
"""

from __future__ import annotations

import json

from tests.faults.conftest import write_preds


def test_differing_references_are_refused_in_one_line(cli, tmp_path):
    write_preds(tmp_path / "m1.jsonl", [("c1", "Mr Smith is here", "Mister Smith is here"),
                                        ("c2", "Mister Jones left", "Mr Jones left")])
    write_preds(tmp_path / "m2.jsonl", [("c1", "Mister Smith is here", "Mister Smith is here"),
                                        ("c2", "Mister Jones left", "Mister Jones left")])
    out = tmp_path / "out" / "c.json"
    r = cli("conventions", "--preds", tmp_path, "--min-per-arm", "1", "--json", out, "--show", "2")
    assert r.code == 2
    assert r.error_lines == [
        f"asraudit: error: {tmp_path / 'm2.jsonl'}, row 1: clip 'c1': reference 'Mister Smith is here' differs "
        "from m1's 'Mr Smith is here': models are compared on one reference per clip, so every prediction file "
        "must carry the same"]
    assert r.out == "" and not out.exists()


def test_references_that_differ_in_spacing_are_one_reference(cli, tmp_path):
    write_preds(tmp_path / "m1.jsonl", [("c1", "  Mister  Smith is here", "Mister Smith is here"),
                                        ("c2", "Mr Jones left", "Mr Jones left")])
    write_preds(tmp_path / "m2.jsonl", [("c1", "Mister Smith is here", "Mr Smith is here"),
                                        ("c2", "Mr Jones left", "Mister Jones left")])
    out = tmp_path / "out" / "c.json"
    r = cli("conventions", "--preds", tmp_path, "--min-per-arm", "1", "--json", out, "--show", "2")
    assert r.code == 0, r.err
    m2 = r.out.split("== m2")[1]
    assert "ref:   [[Mister]]  Smith is here" in m2
    got = json.loads(out.read_text())
    assert got["switch"]["mister"]["m2"]["arms"] == {"Mr": {"clips": 1, "hits": 0, "rendered": 1, "scored": True},
                                                     "Mister": {"clips": 1, "hits": 0, "rendered": 1, "scored": True}}
