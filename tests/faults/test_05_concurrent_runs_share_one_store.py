"""Case 5: concurrent runs into one output folder share the work and corrupt nothing.

Four ``asraudit transcribe`` runs into one ``--out`` crashed 34-40 times in
60 (``FileNotFoundError`` renaming the shared ``<model>.jsonl.tmp``), and two
concurrent runs both computed every clip.  Temporary files now have unique
names, and a run claims each job in the store before computing it: a job
another live run holds is waited for, a job whose claimant was killed is
taken over at once, and nothing finished is redone.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

from asraudit.data.predictions import load_prediction_file

from conftest import PROJECT_ROOT, asraudit_subprocess, write_preds

N_CLIPS = 24

RUN = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    from asraudit.data.corpus import Clip
    from asraudit.run.executor import LocalExecutor
    from asraudit.run.spec import Transcribe
    from asraudit.run.store import ResultStore

    store_path, delay, n_clips = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])

    class Slow:
        model_id, config_hash = "slow", "c1"
        def transcribe(self, audio):
            print("batch", len(audio), flush=True)
            time.sleep(delay)
            return [f"n={len(a)}" for a in audio]

    clips = [Clip(f"c{i:02d}", np.full(160 * (i + 1), 0.1, np.float32), "x") for i in range(n_clips)]
    with ResultStore(store_path) as store:
        s = LocalExecutor(batch_size=2, progress=False).run(store, [Slow()], clips, Transcribe())
        print(json.dumps({"run": s.jobs_run, "before": s.jobs_done_before, "others": s.jobs_by_others,
                          "stored": store.count()}), flush=True)
""")


def _start(script, store, delay: float) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(PROJECT_ROOT / "src"))
    return subprocess.Popen([sys.executable, str(script), str(store), str(delay), str(N_CLIPS)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _report(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    report["log"] = err.strip()[-2000:]  # what the run said (waiting, taking over), shown if an assertion fails
    return report


def test_concurrent_runs_compute_each_job_once_and_each_ends_with_every_result(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(RUN, encoding="utf-8")
    store = tmp_path / "s.sqlite"
    procs = [_start(script, store, 0.15) for _ in range(3)]
    reports = [_report(p) for p in procs]
    assert sum(r["run"] for r in reports) == N_CLIPS, reports  # no job computed twice
    assert all(r["stored"] == N_CLIPS for r in reports), reports  # and none returned before every job was stored
    assert all(r["run"] + r["before"] + r["others"] == N_CLIPS for r in reports), reports
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0


def test_a_killed_runs_claims_are_taken_over_and_its_finished_batches_kept(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(RUN, encoding="utf-8")
    store = tmp_path / "s.sqlite"
    victim = _start(script, store, 0.4)
    calls = 0
    for line in victim.stdout:  # killed inside its fourth model call, holding that batch's claim
        calls += line.startswith("batch")
        if calls == 4:
            break
    time.sleep(0.1)
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    with sqlite3.connect(store) as db:
        kept = dict(db.execute("SELECT job_key, batch_id FROM results"))
        assert db.execute("SELECT COUNT(*) FROM claims").fetchone()[0] > 0  # left behind by the kill
    assert 0 < len(kept) < N_CLIPS
    started = time.perf_counter()
    report = _report(_start(script, store, 0.0))
    assert time.perf_counter() - started < 60  # no waiting for a dead owner
    report.pop("log")
    assert report == {"run": N_CLIPS - len(kept), "before": len(kept), "others": 0, "stored": N_CLIPS}
    with sqlite3.connect(store) as db:
        after = dict(db.execute("SELECT job_key, batch_id FROM results"))
    assert {k: after[k] for k in kept} == kept  # the killed run's batches are the ones kept, not redone


def test_four_transcribe_runs_into_one_out_all_finish_with_complete_prediction_files(tmp_path):
    manifest = PROJECT_ROOT / "src" / "asraudit" / "demo" / "data" / "parliament_mini" / "test.jsonl"
    rows = [json.loads(line) for line in manifest.read_text(encoding="utf-8").split("\n") if line.strip()][:40]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({**r, "audio_filepath": str(manifest.parent / r["audio_filepath"])}) + "\n"
                              for r in rows), encoding="utf-8")
    preds = write_preds(tmp_path / "old.jsonl", [(str(manifest.parent / r["audio_filepath"]), r["text"], r["spoken"])
                                                 for r in rows])
    out = tmp_path / "out"
    procs = [asraudit_subprocess("transcribe", "--model", f"replay:{preds}", "--corpus", corpus, "--out", out,
                                 "--batch-size", "2", "--no-progress") for _ in range(4)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    written = load_prediction_file(out / "old.jsonl")
    assert len(written) == len(rows)
    assert [f.name for f in out.iterdir() if f.name.endswith(".tmp")] == []
