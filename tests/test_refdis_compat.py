"""`--compat hume` reproduces the paper's released implementation exactly.

On the shared VoxPopuli-150 predictions the recorded output of that
implementation must come back field by field; for other parameter settings
the digests below were recorded by running the released code
(HumeAI/asr-benchmark-optimization, ``ref-disagreement``) on the same data.
The hand-made clips pin the rules one at a time; their expected outputs were
worked out by hand and agree with the released code.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest

from asraudit.cli import main
from asraudit.data.predictions import load_predictions
from asraudit.errors import InputError
from asraudit.probes.refdis_compat import HumeParams, char_distance, hume_normalize, mine_clip_hume
from asraudit.probes.refdis_compat_run import accept_ref_hume, run_hume, wilson_196

PANEL = ["wav2vec2-base-960h", "whisper-tiny.en", "whisper-base.en", "whisper-small.en"]
P4 = ["a", "b", "c", "d"]


def _clip(ref: str, panel_hyps: list[str], **others: str):
    panel = dict(zip(P4, panel_hyps))
    return ref.split(), panel, {**panel, **others}


def _edits_json(edits):
    return [e.to_json() for e in edits]


# ------------------------------------------------------------ shared data


@pytest.fixture(scope="module")
def shared(shared_reference_dir):
    pset = load_predictions(shared_reference_dir / "predictions")
    expected = json.loads((shared_reference_dir / "expected_refdis_default.json").read_text())
    return pset, expected


def test_default_run_matches_the_release_field_by_field(shared):
    pset, expected = shared
    got = run_hume(pset, PANEL).to_json()
    assert all(e.pop("clip") for e in got["edits"])  # every edit names its clip
    assert got["n_edits"] == 31
    for key in ("n_clips", "panel", "n_edits", "params"):
        assert got[key] == expected[key]
    assert list(got["accept_ref"].items()) == list(expected["accept_ref"].items())  # values and order
    assert got["edits"] == expected["edits"]  # every field, verdict and the order of edits


# Recorded with the released code on the shared data, panel PANEL:
# (params, n_edits, {(kind, position): n}, sha256 of {"edits", "accept_ref"} as sorted-key JSON).
RELEASE_RUNS = [
    (dict(majority=0.8, min_run_len=1, include_middle=False), 31,
     {("delete", "end"): 4, ("delete", "start"): 19, ("insert", "end"): 3, ("insert", "start"): 5},
     "52618332e651febb81240f07a75fc9a2f524cdac6249ef745c60ae410bf58e8e"),
    (dict(majority=0.5, min_run_len=1, include_middle=True), 147,
     {("delete", "end"): 8, ("delete", "middle"): 102, ("delete", "start"): 22, ("insert", "end"): 6,
      ("insert", "start"): 9},
     "87e0eaf7309eeff2489c3916d490917907f0219431d3d6466323d116533004f1"),
    (dict(majority=0.75, min_run_len=2, include_middle=True), 34,
     {("delete", "end"): 2, ("delete", "middle"): 17, ("delete", "start"): 11, ("insert", "end"): 2,
      ("insert", "start"): 2},
     "f1ce34c3d80bbc4ffc424cf0dcf8906232e6a8527e8f706a1c73623c2c197d40"),
    (dict(majority=0.6, min_run_len=1, include_middle=False), 40,
     {("delete", "end"): 5, ("delete", "start"): 21, ("insert", "end"): 5, ("insert", "start"): 9},
     "51285ea132b80d9bf15b85be5dc7a381719242b74fbc26020a288fb99a875180"),
]


@pytest.mark.parametrize("params,n_edits,kinds,digest", RELEASE_RUNS)
def test_other_settings_match_the_release(shared, params, n_edits, kinds, digest):
    pset, _ = shared
    result = run_hume(pset, PANEL, HumeParams(**params)).to_json()
    assert result["n_edits"] == n_edits
    assert Counter((e["kind"], e["position"]) for e in result["edits"]) == kinds
    payload = {"edits": result["edits"], "accept_ref": result["accept_ref"]}
    assert hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest() == digest


def test_cli_json_has_the_release_layout_plus_clip(shared_reference_dir, tmp_path, capsys):
    out = tmp_path / "hume.json"
    code = main(["refdis", "--preds", str(shared_reference_dir / "predictions"), "--panel", ",".join(PANEL),
                 "--compat", "hume", "--json", str(out)])
    assert code == 0
    got = json.loads(out.read_text())
    expected = json.loads((shared_reference_dir / "expected_refdis_default.json").read_text())
    assert [e.pop("clip") for e in got["edits"]]
    assert got == expected
    printed = capsys.readouterr()
    assert "reference errors found: 31" in printed.out
    assert "judges them by their own vote" in printed.err  # panel overlaps the models under test


# ------------------------------------------------------------ hand-made clips


def test_replaced_span_is_a_deletion_and_the_cer_median_is_the_upper_one():
    # Two members split "lactuelle" (a spacing artifact, distance 0), two drop it
    # (distance 1).  The release takes the upper middle of [0, 0, 1, 1], so the
    # edit survives; a lower median would have dropped it.
    ref, panel, models = _clip(
        "lactuelle situation is bad today",
        ["l actuelle situation is bad today"] * 2 + ["situation is bad today"] * 2,
        echo="lactuelle situation is bad today",
        audio="situation is bad today",
    )
    (edit,) = mine_clip_hume("c", ref, panel, models)
    assert (edit.kind, edit.position, edit.text, edit.consensus_cer) == ("delete", "start", "lactuelle", 1.0)
    assert (edit.n_panel_agree, edit.n_panel) == (4, 4)
    assert edit.verdict == {"a": "consensus", "b": "consensus", "c": "consensus", "d": "consensus",
                            "echo": "ref", "audio": "consensus"}


def test_boundary_insertion_grows_outward_only_while_the_threshold_holds():
    hyps = ["thank you we support the proposal"] * 2 + [
        "you we support the proposal", "oh thank you we support the proposal"]
    ref, panel, models = _clip("we support the proposal", hyps,
                               none="we support the proposal", ty="thank you we support the proposal")
    (edit,) = mine_clip_hume("c", ref, panel, models)  # majority 0.8 of 4: all four
    assert (edit.kind, edit.position, edit.text, edit.n_panel_agree) == ("insert", "start", "you", 4)
    assert edit.consensus_cer is None
    assert edit.verdict["none"] == "ref" and edit.verdict["ty"] == "consensus"
    (edit,) = mine_clip_hume("c", ref, panel, models, HumeParams(majority=0.75))  # three of four
    assert (edit.text, edit.n_panel_agree) == ("thank you", 3)
    assert edit.verdict["c"] == "ref"  # a panel member is judged by its own (partial) insertion


def test_interior_runs_need_include_middle_and_count_votes_at_their_first_token():
    r = "the report on fisheries policy is adopted today by parliament"
    hyps = ["the report on is adopted today by parliament"] * 2 + [
        "the report on policy is adopted today by parliament"] * 2
    ref, panel, models = _clip(r, hyps, echo=r, dropped_policy="the report on fisheries is adopted today by parliament")
    assert mine_clip_hume("c", ref, panel, models, HumeParams(majority=0.5)) == []
    (edit,) = mine_clip_hume("c", ref, panel, models, HumeParams(majority=0.5, include_middle=True))
    assert (edit.position, edit.text, edit.n_panel_agree) == ("middle", "fisheries policy", 4)
    assert edit.verdict["echo"] == "ref"
    assert edit.verdict["dropped_policy"] == "consensus"  # any overlap with the span counts
    assert len(mine_clip_hume("c", ref, panel, models, HumeParams(majority=0.5, include_middle=True,
                                                                    min_run_len=3))) == 0


def test_eligibility_truncates_the_match_share_and_marks_incompetent_models_none():
    # 7 reference words: 0.5 x 7 = 3.5 truncates to 3 matched words.
    r = "madam president the report is adopted today"
    spoken = "the report is adopted today"
    ref, panel, models = _clip(r, [spoken] * 4, three="report is today", two="report today", empty="")
    (edit,) = mine_clip_hume("c", ref, panel, models)
    assert edit.text == "madam president"
    assert edit.verdict["three"] == "consensus"
    assert edit.verdict["two"] is None and edit.verdict["empty"] is None


def test_a_split_panel_or_a_small_one_finds_nothing():
    r = "madam president the report is adopted today"
    spoken = "the report is adopted today"
    ref, panel, models = _clip(r, [spoken, spoken, r, r])
    assert mine_clip_hume("c", ref, panel, models) == []  # 2-2 is not a supermajority
    ref, panel, models = _clip(r, [spoken, spoken, "", ""])  # two members ineligible
    assert mine_clip_hume("c", ref, panel, models) == []
    assert HumeParams(majority=0.3).threshold(3) == 2  # never fewer than two votes
    assert HumeParams(majority=0.8).threshold(5) == 4  # 0.8 x 5 is not rounded up to 5


def test_wilson_uses_z_196_to_the_last_digit():
    assert wilson_196(0, 31) == (0.0, 0.0, 0.11025900073475385)
    assert wilson_196(0, 27) == (0.0, 6.938893903907228e-18, 0.12455903714463581)
    assert wilson_196(0, 0) == (0.0, 0.0, 0.0)


def test_accept_ref_skips_none_and_sorts_by_rate_keeping_ties_in_first_seen_order():
    ref, panel, models = _clip("lactuelle situation is bad today", ["situation is bad today"] * 4,
                               z_echo="lactuelle situation is bad today", y_none="")
    edits = mine_clip_hume("c", ref, panel, models)
    rates = accept_ref_hume(edits)
    assert list(rates) == ["z_echo", "a", "b", "c", "d"]
    assert rates["z_echo"]["rate"] == 1.0 and "y_none" not in rates


def test_char_distance_ignores_spaces_and_counts_unmatched_reference_characters():
    assert char_distance("lactuelle", "l actuelle") == 0.0
    assert char_distance("madam", "") == 1.0
    assert char_distance("", "") == 0.0
    assert char_distance("abcd", "abxx") == 0.5


def test_normalizer_strips_fullwidth_parentheses_and_keeps_cause():
    assert hume_normalize("A good cause（applause）") == "a good cause"
    assert hume_normalize("") == ""


def test_bad_parameters_are_input_errors(shared):
    pset, _ = shared
    with pytest.raises(InputError, match="min-run-len"):
        run_hume(pset, PANEL, HumeParams(min_run_len=0))
    with pytest.raises(InputError, match="at least 3 panel"):
        run_hume(pset, PANEL[:2])
    with pytest.raises(InputError, match="no prediction file"):
        run_hume(pset, PANEL[:3] + ["nope"])
