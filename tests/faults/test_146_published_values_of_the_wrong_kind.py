"""Case 146: a copy of the paper's released results whose values are of the wrong kind.

``asraudit reference`` (and an audit's ``[published]``) read the release's
names and flags without checking them: a number among a set's ``whitelist``
or a switch group's ``arms`` stopped the listing with ``TypeError: sequence
item 1: expected str instance, int found``, a traceback; ``in_whitelist``
written as text (``"false"``, as a spreadsheet or a hand edit leaves it) was
read with ``bool()`` as true, so a model outside the panel was listed as a
panel member, exit 0; a row whose flag disagrees with the whitelist (a row
pasted from another set) was taken as it came; a negative ``clips_analyzed``
was printed as the set's clip count.  Every row of the real release has a
JSON boolean flag that agrees with its whitelist; the rest is refused now,
naming the file and the row.
"""

from __future__ import annotations

import pytest

from conftest import write_release

AGGREGATE = {"dataset": "tiny", "language": "en", "split": "test", "whitelist": ["a", "b"],
             "params": {"majority_pct": 0.75, "min_run_len": 1, "include_middle": True, "min_ref_match_pct": 0.5,
                        "min_consensus_cer": 0.3},
             "prominence": {"clips_analyzed": 10, "n_runs": 4},
             "benchmaxx_leaderboard": [{"model": "m", "in_whitelist": False, "benchmaxx_score": 0.25,
                                        "accepted_ref": 1, "followed_consensus": 3, "eligible_runs": 4},
                                       {"model": "a", "in_whitelist": True, "benchmaxx_score": 0.5,
                                        "accepted_ref": 1, "followed_consensus": 1, "eligible_runs": 2}]}
SWITCH = {"g": {"scope": "within-tiny", "arms": ["Mr", "mister"], "chance": 0.5, "min_per_arm": 3,
                "results": {"m": {"switch": 0.5, "lo": 0.15, "hi": 0.85, "limiting_arm": "Mr",
                                  "arms": {"Mr": {"hits": 2, "n": 4}, "mister": {"hits": 3, "n": 4}}}}}}


def _release(tmp_path, change_aggregate=None, change_switch=None):
    return write_release(tmp_path, AGGREGATE, SWITCH, change_aggregate, change_switch)


def _row(i, **values):
    return lambda d: d["benchmaxx_leaderboard"][i].update(values)


@pytest.mark.parametrize("change_aggregate, change_switch, said", [
    (lambda d: d.update(whitelist=["a", 3]), None,
     "tiny_aggregate.json: tiny: whitelist[2] is 3 (int), not a name: the release writes names as JSON strings"),
    (None, lambda d: d["g"].update(arms=["Mr", 1]),
     "ortho_switch.json: g: arms[2] is 1 (int), not a name: the release writes names as JSON strings"),
    (_row(0, in_whitelist="false"), None,
     "tiny_aggregate.json: benchmaxx_leaderboard[1]: in_whitelist must be true or false, got 'false' (str)"),
    (_row(0, in_whitelist=True), None,
     "tiny_aggregate.json: benchmaxx_leaderboard[1]: in_whitelist is true, but model 'm' is not in the whitelist "
     "['a', 'b']"),
    (_row(1, in_whitelist=False), None,
     "tiny_aggregate.json: benchmaxx_leaderboard[2]: in_whitelist is false, but model 'a' is in the whitelist "
     "['a', 'b']"),
    (lambda d: d["prominence"].update(clips_analyzed=-3), None,
     "tiny_aggregate.json: prominence: clips_analyzed is a count, got -3"),
], ids=["whitelist-number", "arms-number", "flag-as-text", "flag-of-a-non-member", "flag-of-a-member",
        "negative-clips"])
def test_a_value_of_the_wrong_kind_is_one_line(tmp_path, cli, change_aggregate, change_switch, said):
    folder = _release(tmp_path, change_aggregate, change_switch)
    for name in ([], ["tiny"]):
        ran = cli("reference", "--dir", folder, *name)
        assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {folder}/{said}"]
        assert "Traceback" not in ran.err


def test_the_release_as_written_reads_with_its_panel(tmp_path, cli):
    from asraudit.data.published import load_published

    rows = load_published(_release(tmp_path)).sets["tiny"].rows
    assert [(r.model, r.in_panel) for r in rows] == [("m", False), ("a", True)]
    ran = cli("reference", "--dir", tmp_path / "release", "tiny")
    assert ran.code == 0
