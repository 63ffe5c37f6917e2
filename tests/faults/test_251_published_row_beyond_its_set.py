"""Case 251: a copy of the paper's released results (``reference --dir``, ``$ASRAUDIT_PAPER_RESULTS``, an audit's
``[published]``) whose set and rows disagree: a leaderboard row whose ``eligible_runs`` exceed the set's edits
(``prominence.n_runs``: a row pasted from a larger set, its rate agreeing with its own counts, so case 88 let it
through), a whitelist naming one model twice.

Before, both were printed as released, exit 0: ``m  25.00%  [21.01, 29.47]  100  300  400`` under a set of 4
edits (an interval drawn from verdicts the set never had), ``panel a, a`` (a panel of one shown as two).  In
every set of the real release, each row's ``eligible_runs`` is at most ``n_runs`` (the largest equals it) and
each whitelist names four distinct models."""

from __future__ import annotations

import pytest

from conftest import TINY_AGGREGATE, TINY_SWITCH, write_release

AGGREGATE, SWITCH = TINY_AGGREGATE, TINY_SWITCH


def _row(**values):
    return lambda d: d["benchmaxx_leaderboard"][0].update(values)


@pytest.mark.parametrize("change, said", [
    (_row(accepted_ref=100, followed_consensus=300, eligible_runs=400),
     "benchmaxx_leaderboard[1]: eligible_runs 400 exceed the set's edits (prominence n_runs 4): a model is judged "
     "on the set's edits at most once each (a row from another set?)"),
    (lambda d: d["prominence"].update(n_runs=1),
     "benchmaxx_leaderboard[1]: eligible_runs 4 exceed the set's edits (prominence n_runs 1): a model is judged "
     "on the set's edits at most once each (a row from another set?)"),
    (lambda d: d.update(whitelist=["a", "b", "a"]),
     "tiny: whitelist names 'a' more than once: each panel member votes once"),
])
def test_a_row_or_panel_beyond_its_set_is_refused(tmp_path, cli, change, said):
    folder = write_release(tmp_path, AGGREGATE, SWITCH, change)
    for name in ([], ["tiny"]):
        ran = cli("reference", "--dir", folder, *name)
        assert ran.code == 2 and not ran.out
        assert ran.error_lines == [f"asraudit: error: {folder}/tiny_aggregate.json: {said}"]


def test_a_row_within_its_set_reads_as_before(tmp_path, cli):
    folder = write_release(tmp_path, AGGREGATE, SWITCH)
    ran = cli("reference", "--dir", folder, "tiny")
    assert ran.code == 0, ran.err
    assert "m                 25.00%    [4.56, 69.94]    1      3         4     25.00%" in ran.out
