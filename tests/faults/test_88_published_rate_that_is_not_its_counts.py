"""Case 88: a released aggregate whose published rate is not its counts' arithmetic, or that lists a model twice.

``asraudit reference`` (and an audit's ``[published]`` comparison) recomputes
every rate from the release's counts and prints the released rate beside it.
A copy whose counts were edited, or rows pasted from another set, printed a
recomputed 7.6% beside a published 39.9% (or one model twice, with two count
sets), exit 0, leaving the reader to guess which number was the paper's.
Every row of the real release is within 5e-5 of its counts (its four-decimal
rounding); a row further off, or a model listed again, is now refused naming
the row.
"""

from __future__ import annotations

import json

import pytest

PARAMS = {"majority_pct": 0.75, "min_run_len": 1, "include_middle": True, "min_ref_match_pct": 0.5,
          "min_consensus_cer": 0.3}


def _row(model="m", score=0.3986, ref=527, audio=795):
    return {"model": model, "in_whitelist": False, "benchmaxx_score": score, "accepted_ref": ref,
            "followed_consensus": audio, "eligible_runs": ref + audio}


def _release(folder, rows):
    folder.mkdir()
    (folder / "tiny_aggregate.json").write_text(json.dumps({
        "dataset": "tiny", "language": "en", "split": "test", "whitelist": ["a"], "params": PARAMS,
        "prominence": {"clips_analyzed": 10, "n_runs": 1338}, "benchmaxx_leaderboard": rows}), encoding="utf-8")
    return folder


@pytest.mark.parametrize("rows, said", [
    ([_row(ref=100, audio=1222)], "benchmaxx_leaderboard[1]: benchmaxx_score 0.3986 is not its counts' rate: "
                                  "accepted_ref 100 of 1322 verdicts is 0.0756"),
    ([_row(), _row("n", 0.5, 1, 1), _row()], "benchmaxx_leaderboard[3]: model 'm' is listed again "
                                             "(first at benchmaxx_leaderboard[1])"),
], ids=["rate-not-its-counts", "model-twice"])
def test_a_release_that_contradicts_itself_is_refused_naming_the_row(tmp_path, cli, rows, said):
    folder = _release(tmp_path / "release", rows)
    for args in (("reference", "--dir", folder), ("reference", "--dir", folder, "tiny")):
        ran = cli(*args)
        assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {folder / 'tiny_aggregate.json'}: {said}"]


def test_the_releases_own_rounding_is_accepted(tmp_path, cli):
    """527/1322 = 0.398638...; the release writes 0.3986, 3.8e-5 away."""
    ran = cli("reference", "--dir", _release(tmp_path / "release", [_row(), _row("n", 0.5, 1, 1)]), "tiny")
    assert ran.code == 0 and "39.86%" in ran.out


def test_a_switch_rate_that_is_not_its_lowest_arm_is_refused(tmp_path, cli):
    folder = tmp_path / "release"
    folder.mkdir()
    arms = {"spaced": {"hits": 26, "n": 32}, "solid": {"hits": 57, "n": 70}}
    (folder / "ortho_switch.json").write_text(json.dumps({"spacing": {
        "scope": "within-librispeech", "arms": ["spaced", "solid"], "chance": 0.5, "min_per_arm": 5,
        "results": {"m": {"switch": 0.9, "lo": 0.6, "hi": 0.95, "limiting_arm": "spaced", "arms": arms}}}}),
        encoding="utf-8")
    ran = cli("reference", "--dir", folder)
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {folder / 'ortho_switch.json'}: spacing.results.m: switch 0.9 is not its arms' rate: "
        "the lowest arm's hits/n is 0.8125"]
