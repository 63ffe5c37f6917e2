"""Job keys and the SQLite result store: stable keys, immutable rows, atomic batches."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading

import pytest

from asraudit.errors import InputError
from asraudit.models.base import TokenScores
from asraudit.run.spec import Job, make_job
from asraudit.run.store import Outcome, ResultStore


def job(clip: str = "a.wav", **overrides) -> Job:
    fields = dict(model_id="m", config_hash="h1", clip_id=clip, condition_id="original", task="transcribe", params={})
    fields.update(overrides)
    return make_job(**fields)


def test_job_key_is_the_same_in_another_interpreter():
    here = make_job("whisper-tiny.en", "abc", "x/y.wav", "noise(snr=5)", "score", {"candidates": ["a", "b"]}).key
    code = (
        "from asraudit.run.spec import make_job;"
        "print(make_job('whisper-tiny.en', 'abc', 'x/y.wav', 'noise(snr=5)', 'score', {'candidates': ['a', 'b']}).key)"
    )
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": "12345"}).stdout.strip()
    assert other == here and len(here) == 64


@pytest.mark.parametrize(
    "change",
    [dict(model_id="m2"), dict(config_hash="h2"), dict(clip_id="b.wav"), dict(condition_id="silence"),
     dict(task="score"), dict(params={"candidates": ["x"]})],
)
def test_job_key_changes_with_every_field(change):
    assert job(**change).key != job().key


def test_job_key_ignores_the_order_of_params():
    assert job(params={"a": 1, "b": [1, 2]}).key == job(params={"b": [1, 2], "a": 1}).key


def test_unknown_task_is_refused():
    with pytest.raises(ValueError):
        job(task="translate")


def test_store_uses_write_ahead_logging(tmp_path):
    with ResultStore(tmp_path / "s.sqlite") as store:  # made by its first write
        store.start_run("local")
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_rewriting_a_stored_job_changes_nothing(tmp_path):
    store = ResultStore(tmp_path / "s.sqlite")
    run = store.start_run("local")
    assert store.write_batch(run, "m", "h1", "transcribe", [Outcome(job(), 1.5, text="first")], 0.1) == 1
    assert store.write_batch(run, "m", "h1", "transcribe", [Outcome(job(), 1.5, text="second")], 0.1) == 0
    assert store.get(job()).text == "first"
    assert store.count() == 1


def test_stored_rows_cannot_be_updated(tmp_path):
    store = ResultStore(tmp_path / "s.sqlite")
    store.write_batch(store.start_run("local"), "m", "h1", "transcribe", [Outcome(job(), 1.0, text="t")], 0.1)
    with sqlite3.connect(tmp_path / "s.sqlite") as db, pytest.raises(sqlite3.DatabaseError, match="immutable"):
        db.execute("UPDATE results SET text = 'changed'")


def test_a_batch_that_fails_midway_leaves_no_rows_and_no_timing(tmp_path):
    store = ResultStore(tmp_path / "s.sqlite")
    run = store.start_run("local")
    outcomes = [Outcome(job("a"), 1.0, text="ok"), Outcome(job("b"), 1.0, text=None), Outcome(job("c"), 1.0, text="ok")]
    with pytest.raises(ValueError):
        store.write_batch(run, "m", "h1", "transcribe", outcomes, 0.1)
    assert store.count() == 0 and store.timings() == []


def test_scores_round_trip_exactly(tmp_path):
    scores = (
        TokenScores("the cat", (" the", " cat", "<|endoftext|>"), (-0.1234567890123, -2.5e-7, -11.0), (262, 3797, 50256),
                    ((0, 3), (3, 7), ())),
        TokenScores("", ("<|endoftext|>",), (-3.0,)),
    )
    score_job = job(task="score", params={"candidates": ["the cat", ""]})
    store = ResultStore(tmp_path / "s.sqlite")
    store.write_batch(store.start_run("local"), "m", "h1", "score", [Outcome(score_job, 2.0, scores=scores)], 0.5)
    again = ResultStore(tmp_path / "s.sqlite").get(score_job)
    assert again.scores == scores and again.text is None
    assert again.params == {"candidates": ["the cat", ""]}


def test_timings_give_rtfx_per_model_configuration(tmp_path):
    store = ResultStore(tmp_path / "s.sqlite")
    run = store.start_run("local")
    store.write_batch(run, "m", "h1", "transcribe", [Outcome(job("a"), 10.0, text="x"), Outcome(job("b"), 20.0, text="y")], 1.0)
    store.write_batch(run, "m", "h1", "transcribe", [Outcome(job("c"), 30.0, text="z")], 2.0)
    store.write_batch(run, "m", "h2", "transcribe", [Outcome(job("a", config_hash="h2"), 10.0, text="x")], 5.0)
    by_config = {t.config_hash: t for t in store.timings()}
    assert by_config["h1"].n_jobs == 3 and by_config["h1"].rtfx == pytest.approx(60.0 / 3.0)
    assert by_config["h2"].rtfx == pytest.approx(2.0)


def test_done_keys_handles_more_keys_than_one_query_can_bind(tmp_path):
    store = ResultStore(tmp_path / "s.sqlite")
    jobs = [job(f"clip{i}") for i in range(1200)]
    store.write_batch(store.start_run("local"), "m", "h1", "transcribe", [Outcome(j, 1.0, text="t") for j in jobs[::2]], 1.0)
    assert store.done_keys(j.key for j in jobs) == {j.key for j in jobs[::2]}


def test_concurrent_reader_only_ever_sees_whole_batches(tmp_path):
    path = tmp_path / "s.sqlite"
    with ResultStore(path) as store:  # made by its first write
        store.start_run("local")
    batch, n_batches = 50, 40
    stop = threading.Event()
    snapshots: list[tuple[int, int]] = []

    def read() -> None:
        db = sqlite3.connect(path)
        while not stop.is_set():
            db.execute("BEGIN")  # one snapshot for both counts
            rows = db.execute("SELECT COUNT(*) FROM results").fetchone()[0]
            declared = db.execute("SELECT COALESCE(SUM(n_jobs), 0) FROM batches").fetchone()[0]
            db.execute("COMMIT")
            snapshots.append((rows, declared))
        db.close()

    reader = threading.Thread(target=read)
    reader.start()
    try:
        store = ResultStore(path)
        run = store.start_run("local")
        for b in range(n_batches):
            store.write_batch(run, "m", "h1", "transcribe",
                              [Outcome(job(f"{b}-{i}"), 1.0, text="t" * 100) for i in range(batch)], 0.1)
    finally:
        stop.set()
        reader.join()
    assert snapshots and all(rows == declared and rows % batch == 0 for rows, declared in snapshots)
    assert len({rows for rows, _ in snapshots}) > 1  # the reader did watch the store grow


def test_a_file_that_is_not_a_store_is_an_input_error(tmp_path):
    (tmp_path / "junk.sqlite").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(InputError, match="not a result store: a text file, not an SQLite database"):
        ResultStore(tmp_path / "junk.sqlite")
