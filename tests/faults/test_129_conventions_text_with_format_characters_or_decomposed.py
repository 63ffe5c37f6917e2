"""Case 129: the conventions probe reads raw text, so it met what the normalizers clean (cases 7 and 103).

A zero-width space, a soft hyphen or a byte-order mark inside a hypothesis's rendering ("Mr\u200b Smith",
"Mis\u00adter") matched no arm: the model's correct rendering was counted "outside", a miss of the
reference's arm (switch rate 0.5 where the model followed the reference everywhere). A reference saved
decomposed (NFD: a Mac, some tools) held no occurrence of a family with accents: "nothing to measure".
"""

from __future__ import annotations

import json
import unicodedata

from tests.faults.conftest import write_preds

MISTER = [("c1", "Mr Smith is here", "Mr\u200b Smith is here"),
          ("c2", "Mister Jones left", "Mis\u00adter Jones left"),
          ("c3", "Mr Brown came", "\ufeffMr Brown came"),
          ("c4", "Mister Green came", "Mister Green came")]


def test_format_characters_inside_a_rendering_are_not_a_miss(cli, tmp_path):
    preds = write_preds(tmp_path / "m.jsonl", MISTER)
    out = tmp_path / "c.json"
    r = cli("conventions", "--preds", preds, "--min-per-arm", "1", "--json", out, "--show", "4")
    assert r.code == 0, r.err
    arms = json.loads(out.read_text())["switch"]["mister"]["m"]["arms"]
    assert arms == {"Mr": {"clips": 2, "hits": 2, "rendered": 2, "scored": True},
                    "Mister": {"clips": 2, "hits": 2, "rendered": 2, "scored": True}}
    assert "-> outside" not in r.out
    # --show marks the rendering in the text the spans are of
    assert "hyp: Mis[[ter]]" not in r.out and "[[Mister]] Jones left" in r.out


def test_a_decomposed_reference_holds_its_occurrences(cli, tmp_path):
    rows = [("c1", "un événement important", "un évènement important"),
            ("c2", "un évènement rare", "un évènement rare"),
            ("c3", "un grand événement", "un grand événement")]
    nfd = [(c, unicodedata.normalize("NFD", ref), unicodedata.normalize("NFD", hyp)) for c, ref, hyp in rows]
    outs = {}
    for name, data in (("composed", rows), ("decomposed", nfd)):
        preds = write_preds(tmp_path / f"{name}.jsonl", data)
        outs[name] = tmp_path / f"{name}.json"
        r = cli("conventions", "--preds", preds, "--language", "fr", "--min-per-arm", "1", "--json", outs[name])
        assert r.code == 0, r.err
        assert "nothing to measure" not in r.out
    composed, decomposed = (json.loads(outs[n].read_text()) for n in ("composed", "decomposed"))
    assert decomposed["reference_usage"] == composed["reference_usage"] == {
        "fr_rectifications_1990": {"before 1990": 2, "1990": 1}}
    assert (decomposed["switch"]["fr_rectifications_1990"]["decomposed"]
            == composed["switch"]["fr_rectifications_1990"]["composed"])


def test_a_family_file_saved_decomposed_matches_composed_text(cli, tmp_path):
    fam = tmp_path / "fam.toml"
    fam.write_text(unicodedata.normalize("NFD", '[[family]]\nname = "cle"\nclass = "spelling"\n'
                                               'arms = ["clé", "clef"]\nforms = [["clé", "clef"]]\n'
                                               'match = ["une clé"]\n'), encoding="utf-8")
    preds = write_preds(tmp_path / "m.jsonl", [("c1", "une clé", "une clef"), ("c2", "une clef", "une clef")])
    out = tmp_path / "c.json"
    r = cli("conventions", "--preds", preds, "--families", fam, "--min-per-arm", "1", "--json", out)
    assert r.code == 0, r.err
    assert json.loads(out.read_text())["switch"]["cle"]["m"]["arms"]["clé"] == {
        "clips": 1, "hits": 0, "rendered": 1, "scored": True}
