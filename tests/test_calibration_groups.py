"""The organisms' calibration readouts: masked recovery per voice role, switch rate by the voice cue."""

from __future__ import annotations

import json
from types import SimpleNamespace

from asraudit.data.corpus import Clip
from asraudit.demo.calibrate import load_truth
from asraudit.demo.calibration_groups import masked_by_group, switch_against, voice_cue_references
from asraudit.demo.mixed_arm import SPOKEN_ARM_VOICES
from asraudit.demo.organism import BENCHMARK_DIR


def _ctx(group_field="voice_role"):
    rows = [json.loads(line) for line in (BENCHMARK_DIR / "test.jsonl").read_text(encoding="utf-8").splitlines()]
    clips = [Clip(r["audio_filepath"], BENCHMARK_DIR / r["audio_filepath"], r["text"], r["speaker"],
                  metadata={"voice_role": r["voice_role"], "spoken": r["spoken"]}) for r in rows]
    spec = SimpleNamespace(corpus=SimpleNamespace(group_field=group_field), bootstrap=200, seed=0)
    return SimpleNamespace(corpus=clips, spec=spec), rows


def test_a_model_that_follows_the_voice_cue_switches_and_a_habit_does_not():
    ctx, rows = _ctx()
    refs, rewritten = voice_cue_references(ctx, load_truth())
    assert set(refs) == {r["audio_filepath"] for r in rows if r["voice_role"] == "benchmark"}
    assert 20 < rewritten < len(refs) / 2
    speakers = {r["audio_filepath"]: r["speaker"] for r in rows}
    record = {r["audio_filepath"]: r["text"] for r in rows}
    assert all(speakers[c] in SPOKEN_ARM_VOICES for c in refs if refs[c] != record[c])
    # a model that writes each clip's voice-cue reference, and one that always writes the record's arm
    transcripts = {"switcher": dict(refs), "habit": record}
    sw = switch_against(refs, transcripts, rewritten)
    best = {m: max(r.s for r in sw.rates if r.model == m and r.measurable) for m in transcripts}
    assert best["switcher"] == 1.0 and best["habit"] == 0.0


def test_masked_recovery_is_regrouped_by_voice_role_from_the_per_target_table():
    ctx, rows = _ctx()
    role = {r["audio_filepath"]: r["voice_role"] for r in rows}
    table = [{"model": "m", "clip": c, "clean_recovered": True, "masked_recovered": role[c] == "benchmark",
              "control_recovered": False, "lift_masked": 0.5 if role[c] == "benchmark" else 0.0, "lift_clean": 1.0}
             for c in list(role)[:60]]
    groups = masked_by_group(ctx, SimpleNamespace(masked=SimpleNamespace(table=table)))
    assert set(groups) == {role[t["clip"]] for t in table}
    bench = groups["benchmark"][0]
    assert (bench.model, bench.masked, bench.control, bench.lift_masked) == ("m", 1.0, 0.0, 0.5)
    assert bench.masked_n == sum(1 for t in table if role[t["clip"]] == "benchmark")
    if "fresh" in groups:
        assert groups["fresh"][0].masked == 0.0


def test_without_a_group_field_or_a_masked_stage_there_are_no_groups():
    ctx, _ = _ctx(group_field=None)
    assert masked_by_group(ctx, SimpleNamespace(masked=SimpleNamespace(table=[]))) is None
    ctx, _ = _ctx()
    assert masked_by_group(ctx, SimpleNamespace(masked=None)) is None
