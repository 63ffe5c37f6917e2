"""Case 256: a copy of the paper's released results (``reference --dir``, ``$ASRAUDIT_PAPER_RESULTS``, an audit's
``[published]``) holding values no release can: ``min_run_len 0`` (``refdis --min-run-len`` takes 1 or more), an
empty whitelist (a set whose edits no panel voted for), an empty ``dataset``, a model named ``""`` on a
leaderboard row or as a switch group's result, a whitelist member or an arm named ``" "``.

Before, each was printed as released, exit 0: ``min_run_len 0`` in the miner settings, ``panel `` with nothing
after it, ``tiny:  (en, test)``, a model row with no name (cases 166, 228, 233 and 251 checked the numbers,
the JSON and the rows)."""

from __future__ import annotations

import pytest

from conftest import TINY_AGGREGATE, TINY_SWITCH, write_release

AGGREGATE, SWITCH = TINY_AGGREGATE, TINY_SWITCH


@pytest.mark.parametrize("change, said", [
    (lambda d: d["params"].update(min_run_len=0),
     "params: min_run_len is 0: a run is at least 1 word long (refdis --min-run-len takes 1 or more)"),
    (lambda d: d.update(whitelist=[]),
     "tiny: whitelist is empty: a set's edits are mined from its panel's votes, so every set names its panel"),
    (lambda d: d.update(whitelist=["a", " "]),
     "tiny: whitelist[2] is ' ', no name: the release names every member"),
    (lambda d: d.update(dataset=""), "tiny: dataset is '', no name: every row and set of the release is named"),
    (lambda d: d["benchmaxx_leaderboard"][0].update(model=""),
     "benchmaxx_leaderboard[1]: model is '', no name: every row and set of the release is named"),
])
def test_an_aggregate_with_a_value_no_release_holds_is_refused(tmp_path, cli, change, said):
    folder = write_release(tmp_path, AGGREGATE, SWITCH, change)
    for name in ([], ["tiny"]):
        ran = cli("reference", "--dir", folder, *name)
        assert ran.code == 2 and not ran.out
        assert ran.error_lines == [f"asraudit: error: {folder}/tiny_aggregate.json: {said}"]


@pytest.mark.parametrize("change, said", [
    (lambda s: s["g"]["results"].update({"": s["g"]["results"].pop("m")}), "g.results: a row is keyed '', no model name"),
    (lambda s: s["g"].update(arms=["Mr", ""]), "g: arms[2] is '', no name: the release names every member"),
])
def test_a_switch_group_with_an_empty_name_is_refused(tmp_path, cli, change, said):
    folder = write_release(tmp_path, AGGREGATE, SWITCH, change_switch=change)
    ran = cli("reference", "--dir", folder, "g")
    assert ran.code == 2 and not ran.out
    assert ran.error_lines == [f"asraudit: error: {folder}/ortho_switch.json: {said}"]


def test_a_release_with_its_names_and_a_run_length_reads_as_before(tmp_path, cli):
    folder = write_release(tmp_path, AGGREGATE, SWITCH)
    ran = cli("reference", "--dir", folder, "tiny")
    assert ran.code == 0, ran.err
    assert "tiny: tiny, panel a, b; majority 0.75, min_run_len 1" in ran.out
