"""The full reference-error miner: edits of every kind, verdicts, leave-one-out.

The synthetic benchmark plants reference errors whose truth is known (the
audio is generated first, the reference is the audio with errors written in),
gives a panel of noisy models the audio, and measures the miner's recall and
precision against the truth.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from asraudit.data.predictions import load_predictions
from asraudit.errors import InputError
from asraudit.metrics.model_wer import NormalizedCache
from asraudit.probes.corrected import apply_edits
from asraudit.probes.refdis import (
    ClipInput,
    HypCells,
    MinerParams,
    mine,
    mine_clip,
    prepare_clips,
)
from asraudit.probes.refdis_votes import canonical
from asraudit.probes.refdis_score import accept_ref
from asraudit.text.align import edit_counts
from asraudit.text.normalize import get_normalizer

PANEL = ["p0", "p1", "p2", "p3"]


def clip(ref: str, **hyps: str) -> ClipInput:
    return ClipInput("c", tuple(ref.split()), {m: tuple(h.split()) for m, h in hyps.items()})


def only_edit(result):
    assert len(result.edits) == 1, [(e.kind, e.r, e.a) for e in result.edits]
    return result.edits[0]


# ------------------------------------------------------- planted reference errors

WORDS = ("the of and to in a is that for it as was with be by on not he i this are or his from at which "
         "but have an they you were her she there been one all we their its has would more if will can "
         "council parliament member states european union commission report vote budget policy energy").split()


def _noisy(words, rng, rate):
    out = []
    for w in words:
        r = rng.random()
        if r < rate / 3:
            continue  # the model drops the word
        if r < 2 * rate / 3:
            out.append(rng.choice(WORDS))  # ... mishears it
            continue
        out.append(w)
        if r < rate:
            out.append(rng.choice(WORDS))  # ... or adds one
    return out


def planted_benchmark(n_clips=300, seed=0, noise=0.06, echo_p=0.5, n_panel=5):
    """Clips whose reference is the audio with 0-2 planted errors; truth kept per clip."""
    rng = random.Random(seed)
    clips, truth = [], {}
    for c in range(n_clips):
        audio = [rng.choice(WORDS) for _ in range(rng.randint(8, 25))]
        ref = list(audio)
        for p in sorted(rng.sample(range(1, len(audio) - 1), rng.choice([0, 1, 1, 2])), reverse=True):
            kind = rng.choice(["delete", "insert", "substitute"])
            if kind == "delete":  # the reference has a word that was not said
                ref.insert(p, rng.choice(WORDS))
            elif kind == "insert":  # the reference omits a word that was said
                del ref[p]
            else:
                ref[p] = rng.choice([w for w in WORDS if w != ref[p]])
        hyps = {f"panel{i}": tuple(_noisy(audio, rng, noise)) for i in range(n_panel)}
        hyps["follows_audio"] = tuple(_noisy(audio, rng, noise))
        hyps["echo"] = tuple(ref if rng.random() < echo_p else audio)  # copies the reference on ~half the clips
        cid = f"c{c}"
        clips.append(ClipInput(cid, tuple(ref), hyps))
        truth[cid] = (tuple(ref), tuple(audio))
    return clips, truth


def precision_recall(edits, truth):
    """precision: mined edits that each move the reference toward the audio by their whole size;
    recall: share of the reference's word errors removed by applying every mined edit."""
    by_clip = {}
    for e in edits:
        by_clip.setdefault(e.clip_id, []).append(e)
    good = bad = fixed = total = 0
    for cid, (ref, audio) in truth.items():
        before = Levenshtein.distance(ref, audio)
        total += before
        for e in by_clip.get(cid, []):
            one = apply_edits(ref, [e])
            if Levenshtein.distance(ref, one) + Levenshtein.distance(one, audio) == before:
                good += 1
            else:
                bad += 1
        fixed += before - Levenshtein.distance(apply_edits(ref, by_clip.get(cid, [])), audio)
    return good / (good + bad), fixed / total


@pytest.fixture(scope="module")
def planted():
    clips, truth = planted_benchmark()
    return truth, mine(clips, [f"panel{i}" for i in range(5)])


def test_miner_recovers_planted_reference_errors_with_high_precision_and_recall(planted):
    truth, result = planted
    precision, recall = precision_recall(result.full_panel_edits(), truth)
    # Measured 1.000 and 0.972 (seed 0, 6% word noise per model, 5-member panel).
    assert precision >= 0.97
    assert recall >= 0.93
    kinds = {e.kind for e in result.full_panel_edits()}
    assert kinds == {"delete", "insert", "substitute"}


