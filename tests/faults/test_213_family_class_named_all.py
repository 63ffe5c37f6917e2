"""Case 213: a convention family file (``conventions --families``, ``[conventions] families``) whose family's
``class`` (or ``name``) is ``"all"``, the name of the agreement tables' row of every family together.

A family's class is free text (it groups rendering agreement; a catalogue of forms of address may call its
class "address"), so ``"all"`` was taken as any other: its occurrences went into the overall row twice, once as
their class and once as every class, and agreement read ``50.0% 2/4`` on two occurrences (the overall rate an
audit reports, its interval drawn from twice the occurrences), exit 0; a family named ``"all"`` did the same to
``--json``'s agreement by family.  Both are now refused when the file is read, naming the file and the family.
"""

from __future__ import annotations

import json

import pytest
from conftest import write_preds

MR = {"name": "mr", "class": "honorific", "arms": ["abbr", "full"], "forms": [["Mr", "Mister"]]}
ROWS = [("c1", "Mr Smith spoke", "Mr Smith spoke"), ("c2", "Mr Jones spoke", "Mister Jones spoke")]


def _run(tmp_path, cli, family):
    families = tmp_path / "fam.json"
    families.write_text(json.dumps({"schema": 1, "family": [family]}), encoding="utf-8")
    preds = write_preds(tmp_path / "m1.jsonl", ROWS)
    return families, cli("conventions", "--preds", preds, "--families", families, "--min-per-arm", "1",
                         "--bootstrap", "10", "--json", tmp_path / "out.json")


@pytest.mark.parametrize("key", ["class", "name"])
def test_a_family_or_class_named_all_is_refused_naming_the_family(tmp_path, cli, key):
    families, ran = _run(tmp_path, cli, {**MR, key: "all"})
    where = "family #1 ('all')" if key == "name" else "family #1 ('mr')"
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {families}: {where}: {key} 'all' is the agreement tables' row of every family together, "
        f"so this family would be counted twice in it: give the {key} another name"])
    assert not (tmp_path / "out.json").exists()


def test_a_class_of_its_own_counts_each_occurrence_once(tmp_path, cli):
    _, ran = _run(tmp_path, cli, {**MR, "class": "address"})  # a class the built-in catalogues do not have
    assert ran.code == 0
    rows = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["agreement_by_class"]
    counts = {group: (r["agree"], r["rendered"]) for group, r in rows["m1"].items()}
    assert counts == {"address": (1, 2), "all": (1, 2)}
