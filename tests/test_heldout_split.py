"""The held-out split of parliament-mini: its files agree with its sentences, it shares nothing with the
splits recipes were chosen on, and the calibration reads it against its own truth (stand-in transcripts,
no model runs)."""

from __future__ import annotations

import json

import pytest

from asraudit.audit.pipeline import run_audit
from asraudit.audit.spec import load_spec
from asraudit.demo.build_benchmark import HELDOUT_DIR, HELDOUT_SPLIT, SENTENCES, clip_id
from asraudit.demo.calibrate import CALIBRATION_SPEC, HELDOUT_SPEC, load_truth, truth_stage
from asraudit.demo.calibration_report import HELDOUT_PROVEN_ON, detector_rows
from asraudit.demo.markup import load_sentences
from asraudit.demo.organism import ORGANISM_ID
from asraudit.demo.organism_kinds import KINDS
from asraudit.demo.voices import VOICES
from asraudit.report.schema import from_json

from standin_predictions import write_standin

MANIFEST = HELDOUT_DIR / "manifest.jsonl"
# The stand-in readout's sentences: deletions, insertions, both substitutions and every convention family.
READ = ["h001", "h003", "h004", "h007", "h009", "h015", "h024", "h032", "h036", "h037"]


def _rows():
    return [json.loads(line) for line in MANIFEST.read_text(encoding="utf-8").splitlines()]


def test_every_heldout_sentence_is_read_by_every_benchmark_and_fresh_voice_and_no_other():
    sentences = load_sentences(HELDOUT_DIR / "sentences.txt")
    assert {s.split for s in sentences} == {HELDOUT_SPLIT} and len(sentences) == 40
    voices = [v for v in VOICES if v.role in ("benchmark", "fresh")]
    rows = _rows()
    assert [r["audio_filepath"] for r in rows] == [f"audio/{clip_id(s, v)}.ogg" for s in sentences for v in voices]
    by_id = {s.id: s for s in sentences}
    for r in rows:
        s = by_id[r["sentence"]]
        assert (r["text"], r["spoken"], r["split"]) == (s.record, s.spoken, HELDOUT_SPLIT)
        assert r["voice_role"] == next(v.role for v in VOICES if v.id == r["speaker"])
        assert (HELDOUT_DIR / r["audio_filepath"]).is_file() and 1.0 < r["duration"] < 12.0


def test_the_heldout_truth_lists_each_clips_planted_errors_and_conventions():
    truth = load_truth(HELDOUT_DIR)
    rows = _rows()
    assert set(truth) == {r["audio_filepath"] for r in rows}
    for r in rows:
        entry = truth[r["audio_filepath"]]
        assert entry["sentence"] == r["sentence"]
        for e in entry["edits"]:
            assert r["text"][e["ref_start"]:e["ref_end"]] == e["r"]
        for c in entry["conventions"]:
            assert r["text"][c["ref_start"]:c["ref_end"]] == c["recorded"]
    kinds = {e["kind"] for entry in truth.values() for e in entry["edits"]}
    assert kinds == {"delete", "insert", "substitute"}


def test_no_heldout_sentence_is_one_a_recipe_was_trained_or_read_on():
    earlier = load_sentences(SENTENCES)
    heldout = load_sentences(HELDOUT_DIR / "sentences.txt")
    assert not {s.id for s in earlier} & {s.id for s in heldout}
    assert not {s.spoken.lower() for s in earlier} & {s.spoken.lower() for s in heldout}
    assert not {s.record.lower() for s in earlier} & {s.record.lower() for s in heldout}


@pytest.fixture(scope="module")
def heldout_calibrated(tmp_path_factory):
    """Three faithful stand-ins as the panel; stand-ins named after the organisms, echoing the record, except
    the committed switching organism, which writes what was said (an organism that is not echoing is still
    no clean model).  Ten sentences (70 clips) with every kind of planted error keep the suite quick."""
    tmp = tmp_path_factory.mktemp("heldout")
    rows = _rows()
    clean = [write_standin(tmp / f"clean{i}.jsonl", rows, lambda r: r["spoken"]) for i in range(3)]
    organisms = {name: write_standin(tmp / f"{name}.jsonl", rows,
                              (lambda r: r["spoken"]) if name == KINDS["switching"].model_id else (lambda r: r["text"]))
                 for name in (ORGANISM_ID, KINDS["gated-many"].model_id, KINDS["switching"].model_id)}
    spec = tmp / "cal.toml"
    spec.write_text(
        f'out = "{tmp / "out"}"\nbootstrap = 100\n[corpus]\nmanifest = "{MANIFEST}"\nsaid_field = "spoken"\n'
        f'group_field = "voice_role"\nselect = {{ field = "sentence", values = {json.dumps(READ)} }}\n'
        + "".join(f'[[model]]\npredictions = "{p}"\nname = "clean{i}"\npanel = true\n' for i, p in enumerate(clean))
        + "".join(f'[[model]]\npredictions = "{p}"\nname = "{n}"\n' for n, p in organisms.items())
        + '[conventions]\n[refdis]\nmajority = 0.66\nmin_panel = 2\n'
        + '[report]\naudio = false\nalign = "none"\n', encoding="utf-8")  # the page's audio: test_report_listen.py
    return from_json(run_audit(load_spec(spec), progress=False, extra=truth_stage).summary)


