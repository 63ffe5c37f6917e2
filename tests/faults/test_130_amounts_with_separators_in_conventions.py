"""Case 130: amounts written with thousands separators or a decimal mark, in the conventions probe.

A currency family pairs a reference rendering with a hypothesis rendering of the same amount (its key).
The key kept only letters and digits, so "$1.5 million" and "15 million dollars" (or "2,5 euros" and
"25 euros") were one amount: a different number counted as a rendering of the reference's. An amount
whose thousands are parted by a space ("21 000 dollars", "1 500 €", "21\u202f000 €") was matched from its
last group ("000 dollars", key 000), and English read the "21" of "21 000" as the cardinal 21: a model
writing "21,000" was counted as missing both.
"""

from __future__ import annotations

import json

from tests.faults.conftest import write_preds


def _run(cli, tmp_path, name, rows, *language):
    preds = write_preds(tmp_path / f"{name}.jsonl", rows)
    out = tmp_path / f"{name}.json"
    r = cli("conventions", "--preds", preds, *language, "--min-per-arm", "1", "--json", out)
    assert r.code == 0, r.err
    return json.loads(out.read_text())


def test_english_amounts_are_read_by_value(cli, tmp_path):
    got = _run(cli, tmp_path, "en", [("c1", "it cost $1.5 million", "it cost 15 million dollars"),
                                     ("c2", "it cost 21 000 dollars", "it cost 21,000 dollars")])
    # no cardinal 21 inside "21 000"
    assert got["reference_usage"] == {"dollar": {"$": 1, "dollars": 1}}
    assert got["switch"]["dollar"]["en"]["arms"] == {
        "$": {"clips": 1, "hits": 0, "rendered": 0, "scored": True},       # 15 million is another amount
        "dollars": {"clips": 1, "hits": 1, "rendered": 1, "scored": True},  # 21 000 and 21,000 are one
    }


def test_french_amounts_with_spaces_and_decimal_commas(cli, tmp_path):
    got = _run(cli, tmp_path, "fr", [("c1", "il coûte 1 500 €", "il coûte 1500 euros"),
                                     ("c2", "il coûte 2,5 euros", "il coûte 25 euros"),
                                     ("c3", "il coûte 21\u202f000 €", "il coûte 21 000 €")], "--language", "fr")
    assert got["switch"]["fr_euro"]["fr"]["arms"] == {
        "€": {"clips": 2, "hits": 1, "rendered": 2, "scored": True},
        "euros": {"clips": 1, "hits": 0, "rendered": 0, "scored": True},
    }
    assert got["agreement_by_family"]["fr"]["fr_euro"]["agree"] == 1
    assert got["agreement_by_family"]["fr"]["fr_euro"]["rendered"] == 2
