"""Case 231: a battery variant that makes a short clip longer than the scoring window.

Case 218 left clips longer than a Whisper's 30-s window out of the likelihood
readouts.  A battery condition can make a short clip that long: a donor
splice (a 3-s clip followed by a 29-s donor utterance) or a re-voicing
(espeak-ng reads a long sentence slower than its speaker).  The battery's
λ readouts teacher-forced the variant, and the model stopped the run after
the conditions before it: "cannot score 32.3 s of audio", naming neither
condition nor clip.  Now such variants are left out of the likelihood
readouts under that condition, every model alike, in one line naming the
condition, the clip and what was done to it; the transcription readouts still
read them, and a splice's lengths are said from the headers before any model
loads.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import soundfile as sf

pytest.importorskip("ctranslate2")

from asraudit.cli import main  # noqa: E402
from asraudit.demo.organism import BENCHMARK_DIR  # noqa: E402

MANIFEST = BENCHMARK_DIR / "test.jsonl"
WINDOW = "longer than 30 s, and whisper-tiny.en scores one 30-s window"


@pytest.fixture(autouse=True)
def _tiny_present():
    from asraudit.models.registry import available_models

    if not any(e.name == "whisper-tiny.en" and e.present for e in available_models().embedded):
        pytest.skip("the embedded whisper-tiny.en is not installed")


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _corpus(tmp, said="spoken", sentences=("s001", "s013"), voice="flite-slt"):
    """Two short benchmark clips (copied as ``<sentence>.wav``) and a donor corpus of a 29-s and an 8.5-s
    utterance.  A donor never says what the clip says, so with each donor saying the other clip's text (its
    field ``said``, as the run reads it) s001 is spliced with the 29-s donor (33.1 s) and s013 with the short
    one (12.7 s)."""
    rows = []
    for line in MANIFEST.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["sentence"] in sentences and r["speaker"] == voice:
            shutil.copy(BENCHMARK_DIR / r["audio_filepath"], tmp / f"{r['sentence']}.wav")
            rows.append({**r, "audio_filepath": f"{r['sentence']}.wav"})
    rng = np.random.default_rng(0)
    sf.write(tmp / "d0.wav", (0.05 * rng.standard_normal(29 * 16_000)).astype("float32"), 16_000)
    sf.write(tmp / "d1.wav", (0.05 * rng.standard_normal(17 * 8_000)).astype("float32"), 16_000)
    _write(tmp / "donors.jsonl", [{"audio_filepath": "d0.wav", "text": rows[1][said]},
                                  {"audio_filepath": "d1.wav", "text": rows[0][said]}])
    return _write(tmp / "m.jsonl", rows), rows


def _spec(tmp, probes, condition):
    path = tmp / "b.toml"
    path.write_text(f'name = "t"\nprobes = {json.dumps(probes)}\n[[condition]]\nname = "original"\n'
                    f'[[condition]]\nname = "long"\n{condition}\n', encoding="utf-8")
    return path


SPLICE = 'type = "splice"\ndonor = "corpus:donors.jsonl"\nseconds = 8\nwhere = "append"'


def _edits(tmp, rows):
    return _write(tmp / "e.jsonl", [{"clip": r["audio_filepath"], "ref_start": 0, "ref_end": 1,
                                     "r": r["text"].split()[0].lower().strip(",."), "a": "x"} for r in rows])


def test_a_splice_past_the_window_leaves_lift_out_and_says_so_before_any_model(tmp_path, cli):
    corpus, rows = _corpus(tmp_path)
    seconds = sf.info(tmp_path / "s001.wav").frames / 16_000 + 0.3 + 29
    ran = cli("battery", "--model", "whisper-tiny.en", "--corpus", corpus, "--edits", _edits(tmp_path, rows),
              "--spec", _spec(tmp_path, ["accept-ref", "lift"], SPLICE), "--no-mask", "--text-field", "spoken",
              "--out", tmp_path / "out", "--json", tmp_path / "b.json", "--bootstrap", "50", "--no-progress")
    assert ran.code == 0, ran.err
    line = (f"long: λ of 1 edit(s) {{}} of the likelihood readouts under every condition (λ stays paired across "
            f"conditions): this condition makes 1 clip(s) {WINDOW} (e.g. clip 's001.wav' appended with donor "
            f"'d0.wav', {seconds:.1f} s); the other readouts read them")
    err = ran.err.splitlines()
    said_before = f"asraudit: warning: battery: {line.format('will be left out')}"
    assert said_before in err and err.index(said_before) < err.index("asraudit: battery condition original")
    readout = json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))
    assert readout["notes"] == [line.format("left out")]
    n = {(r["readout"], r["condition"]): r["value"]["n"] for r in readout["rows"]}
    assert n[("lift(r)", "original")] == n[("lift(r)", "long")] == 1  # s013 alone, under both: paired
    assert n[("accept-ref", "long")] > 0 and n[("accept-ref", "original")] > 0  # transcription reads the variants


def test_masked_targets_keep_their_recovery_under_the_long_splice(tmp_path, cli):
    corpus, rows = _corpus(tmp_path, said="text")
    recipe = _write(tmp_path / "r.jsonl", [{"audio_filepath": r["audio_filepath"], "t0": 0.4, "t1": 0.8,
                                            "word": r["text"].split()[1].lower().strip(",.")} for r in rows])
    ran = cli("battery", "--model", "whisper-tiny.en", "--corpus", corpus, "--recipe", recipe,
              "--spec", _spec(tmp_path, ["recovery", "lift"], SPLICE), "--out", tmp_path / "out",
              "--json", tmp_path / "b.json", "--bootstrap", "50", "--no-progress")
    assert ran.code == 0, ran.err
    readout = json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))
    [note] = readout["notes"]
    assert note.startswith("long: λ of 0 edit(s) and 1 masked target(s) left out of the likelihood readouts under "
                           "every condition")
    n = {(r["readout"], r["condition"]): r["value"]["n"] for r in readout["rows"]}
    assert n[("recovery", "long")] == n[("recovery", "original")] == 2
    assert n[("lift(mask)", "original")] == n[("lift(mask)", "long")] == 1


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_a_revoicing_past_the_window_is_measured_before_it_is_scored(tmp_path, cli):
    corpus, rows = _corpus(tmp_path)
    long_text = " ".join(["the committee met again on tuesday to discuss the budget for the coming year"] * 10)
    rows[0] = {**rows[0], "text": long_text}  # espeak-ng reads it in more than 30 s; the clip lasts a few
    _write(corpus, rows)
    ran = cli("battery", "--model", "whisper-tiny.en", "--corpus", corpus, "--edits", _edits(tmp_path, rows),
              "--spec", _spec(tmp_path, ["accept-ref", "lift"], 'type = "revoice"'), "--no-mask",
              "--out", tmp_path / "out", "--json", tmp_path / "b.json", "--bootstrap", "50", "--no-progress")
    assert ran.code == 0, ran.err
    [note] = json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))["notes"]
    assert note.startswith("long: λ of 1 edit(s) left out of the likelihood readouts under every condition (λ stays "
                           f"paired across conditions): this condition makes 1 clip(s) {WINDOW} (e.g. clip 's001.wav' "
                           "re-voiced by espeak-ng, ")
    n = {(r["readout"], r["condition"]): r["value"]["n"] for r in
         json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))["rows"]}
    assert n[("lift(r)", "original")] == n[("lift(r)", "long")] == 1


def test_an_audit_battery_keeps_the_line_in_its_notes(tmp_path):
    corpus, rows = _corpus(tmp_path)
    for name, field in (("spoken", "spoken"), ("record", "text")):
        _write(tmp_path / f"{name}.jsonl", [{"audio_filepath": r["audio_filepath"], "text": r["text"],
                                             "pred_text": r[field]} for r in rows])
    battery = _spec(tmp_path, ["accept-ref", "lift"], SPLICE)
    spec = tmp_path / "audit.toml"
    spec.write_text(
        f'name = "splice"\nout = "{tmp_path / "out"}"\nbootstrap = 50\n'
        f'[corpus]\nmanifest = "{corpus}"\nsaid_field = "spoken"\n'
        '[[model]]\nspec = "whisper-tiny.en"\npanel = true\noptions = { beam_size = 1 }\n'
        f'[[model]]\npredictions = "{tmp_path / "spoken.jsonl"}"\nname = "spoken"\npanel = true\n'
        f'[[model]]\npredictions = "{tmp_path / "record.jsonl"}"\nname = "record"\n'
        '[refdis]\nmin_panel = 2\n'
        f'[battery]\nspec = "{battery}"\nmask = false\n'
        '[report]\naudio = false\nalign = "none"\n', encoding="utf-8")  # the page's audio is not what is tested
    assert main(["audit", str(spec), "--no-progress"]) == 0
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    notes = [n for n in summary["provenance"]["notes"] if n.startswith("battery: long: ")]
    assert len(notes) == 1 and f"{WINDOW} (e.g. clip 's001.wav' appended with donor 'd0.wav'" in notes[0]
    rows_n = {(r["readout"], r["condition"]): r["n"] for r in summary["battery"]["rows"]
              if r["model"] == "whisper-tiny.en"}
    # the panel mines one edit, on s001, whose splice is too long: no λ under any condition, accept-ref read
    assert rows_n.get(("lift(r)", "original"), 0) == rows_n.get(("lift(r)", "long"), 0) == 0
    assert rows_n[("accept-ref", "long")] > 0


def test_the_lengths_before_any_model_are_the_lengths_the_run_builds(tmp_path):
    """``longer_splices`` (headers only) and ``longer_variants`` (the built channels) agree on the splice."""
    from asraudit.data.corpus import load_corpus
    from asraudit.models.candidate_check import ScoreWindow
    from asraudit.probes.battery import Channels, load_spec
    from asraudit.probes.battery_run import BatteryInputs, longer_splices, longer_variants, said_texts

    corpus_path, rows = _corpus(tmp_path, said="text")
    corpus = load_corpus(corpus_path)
    spec = load_spec(_spec(tmp_path, ["lift"], SPLICE))
    said = said_texts(corpus, None, [])
    window = ScoreWindow(30.0, "m")
    from asraudit.commands.common import load_corpus_edits
    from asraudit.text.normalize import get_normalizer

    edits, _ = load_corpus_edits(_edits(tmp_path, rows), corpus, get_normalizer("whisper"))
    inputs = BatteryInputs(corpus, edits, (), {}, said, {})
    [before] = longer_splices(spec, inputs, window)
    built = longer_variants(window, list(corpus), Channels(spec.condition("long"), corpus, said, {}, {}).for_clip)
    assert sorted(built) == ["s001.wav"]
    first = f"{built['s001.wav'][0]:.1f} s"
    assert before.startswith("long: λ of 1 edit(s) will be left out") and first in before
    assert longer_splices(spec, inputs, ScoreWindow(60.0, "m")) == []


def test_each_condition_says_the_length_it_returns():
    """``samples_out`` is the length ``__call__`` returns, for every condition a battery builds."""
    from asraudit.audio.conditions import (Codec, DonorSplice, Noise, Original, Reverb, Revoice, Silence, SpanMask,
                                           Truncate, compose)

    audio = (0.1 * np.random.default_rng(1).standard_normal(16_000 * 3 + 7)).astype("float32")
    donor = np.ones(16_000 * 2 + 3, dtype="float32") * 0.01
    conditions = [Original(), Silence(), Noise(10.0), Reverb(0.3), Codec("vorbis", 0.5), Truncate(1.0, 1.4, 0.5, 0.5),
                  Truncate(2.8, 3.2, 0.5, 2.0), DonorSplice(donor, "d", len(donor) / 16_000, "append", 0.3),
                  DonorSplice(donor, "d", len(donor) / 16_000, "prepend", 0.0), Revoice("r", audio=donor[:5000]),
                  compose(SpanMask(1.0, 1.5), DonorSplice(donor, "d", 1.25, "append", 0.3), Noise(10.0))]
    for cond in conditions:
        assert cond.samples_out(len(audio)) == len(cond(audio)), cond.id