def test_accept_ref_separates_the_echoing_model_from_the_transcribing_one(planted):
    _, result = planted
    scores = accept_ref(result.edits, ["echo", "follows_audio"])
    echo, audio = scores["echo"], scores["follows_audio"]
    assert 0.38 <= echo.rate <= 0.62  # it copies the reference on half the clips
    assert echo.n_other == 0
    assert audio.rate < 0.05  # only its own dropped words read as the reference's omissions
    assert audio.high < echo.low


def test_recall_degrades_gracefully_with_noisier_models():
    clips, truth = planted_benchmark(n_clips=150, seed=1, noise=0.10)
    precision, recall = precision_recall(mine(clips, [f"panel{i}" for i in range(5)]).full_panel_edits(), truth)
    assert precision >= 0.95 and recall >= 0.85  # measured 1.000 / 0.92


# ---------------------------------------------------------------- edit kinds


def test_each_kind_and_position_is_mined_with_its_rendering():
    ref = "madam president the report on fisheries is adopted today"
    said = "thank you the report on the fisheries policy is adopted"
    result = mine_clip(clip(ref, p0=said, p1=said, p2=said, p3=said, echo=ref), PANEL)
    got = [(e.kind, e.position, e.r, e.a) for e in result.edits]
    assert got == [
        ("substitute", "start", "madam president", "thank you"),
        ("insert", "middle", "", "the"),
        ("insert", "middle", "", "policy"),
        ("delete", "end", "today", ""),
    ]
    assert all(e.verdicts["echo"] == "ref" for e in result.edits)
    assert all(e.texts["echo"] == e.r for e in result.edits if e.kind != "insert")


def test_a_change_the_aligner_splits_in_two_is_one_substitution():
    ref = "if we have a surge of medical capacity"
    said = "if we have search of medical capacity"
    edit = only_edit(mine_clip(clip(ref, p0=said, p1=said, p2=said, p3=said), PANEL))
    assert (edit.kind, edit.r, edit.a) == ("substitute", "a surge", "search")


def test_a_repeated_word_is_one_insertion_wherever_each_aligner_puts_it():
    ref = "we have one vote"
    said = "we have have one vote"
    edit = only_edit(mine_clip(clip(ref, p0=said, p1=said, p2=said, p3=said), PANEL))
    assert (edit.kind, edit.ref_start, edit.a) == ("insert", 1, "have")
    assert canonical(ref.split(), (2, 2, ("have",))) == (1, 1, ("have",))


def test_substitution_close_to_the_reference_is_a_normalization_artifact():
    ref = "nous devons lactuelle situation examiner"
    said = "nous devons l actuelle situation examiner"
    assert mine_clip(clip(ref, p0=said, p1=said, p2=said, p3=said), PANEL).edits == []
    loose = MinerParams(min_consensus_cer=0.0)
    assert only_edit(mine_clip(clip(ref, p0=said, p1=said, p2=said, p3=said), PANEL, loose)).kind == "substitute"


def test_panel_must_agree_on_the_rendering_of_a_substitution():
    ref = "we can make progress only if citizens support it"
    result = mine_clip(clip(ref, p0="we can do progress only if citizens support it",
                            p1="we can do progress only if citizens support it",
                            p2="we can get progress only if citizens support it",
                            p3="we can see progress only if citizens support it"), PANEL)
    assert result.edits == []


def test_own_errors_near_the_edit_do_not_cost_a_member_its_vote():
    ref = "madam president the report is adopted"
    edit = only_edit(mine_clip(clip(
        ref,
        p0="the report is adopted", p1="the report is adopted",
        p2="the reports is adopted",  # its own error right next to the edit
        p3="the report is adopted today",
    ), PANEL))
    assert (edit.kind, edit.r, edit.votes) == ("delete", "madam president", 4)


def test_verdicts_ref_audio_other_and_ineligible():
    ref = "we can make progress only if the european project is supported"
    said = "we can do progress only if the european project is supported"
    result = mine_clip(clip(ref, p0=said, p1=said, p2=said, p3=said,
                            echo=ref, transcribes=said,
                            third="we can have progress only if the european project is supported",
                            empty=""), PANEL)
    v = only_edit(result).verdicts
    assert (v["echo"], v["transcribes"], v["third"], v["empty"]) == ("ref", "audio", "other", "ineligible")


