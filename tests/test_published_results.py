"""The paper's released aggregates: read typed, every rate and interval recomputed from its counts.

The release lives outside the project (``../shared`` or ``/work/shared``); the
cases that need it skip cleanly when it is absent.  The bad-input cases use
small files written here.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from asraudit.cli import main
from asraudit.data.published import load_published
from asraudit.errors import InputError
from asraudit.metrics.published_rates import accept_ref_of, switch_of

PROJECT_ROOT = Path(__file__).resolve().parents[1]
CANDIDATES = [PROJECT_ROOT.parent / "shared" / "reference" / "hume-paper-results",
              Path("/work/shared/reference/hume-paper-results")]

# The release writes accept-ref rounded to 4 decimals: a recomputed rate is within half a unit of the 4th.
ROUNDED_4 = 0.5e-4
# Switch rates and Wilson bounds are written at full double precision: the same arithmetic on the same
# integers agrees to a few ulps whatever the order of operations (relative 1e-12 is ~4,500 ulps).
FULL_PRECISION = 1e-12


@pytest.fixture(scope="module")
def released():
    folder = next((c for c in CANDIDATES if c.is_dir()), None)
    if folder is None:
        pytest.skip("the paper's released results (shared/reference/hume-paper-results) are absent")
    return load_published(folder)


def test_every_published_accept_ref_is_its_counts_ratio(released):
    assert len(released.sets) == 6
    n = 0
    for s in released.sets.values():
        assert s.rows and all(r.eligible == r.ref + r.audio for r in s.rows)
        for r in s.rows:
            iv = accept_ref_of(r).accept_ref
            assert abs(iv.estimate - r.published_rate) <= ROUNDED_4, (s.name, r.model)
            assert iv.method == "wilson" and iv.low <= iv.estimate <= iv.high
            n += 1
    assert n == 7 + 13 + 44 + 44 + 41 + 39


def test_every_published_switch_rate_and_interval_is_asraudits_wilson_on_the_limiting_arm(released):
    assert set(released.switches) == {"spacing", "hon_mister"}
    assert [len(g.rows) for g in released.switches.values()] == [46, 43]
    for g in released.switches.values():
        for r in g.rows:
            mine = switch_of(r)
            assert math.isclose(mine.switch.estimate, r.published_rate, rel_tol=FULL_PRECISION), (g.name, r.model)
            assert math.isclose(mine.switch.low, r.published_low, rel_tol=FULL_PRECISION), (g.name, r.model)
            assert math.isclose(mine.switch.high, r.published_high, rel_tol=FULL_PRECISION), (g.name, r.model)
            limiting = r.arms[r.limiting_arm]
            assert math.isclose(limiting.hits / limiting.n, mine.switch.estimate, rel_tol=FULL_PRECISION)


def test_the_listing_and_a_sets_table(released, capsys):
    assert main(["reference", "--dir", str(released.folder)]) == 0
    out = capsys.readouterr().out
    assert "vox_en_newwl4" in out and "hon_mister" in out and "kimi-audio-7b" in out
    assert main(["reference", "--dir", str(released.folder), "daikon_en"]) == 0
    out = capsys.readouterr().out
    assert "published, not re-measured" in out and "45.65%" in out


def test_the_folder_may_come_from_the_environment(released, capsys, monkeypatch):
    monkeypatch.setenv("ASRAUDIT_PAPER_RESULTS", str(released.folder))
    assert main(["reference", "spacing"]) == 0
    assert "81.25%" in capsys.readouterr().out


def _aggregate(tmp_path, **changes):
    d = {"dataset": "tiny", "language": "en", "split": "test", "whitelist": ["a", "b"],
         "params": {"majority_pct": 0.75, "min_run_len": 1, "include_middle": True, "min_ref_match_pct": 0.5,
                    "min_consensus_cer": 0.3},
         "prominence": {"clips_analyzed": 10, "n_runs": 4},
         "benchmaxx_leaderboard": [{"model": "m", "in_whitelist": False, "benchmaxx_score": 0.25,
                                    "accepted_ref": 1, "followed_consensus": 3, "eligible_runs": 4}]}
    d.update(changes)
    (tmp_path / "tiny_aggregate.json").write_text(json.dumps(d), encoding="utf-8")
    return tmp_path


def test_a_small_release_reads_back_typed(tmp_path):
    s = load_published(_aggregate(tmp_path)).sets["tiny"]
    assert (s.corpus, s.panel, s.settings.majority, s.clips, s.edits) == ("tiny", ("a", "b"), 0.75, 10, 4)
    assert accept_ref_of(s.rows[0]).accept_ref.estimate == 0.25


@pytest.mark.parametrize("args, message", [
    (["reference"], "ASRAUDIT_PAPER_RESULTS"),
    (["reference", "--dir", "{tmp}/nowhere"], "no such folder"),
    (["reference", "--dir", "{tmp}", "nothing"], "no published set 'nothing'"),
])
def test_bad_input_is_one_line(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.delenv("ASRAUDIT_PAPER_RESULTS", raising=False)
    _aggregate(tmp_path)
    assert main([a.format(tmp=tmp_path) for a in args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err


def test_a_missing_field_names_the_file_and_the_field(tmp_path):
    with pytest.raises(InputError) as exc:
        load_published(_aggregate(tmp_path, params={"majority_pct": 0.75}))
    assert "tiny_aggregate.json" in str(exc.value) and "'min_run_len'" in str(exc.value)


@pytest.mark.parametrize("row, message", [
    ({"accepted_ref": -5}, "benchmaxx_leaderboard[1]: accepted_ref is a count, got -5"),
    ({"accepted_ref": 99}, "benchmaxx_leaderboard[1]: accepted_ref 99 + followed_consensus 3 exceed eligible_runs 4"),
    ({"eligible_runs": 0}, "benchmaxx_leaderboard[1]: accepted_ref 1 + followed_consensus 3 exceed eligible_runs 0"),
])
def test_counts_that_cannot_be_are_refused_naming_the_row(tmp_path, row, message):
    """A negative count was a ValueError traceback from the Wilson interval; counts that do not add up were
    printed as a recomputed rate (99.2% beside a published 39.9%) as if one of the two were wrong."""
    leaderboard = [{"model": "m", "in_whitelist": False, "benchmaxx_score": 0.25, "accepted_ref": 1,
                    "followed_consensus": 3, "eligible_runs": 4, **row}]
    with pytest.raises(InputError) as exc:
        load_published(_aggregate(tmp_path, benchmaxx_leaderboard=leaderboard))
    assert str(exc.value).endswith(f"tiny_aggregate.json: {message}")
