"""Case 166: a copy of the paper's released results whose rates, interval bounds or chance are out of range.

``asraudit reference`` (and an audit's ``[published]``) read a switch row's ``lo`` and ``hi``, a group's ``chance``,
a rate and the miner's shares as any number: ``lo`` above ``hi``, a ``switch`` outside ``[lo, hi]``, a bound of 1.7,
``NaN`` (which Python's JSON reader takes), a ``chance`` of 0 or ``NaN``, a ``switch`` or ``benchmaxx_score`` of -3 or
``NaN`` on a row with no verdicts, a ``majority_pct`` of 7.  Each was taken as released and printed (``chance nan``,
``nan%``, ``-300.00%``), exit 0.  Now the release is refused when it is read, naming the file, the row and the
field; every row of the real release reads as before (``tests/test_published_results.py`` reads it).
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
                                       {"model": "z", "in_whitelist": False, "benchmaxx_score": 0.0,
                                        "accepted_ref": 0, "followed_consensus": 0, "eligible_runs": 0}]}
SWITCH = {"g": {"scope": "within-tiny", "arms": ["Mr", "mister"], "chance": 0.5, "min_per_arm": 3,
                "results": {"m": {"switch": 0.5, "lo": 0.15, "hi": 0.85, "limiting_arm": "Mr",
                                  "arms": {"Mr": {"hits": 2, "n": 4}, "mister": {"hits": 3, "n": 4}}},
                            "z": {"switch": 0.0, "lo": 0.0, "hi": 1.0, "limiting_arm": "Mr",
                                  "arms": {"Mr": {"hits": 0, "n": 0}, "mister": {"hits": 0, "n": 0}}}}}}


def _release(tmp_path, change_aggregate=None, change_switch=None):
    return write_release(tmp_path, AGGREGATE, SWITCH, change_aggregate, change_switch)


def _switch(model, **values):
    return lambda d: d["g"]["results"][model].update(values)


NAN = float("nan")
CASES = {
    "lo-above-hi": (None, _switch("m", lo=0.9, hi=0.2),
                    "ortho_switch.json: g.results.m: lo 0.9 exceeds hi 0.2: not an interval"),
    "rate-outside": (None, _switch("m", lo=0.6, hi=0.9),
                     "ortho_switch.json: g.results.m: switch 0.5 lies outside its interval [lo 0.6, hi 0.9]"),
    "hi-above-one": (None, _switch("m", hi=1.7), "ortho_switch.json: g.results.m: hi must be a number in [0, 1], got 1.7"),
    "lo-nan": (None, _switch("m", lo=NAN), "ortho_switch.json: g.results.m: lo must be a number in [0, 1], got nan"),
    "chance-zero": (None, lambda d: d["g"].update(chance=0),
                    "ortho_switch.json: g: chance must be a number in (0, 1), got 0.0"),
    "chance-nan": (None, lambda d: d["g"].update(chance=NAN),
                   "ortho_switch.json: g: chance must be a number in (0, 1), got nan"),
    "chance-one": (None, lambda d: d["g"].update(chance=1),
                   "ortho_switch.json: g: chance must be a number in (0, 1), got 1.0"),
    "switch-nan-no-clips": (None, _switch("z", switch=NAN),
                            "ortho_switch.json: g.results.z: switch must be a number in [0, 1], got nan"),
    "switch-negative-no-clips": (None, _switch("z", switch=-3),
                                 "ortho_switch.json: g.results.z: switch must be a number in [0, 1], got -3.0"),
    "score-nan-no-verdicts": (lambda d: d["benchmaxx_leaderboard"][1].update(benchmaxx_score=NAN), None,
                              "tiny_aggregate.json: benchmaxx_leaderboard[2]: benchmaxx_score must be a number in "
                              "[0, 1], got nan"),
    "score-infinite": (lambda d: d["benchmaxx_leaderboard"][1].update(benchmaxx_score=float("inf")), None,
                       "tiny_aggregate.json: benchmaxx_leaderboard[2]: benchmaxx_score must be a number in [0, 1], "
                       "got inf"),
    "majority-seven": (lambda d: d["params"].update(majority_pct=7), None,
                       "tiny_aggregate.json: params: majority_pct must be a number in [0, 1], got 7.0"),
    "cer-negative": (lambda d: d["params"].update(min_consensus_cer=-0.3), None,
                     "tiny_aggregate.json: params: min_consensus_cer must be a number in [0, inf], got -0.3"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_value_out_of_range_is_one_line_naming_file_row_and_field(tmp_path, cli, case):
    change_aggregate, change_switch, said = CASES[case]
    folder = _release(tmp_path, change_aggregate, change_switch)
    for name in ([], ["g"], ["tiny"]):
        ran = cli("reference", "--dir", folder, *name)
        assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {folder}/{said}"], ran.err
        assert not ran.out


def test_the_release_in_range_reads_and_its_edges_are_kept(tmp_path, cli):
    folder = _release(tmp_path, None, _switch("m", lo=0.5, hi=0.5))  # a rate on its bound is inside
    ran = cli("reference", "--dir", folder, "g")
    assert ran.code == 0 and not ran.error_lines, ran.err
    assert "chance 0.5" in ran.out