def test_interior_edits_are_dropped_in_boundary_only_mode():
    ref = "the report on fisheries policy is adopted today"
    said = "the report on policy is adopted today"
    c = clip(ref, p0=said, p1=said, p2=said, p3=said)
    assert only_edit(mine_clip(c, PANEL)).position == "middle"
    assert mine_clip(c, PANEL, MinerParams(include_middle=False)).edits == []


def test_min_run_len_counts_reference_tokens_and_inserted_tokens():
    ref = "the report is adopted"
    said = "thank you the report is adopted"
    c = clip(ref, p0=said, p1=said, p2=said, p3=said)
    assert only_edit(mine_clip(c, PANEL, MinerParams(min_run_len=2))).a == "thank you"
    assert mine_clip(c, PANEL, MinerParams(min_run_len=3)).edits == []


# -------------------------------------------------------------- leave-one-out


def test_a_panel_member_that_echoes_the_reference_is_charged_leave_one_out():
    ref = "madam president the report is adopted today"
    said = "the report is adopted today"
    c = clip(ref, p0=said, p1=said, p2=said, p3=ref, outsider=ref)
    # The whole panel (4 of 4 needed) never finds it: p3 refuses.  The panel
    # without p3 (3 of 3) does, and charges p3 alone.
    edit = only_edit(mine_clip(c, PANEL))
    assert not edit.in_full_panel and edit.loo_for == ("p3",)
    assert edit.verdicts == {"p3": "ref"}
    # Judged by its own vote, the same member is never charged.
    assert mine_clip(c, PANEL, MinerParams(leave_one_out=False)).edits == []


def test_panel_members_are_judged_by_edits_mined_without_them():
    ref = "madam president the report is adopted today"
    said = "the report is adopted today"
    edit = only_edit(mine_clip(clip(ref, p0=said, p1=said, p2=said, p3=said, outsider=ref), PANEL))
    assert edit.in_full_panel and edit.loo_for == tuple(PANEL)
    assert edit.verdicts == {"p0": "audio", "p1": "audio", "p2": "audio", "p3": "audio", "outsider": "ref"}


def test_clip_status_small_panel_and_empty_reference():
    said = "the report is adopted"
    small = ClipInput("a", tuple("madam the report is adopted".split()),
                      {"p0": tuple(said.split()), "p1": tuple(said.split()), "p2": (), "p3": ()})
    empty = ClipInput("b", (), {"p0": ("x",), "p1": ("x",), "p2": ("x",), "p3": ("x",)})
    result = mine([small, empty], PANEL)
    assert result.status == {"mined": 0, "empty_reference": 1, "small_panel": 1}
    with pytest.raises(InputError, match="panel needs at least 3"):
        mine([small], PANEL[:2])
    with pytest.raises(InputError, match="majority"):
        mine([small], PANEL, MinerParams(majority=1.5))


# ------------------------------------------------------------------- cells


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from("abcde"), max_size=12), st.lists(st.sampled_from("abcdef"), max_size=12))
def test_cells_partition_the_hypothesis_and_mark_exactly_the_differences(ref, hyp):
    cells = HypCells(ref, hyp)
    n = len(ref)
    assert sum((cells.text(c, c + 1) for c in range(2 * n + 1)), ()) == tuple(hyp)
    for i in range(n):
        assert cells.diff[2 * i + 1] == (cells.text(2 * i + 1, 2 * i + 2) != (ref[i],))
    for g in range(n + 1):
        assert cells.diff[2 * g] == bool(cells.text(2 * g, 2 * g + 1))
    subs, dels, _ = edit_counts(ref, hyp)
    assert cells.hits == n - subs - dels


# -------------------------------------------------------------- shared data


def test_full_miner_on_voxpopuli_finds_substitutions_and_interior_edits(shared_predictions):
    pset = load_predictions(shared_predictions)
    panel = ["wav2vec2-base-960h", "whisper-tiny.en", "whisper-base.en", "whisper-small.en"]
    result = mine(prepare_clips(pset, NormalizedCache(get_normalizer("whisper"))), panel)
    full = result.full_panel_edits()
    kinds = {(e.kind, e.position) for e in full}
    assert ("substitute", "middle") in kinds and ("insert", "middle") in kinds and ("delete", "middle") in kinds
    found = {(e.clip_id, e.r, e.a) for e in full}
    assert ("20170703-0900-PLENARY-18-en_20170703-19:41:40_0", "madam president", "dear colleagues") in found
    assert ("20180117-0900-PLENARY-6-en_20180117-12:24:27_2", "make", "do") in found
    # distil-small.en is not on the panel: every full-panel edit scores it
    assert all("distil-small.en" in e.verdicts for e in full)