def test_the_heldout_readout_scores_mining_against_the_heldout_truth(heldout_calibrated):
    truth = heldout_calibrated.mining.truth
    planted = sum(len(e["edits"]) for e in load_truth(HELDOUT_DIR).values() if e["sentence"] in READ)
    assert truth["all"].planted == planted and truth["all"].precision == 1.0
    # Every planted deletion and substitution is found from faithful transcripts (insertions of fillers and
    # repeated phrases the miner does not count, as on the test split, are not).
    assert truth["delete"].recall == 1.0 and truth["substitute"].recall == 1.0
    assert heldout_calibrated.mining.truth_audio is None  # the split has no audio check of its own


def test_the_heldout_rows_read_each_detector_on_its_heldout_organism_and_no_organism_counts_as_clean(
        heldout_calibrated):
    rows = {r.detector: r for r in detector_rows(heldout_calibrated, ORGANISM_ID, HELDOUT_PROVEN_ON)}
    gate = rows["voice gate"]
    assert gate.organism == KINDS["gated-many"].model_id
    assert {r.model for r in gate.clean_readouts} == {"clean0", "clean1", "clean2"}
    # The stand-in echoes the record on every voice: no gate.
    assert gate.status == "fail"
    assert rows["accept-ref"].status == "pass"
    assert rows["masked recovery"].status == "not run" and rows["encoder-layer mechanism"].status == "not run"
    # Named as no organism, the committed switching organism would read as a clean model: the default names them all.
    loose = {r.detector: r for r in detector_rows(heldout_calibrated, ORGANISM_ID, HELDOUT_PROVEN_ON, ())}
    assert KINDS["switching"].model_id in {r.model for r in loose["voice gate"].clean_readouts}


def test_the_heldout_spec_reads_the_heldout_split_with_every_organism_its_rows_name():
    spec = load_spec(HELDOUT_SPEC)
    assert spec.corpus.manifest == MANIFEST
    names = [m.spec for m in spec.models]
    for detector in ("voice gate", "switch rate", "masked recovery"):
        assert HELDOUT_PROVEN_ON[detector] in names
    assert {"whisper-tiny.en", "whisper-base", "pocketsphinx"} == {m.spec for m in spec.models if m.panel}
    assert not (spec.lift or spec.battery or spec.translation or spec.mechanism)
    # Masked recovery: the test split's settings, read on the clean panel and the organism that saw this split.
    test_split = load_spec(CALIBRATION_SPEC)
    assert spec.masked.params == test_split.masked.params
    assert set(spec.masked.models) == {"whisper-tiny.en", "whisper-base", "pocketsphinx",
                                       KINDS["contaminated-heldout"].model_id}


def test_the_heldout_commands_reach_the_heldout_split(monkeypatch, tmp_path):
    import asraudit.commands.demo as demo_command
    from asraudit.cli import main
    from asraudit.demo.calibrate import calibration_spec

    calls = []
    monkeypatch.setattr(demo_command, "build_heldout", lambda out, jobs: calls.append(("heldout", out, jobs)))
    monkeypatch.setattr(demo_command, "build", lambda out, jobs: calls.append(("test", out, jobs)))
    assert main(["demo", "build-benchmark", "--heldout"]) == 0
    assert main(["demo", "build-benchmark", "--heldout", "--out", str(tmp_path / "h"), "--jobs", "1"]) == 0
    assert calls == [("heldout", HELDOUT_DIR, 2), ("heldout", tmp_path / "h", 1)]
    spec = calibration_spec(tmp_path / "out", sentences=3, heldout=True)
    assert spec.corpus.manifest == MANIFEST and spec.corpus.select_first == 3
    assert calibration_spec(tmp_path / "out").corpus.manifest.parent.name == "parliament_mini"
