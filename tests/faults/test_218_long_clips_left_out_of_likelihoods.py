"""Case 218: a clip longer than a Whisper's 30-s window under the probes that teacher-force.

Transcription cuts a long clip into windows; scoring cannot.  A mined edit on
a 35-s clip (LibriSpeech's test-clean reaches 35 s) stopped `asraudit lift`
with "cannot score 35.0 s of audio", naming no clip, after the model had
loaded; in an audit it stopped the lift stage and every stage after it.  Now
the likelihood readouts leave such clips out, every model alike, and say so
in one line naming the window's model and a clip; recovery and the other
readouts still read them.  Edits of which none can be scored, and texts too
long for the decoder, are refused before any model loads.
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest
import soundfile as sf

pytest.importorskip("ctranslate2")

from asraudit.cli import main  # noqa: E402
from asraudit.demo.organism import BENCHMARK_DIR  # noqa: E402

MANIFEST = BENCHMARK_DIR / "test.jsonl"
LINE = "they are on 1 clip(s) longer than 30 s, and whisper-tiny.en scores one 30-s window"


@pytest.fixture(autouse=True)
def _tiny_present():
    from asraudit.models.registry import available_models

    if not any(e.name == "whisper-tiny.en" and e.present for e in available_models().embedded):
        pytest.skip("the embedded whisper-tiny.en is not installed")


def _clips(tmp, sentences=("s001", "s013"), voice="flite-slt"):
    """Each sentence as the benchmark has it and padded with silence to 35 s (clip ids ``<sentence>.wav``, ``<sentence>-long.wav``)."""
    rows = [json.loads(line) for line in MANIFEST.read_text(encoding="utf-8").splitlines()]
    out = []
    for r in rows:
        if r["sentence"] in sentences and r["speaker"] == voice:
            audio, rate = sf.read(BENCHMARK_DIR / r["audio_filepath"], dtype="float32")
            for name, samples in ((r["sentence"], audio),
                                  (f"{r['sentence']}-long", np.concatenate([audio, np.zeros(35 * rate - len(audio),
                                                                                             "float32")]))):
                sf.write(tmp / f"{name}.wav", samples, rate)
                out.append({**r, "audio_filepath": f"{name}.wav", "duration": len(samples) / rate})
    return out


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_lift_leaves_the_long_clip_out_and_scores_the_rest(tmp_path, cli):
    corpus = _write(tmp_path / "m.jsonl", _clips(tmp_path, ("s001",)))
    edits = _write(tmp_path / "e.jsonl", [{"clip": c, "ref_start": 0, "ref_end": 2, "r": "madam president", "a": ""}
                                          for c in ("s001.wav", "s001-long.wav")])
    ran = cli("lift", "--model", "whisper-tiny.en", "--corpus", str(corpus), "--edits", str(edits),
              "--out", str(tmp_path / "lift.jsonl"), "--bootstrap", "50", "--no-progress")
    assert ran.code == 0, ran.err
    assert (f"asraudit: warning: lift: 1 edit(s) left out of the likelihood readouts: {LINE} "
            "(e.g. clip 's001-long.wav', 35.0 s)") in ran.err
    rows = [json.loads(line) for line in (tmp_path / "lift.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["clip"] for r in rows] == ["s001.wav"] and rows[0]["lift_r"] is not None
    assert "edits: 1 in 1 clip(s)" in ran.out


def test_lift_with_every_edit_on_a_long_clip_is_refused_before_any_model_loads(tmp_path, cli, monkeypatch):
    import asraudit.commands.transcribe as transcribe_command

    corpus = _write(tmp_path / "m.jsonl", _clips(tmp_path, ("s001",)))
    edits = _write(tmp_path / "e.jsonl", [{"clip": "s001-long.wav", "ref_start": 0, "ref_end": 2,
                                           "r": "madam president", "a": ""}])
    monkeypatch.setattr(transcribe_command, "model_factories", lambda args: pytest.fail("a model was loaded"))
    ran = cli("lift", "--model", "whisper-tiny.en", "--corpus", str(corpus), "--edits", str(edits),
              "--out", str(tmp_path / "lift.jsonl"), "--no-progress")
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {edits}: none of its 1 edit(s) can be scored: {LINE} "
                               "(e.g. clip 's001-long.wav', 35.0 s)"]
    assert not (tmp_path / "lift.jsonl").exists()


def test_lift_text_longer_than_the_decoder_is_refused_before_any_model_loads(tmp_path, cli, monkeypatch):
    import asraudit.commands.transcribe as transcribe_command

    rows = _clips(tmp_path, ("s001",))[:1]
    rows[0]["text"] = "madam president " + "again " * 500
    corpus = _write(tmp_path / "m.jsonl", rows)
    edits = _write(tmp_path / "e.jsonl", [{"clip": "s001.wav", "ref_start": 0, "ref_end": 2, "r": "madam president",
                                           "a": ""}])
    monkeypatch.setattr(transcribe_command, "model_factories", lambda args: pytest.fail("a model was loaded"))
    ran = cli("lift", "--model", "whisper-tiny.en", "--corpus", str(corpus), "--edits", str(edits),
              "--out", str(tmp_path / "lift.jsonl"), "--no-progress")
    assert ran.code == 2
    [line] = ran.error_lines
    assert line.startswith(f"asraudit: error: {edits}: the reference of clip 's001.wav' (normalized, as lift forces "
                           "it) cannot be scored by whisper-tiny.en: it has 503 tokens")


def test_an_audit_reads_lift_masked_and_battery_around_the_long_clips(tmp_path):
    """The audit goes on past lift: masked recovery is read on the long clip, its λ is not, the battery runs."""
    rows = _clips(tmp_path)
    corpus = _write(tmp_path / "m.jsonl", rows)
    for name, field in (("spoken", "spoken"), ("record", "text")):
        _write(tmp_path / f"{name}.jsonl", [{"audio_filepath": r["audio_filepath"], "text": r["text"],
                                             "pred_text": r[field]} for r in rows])
    battery = tmp_path / "battery.toml"
    battery.write_text('name = "t"\nprobes = ["accept-ref", "lift"]\n'
                       '[[condition]]\nname = "original"\ntype = "original"\n', encoding="utf-8")
    spec = tmp_path / "audit.toml"
    spec.write_text(
        f'name = "long"\nout = "{tmp_path / "out"}"\nbootstrap = 50\n'
        f'[corpus]\nmanifest = "{corpus}"\nsaid_field = "spoken"\n'
        '[[model]]\nspec = "whisper-tiny.en"\npanel = true\noptions = { beam_size = 1 }\n'
        f'[[model]]\npredictions = "{tmp_path / "spoken.jsonl"}"\nname = "spoken"\npanel = true\n'
        f'[[model]]\npredictions = "{tmp_path / "record.jsonl"}"\nname = "record"\n'
        '[refdis]\nmin_panel = 2\n'
        '[masked]\ntargets = "numbers"\nalign = "pocketsphinx"\n'
        '[lift]\n'
        f'[battery]\nspec = "{battery}"\nmask = false\n'
        '[report]\naudio = false\nalign = "none"\n', encoding="utf-8")  # the page's audio is not what is tested
    assert main(["audit", str(spec), "--no-progress"]) == 0
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    notes = " | ".join(summary["provenance"]["notes"])
    assert "lift: 1 edit(s) left out of the likelihood readouts: they are on 1 clip(s) longer than 30 s" in notes
    assert "masked: λ of 1 target(s) not measured (their recovery is): they are on 1 clip(s)" in notes
    assert "battery: λ of 1 edit(s) and 0 masked target(s) not measured under any condition" in notes
    assert summary["sampling"]["lift"]["edits_used"] == 1
    outcomes = pq.read_table(tmp_path / "out" / "tables" / "masked.parquet").to_pylist()
    by_clip = {o["clip"]: o for o in outcomes if o["model"] == "whisper-tiny.en"}
    assert by_clip["s013-long.wav"]["masked_recovered"] is not None and by_clip["s013-long.wav"]["lift_masked"] is None
    assert by_clip["s013.wav"]["lift_masked"] is not None
    assert any(r["readout"] == "lift(r)" and r["n"] == 1 for r in summary["battery"]["rows"])


def test_a_speech_llm_answers_for_its_own_window_once_loaded(tmp_path, cli, tiny_qwen2_audio_folder):
    """A Qwen2-Audio takes 30 s in one prompt; its files alone do not say so to the check made before loading,
    so the loaded model's own ``score_seconds`` names the window (it stopped with "cannot score 35.0 s")."""
    corpus = _write(tmp_path / "m.jsonl", _clips(tmp_path, ("s001",)))
    edits = _write(tmp_path / "e.jsonl", [{"clip": c, "ref_start": 0, "ref_end": 2, "r": "madam president", "a": ""}
                                          for c in ("s001.wav", "s001-long.wav")])
    spec = f"hf:{tiny_qwen2_audio_folder}"
    ran = cli("lift", "--model", spec, "--corpus", str(corpus), "--edits", str(edits),
              "--out", str(tmp_path / "lift.jsonl"), "--bootstrap", "50", "--no-progress")
    assert ran.code == 0, ran.err
    assert (f"asraudit: warning: lift: 1 edit(s) left out of the likelihood readouts: they are on 1 clip(s) longer "
            f"than 30 s, and {spec} scores one 30-s window (e.g. clip 's001-long.wav', 35.0 s)") in ran.err
    rows = [json.loads(line) for line in (tmp_path / "lift.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["clip"] for r in rows] == ["s001.wav"]


def test_score_names_the_clip_a_loaded_speech_llm_cannot_take(tmp_path, cli, tiny_qwen2_audio_folder):
    """`score` checked a Whisper's window before loading; a speech LLM's is known once it loads, and its 35-s clip
    was a ``ValueError`` traceback when its turn came.  Now it is one line naming the clip and its row."""
    corpus = _write(tmp_path / "m.jsonl", _clips(tmp_path, ("s001",)))
    spec = f"hf:{tiny_qwen2_audio_folder}"
    ran = cli("score", "--model", spec, "--corpus", str(corpus), "--with-reference",
              "--out", str(tmp_path / "scores.jsonl"), "--no-progress")
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {corpus}, row 2: clip 's001-long.wav' is 35.0 s long, and {spec} "
                               "scores at most 30 s (one window): cut the clip, or leave it out of the clips to score"]
    assert not (tmp_path / "scores.jsonl").exists()
