"""Three WERs (record, panel-corrected leave-one-out, truth) and their rankings."""

from __future__ import annotations

import math

from asraudit.probes.refdis import ClipInput, MinerParams, mine
from asraudit.probes.wer_ranking import measure_wer_ranking
from asraudit.metrics.stats import bootstrap_ratio_difference

PANEL = ["a", "b", "c"]
PARAMS = MinerParams(majority=0.66, min_panel=2)


def _clip(cid: str, ref: str, **hyps: str) -> ClipInput:
    return ClipInput(cid, tuple(ref.split()), {m: tuple(h.split()) for m, h in hyps.items()})


def _echo_corpus(n: int = 12):
    """Each reference carries a courtesy opener nobody said; the panel hears the truth, the echo writes the record."""
    clips, truth = [], {}
    for i in range(n):
        said = f"the commission must present report number {i} before the summer"
        record = "madam president " + said
        clips.append(_clip(f"c{i}", record, a=said, b=said, c=said, echo=record, faithful=said))
        truth[f"c{i}"] = tuple(said.split())
    return clips, truth


def test_echo_model_ranks_first_on_the_record_and_last_on_truth():
    clips, truth = _echo_corpus()
    models = PANEL + ["echo", "faithful"]
    result = mine(clips, PANEL, PARAMS, scored=models)
    ranking = measure_wer_ranking(clips, result.edits, models, PANEL, truth, n_boot=200)
    assert ranking.clips == 12
    assert ranking.ranking["record"][0] == "echo"
    assert ranking.rank_of("echo", "truth") == len(models)
    assert ranking.rank_of("echo", "corrected") == len(models)
    echo = ranking.models["echo"]
    assert echo.record.estimate == 0.0
    # 2 inserted words per 10 said: the echo's WER against the truth is 0.2, and the correction finds it all.
    assert math.isclose(echo.truth.estimate, 0.2) and math.isclose(echo.corrected.estimate, 0.2)
    assert echo.corrected_minus_truth.estimate == 0.0
    for m in PANEL + ["faithful"]:
        assert ranking.models[m].truth.estimate == 0.0
        assert ranking.models[m].corrected.estimate == 0.0
        assert ranking.models[m].record_fallback_clips == 0


def test_a_member_is_never_scored_against_corrections_it_voted_for():
    # a and b hear "twelve"; c hears the record's "twenty".  The whole panel (2 of 3) corrects the record,
    # but a's leave-one-out panel (b, c) and b's (a, c) disagree, so neither member gets that correction:
    # each is scored against the record there.  An outside model reading "twelve" is scored against it.
    clips = [_clip("x", "we met twenty times", a="we met twelve times", b="we met twelve times",
                   c="we met twenty times", outsider="we met twelve times")]
    models = PANEL + ["outsider"]
    result = mine(clips, PANEL, PARAMS, scored=models)
    assert any(e.in_full_panel for e in result.edits)
    ranking = measure_wer_ranking(clips, result.edits, models, PANEL, n_boot=0)
    assert ranking.models["outsider"].corrected.estimate == 0.0
    assert ranking.models["a"].corrected.estimate == 0.25
    assert ranking.models["a"].record_fallback_clips == 1
    # c's leave-one-out panel (a, b) agrees on "twelve": c is scored against the correction and pays for "twenty".
    assert ranking.models["c"].corrected.estimate == 0.25
    assert ranking.models["c"].record_fallback_clips == 0
    assert "truth" not in ranking.ranking and ranking.models["a"].truth is None


def test_clips_are_common_to_every_ranked_model():
    clips, truth = _echo_corpus(4)
    clips.append(_clip("only-some", "hello there", a="hello there", b="hello there", c="hello there"))
    models = PANEL + ["echo"]
    result = mine(clips, PANEL, PARAMS, scored=models)
    assert measure_wer_ranking(clips, result.edits, models, PANEL, n_boot=0).clips == 4


def test_difference_interval_is_paired():
    # The same clip-level difficulty in both ways: the difference is exactly 0.1 on every resample.
    errors_a, errors_b, words = [3, 1, 5, 2], [2, 0, 4, 1], [10, 10, 10, 10]
    diff = bootstrap_ratio_difference(errors_a, words, errors_b, words, n_boot=300, seed=1)
    assert math.isclose(diff.estimate, 0.1)
    assert math.isclose(diff.low, 0.1) and math.isclose(diff.high, 0.1)
