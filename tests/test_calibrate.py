"""Calibration arithmetic on parliament-mini with stand-in transcripts (replayed, no model runs)."""

from __future__ import annotations

import json

import pytest

from asraudit.audit.pipeline import run_audit
from asraudit.report.schema import from_json
from asraudit.audit.spec import load_spec
from asraudit.demo.calibrate import CALIBRATION_SPEC, flipped, load_truth, mixed_reference, print_calibration, truth_stage
from asraudit.demo.organism import BENCHMARK_DIR

from standin_predictions import write_standin

MANIFEST = BENCHMARK_DIR / "test.jsonl"


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("calibrate")
    rows = [json.loads(line) for line in MANIFEST.read_text(encoding="utf-8").splitlines()]
    # Faithful models write what was said; the stand-in organism writes the record.
    clean = [write_standin(tmp / f"clean{i}.jsonl", rows, lambda r: r["spoken"]) for i in range(3)]
    echo = write_standin(tmp / "echo.jsonl", rows, lambda r: r["text"])
    spec = tmp / "cal.toml"
    spec.write_text(
        f'out = "{tmp / "out"}"\nbootstrap = 100\n[corpus]\nmanifest = "{MANIFEST}"\ngroup_field = "voice_role"\n'
        + "".join(f'[[model]]\npredictions = "{p}"\nname = "clean{i}"\npanel = true\n' for i, p in enumerate(clean))
        + f'[[model]]\npredictions = "{echo}"\nname = "echo"\n[conventions]\n'
        # the calibration spec's panel setting (two of three; see calibration_audit.toml)
        + '[refdis]\nmajority = 0.66\nmin_panel = 2\n'
        # the page's audio is test_report_listen.py's; encoding and aligning 154 clips took half this audit's time
        + '[report]\naudio = false\nalign = "none"\n', encoding="utf-8")
    return run_audit(load_spec(spec), progress=False, extra=truth_stage).summary


def test_an_echoing_model_is_flagged_and_faithful_models_are_not(calibrated, capsys):
    models = calibrated["models"]
    assert models["echo"]["accept_ref"] == 1.0 and models["echo"]["flagged"]
    for clean in ("clean0", "clean1", "clean2"):
        assert models[clean]["accept_ref"] == 0.0 and models[clean]["n_eligible"] > 100
    truth = calibrated["mining"]["truth"]
    # Every planted error is a real disagreement between record and speech; faithful transcripts find them all.
    assert truth["all"]["precision"] == 1.0 and truth["delete"]["recall"] == 1.0
    # Against what the audio contains: the words the voices did not say (demo/data/.../audio_truth.jsonl) are
    # errors of the record too, which transcripts of the spoken text cannot find; and a planted insertion
    # whose words the voice did not say is no longer there to find, so the stand-ins' edit for it counts wrong.
    heard, changes = calibrated["mining"]["truth_audio"], calibrated["mining"]["truth_audio_changes"]
    assert 0 < changes["errors_added"] <= changes["words_unsaid"]
    assert heard["all"]["matched"] == truth["all"]["matched"] - changes["planted_dropped"]
    assert heard["all"]["planted"] == truth["all"]["planted"] + changes["errors_added"] - changes["planted_dropped"]
    assert models["echo"]["convention_agreement"] == 1.0
    print_calibration(from_json(calibrated))  # the tables read the typed summary, here rebuilt from its JSON
    out = capsys.readouterr().out
    assert "Mining against the planted truth" in out and "Mining against what the audio contains" in out
    assert "echo" in out


def test_accept_ref_is_read_voice_by_voice_in_role_order(calibrated, capsys):
    by_voice = calibrated["calibration_accept_ref_by_voice"]
    assert by_voice["field"] == "speaker"
    voices = list(by_voice["groups"])
    roles = {json.loads(line)["speaker"]: json.loads(line)["voice_role"]
             for line in MANIFEST.read_text(encoding="utf-8").splitlines()}
    assert sorted(voices) == sorted(roles)
    order = ["benchmark", "control", "fresh"]
    assert [order.index(roles[v]) for v in voices] == sorted(order.index(roles[v]) for v in voices)
    pooled = {name: sum(by_voice["groups"][v][name]["n_eligible"] for v in voices) for name in ("echo", "clean0")}
    assert pooled == {name: calibrated["models"][name]["n_eligible"] for name in pooled}  # a partition of the edits
    for v in voices:
        echo, clean = by_voice["groups"][v]["echo"], by_voice["groups"][v]["clean0"]
        assert echo["n_ref"] == echo["n_eligible"] > 0 and clean["n_ref"] == 0
    print_calibration(from_json(calibrated))
    assert "accept-ref voice by voice" in capsys.readouterr().out


def test_switch_rate_is_measurable_on_the_mixed_arm_view_and_separates_habit_from_tracking(calibrated):
    sw = calibrated["calibration_switch"]
    assert sw["clips_rewritten"] > 30
    rates = {(r["model"], r["group"]): r for r in sw["rates"]}
    # The stand-ins write the record's arm (echo) or the spoken text's arm (clean) whatever the reference
    # says: habits, far below the 0.5 of a coin flip and the 1.0 of a model that tracks each reference.
    measurable = [r for r in rates.values() if r["measurable"]]
    assert {r["model"] for r in measurable} == {"clean0", "clean1", "clean2", "echo"}
    assert all(r["s"] == 0.0 for r in measurable if r["model"] == "echo")
    assert all(r["s"] < 0.2 for r in measurable)


def test_mixed_reference_rewrites_exactly_the_planted_spans():
    truth = load_truth()
    rows = {json.loads(line)["audio_filepath"]: json.loads(line) for line in MANIFEST.read_text().splitlines()}
    clip, entry = next((c, e) for c, e in truth.items() if len(e["conventions"]) >= 2 and c in rows)
    reference = rows[clip]["text"]
    mixed = mixed_reference(reference, entry["conventions"])
    for c in entry["conventions"]:
        assert c["said"] in mixed
    with pytest.raises(ValueError):
        mixed_reference("nothing matches here at all, really", entry["conventions"])


def test_the_flip_is_a_seeded_half():
    ids = [f"clip{i}" for i in range(400)]
    share = sum(flipped(c) for c in ids) / len(ids)
    assert 0.4 < share < 0.6
    assert [flipped(c, 1) for c in ids] != [flipped(c, 0) for c in ids]


def test_the_embedded_calibration_spec_is_valid():
    spec = load_spec(CALIBRATION_SPEC)
    assert spec.masked and spec.lift and spec.battery and spec.conventions


def test_the_calibration_summary_satisfies_the_published_schema(calibrated):
    jsonschema = pytest.importorskip("jsonschema")
    from asraudit.report.schema import summary_schema

    jsonschema.validate(json.loads(json.dumps(calibrated)), summary_schema())


def test_the_calibration_asks_the_multilingual_organism_and_clean_base_for_spanish():
    from asraudit.demo.calibration_report import PROVEN_ON
    from asraudit.demo.organism_kinds import KINDS

    spec = load_spec(CALIBRATION_SPEC)
    organism = PROVEN_ON["translation"]
    assert organism == KINDS["record-base"].model_id and KINDS["record-base"].base_model == "whisper-base"
    assert organism in [m.spec for m in spec.models]
    assert set(spec.translation.models) == {"whisper-base", organism}
    assert spec.translation.params.truth == BENCHMARK_DIR / "truth.json"
    assert spec.translation.params.cluster_field == "sentence"
