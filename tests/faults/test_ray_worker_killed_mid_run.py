"""Also: on the Ray executor, a model worker killed mid-run loses only its batch in flight.

A local Ray instance runs the embedded Whisper tiny.en in one actor over
parliament-mini clips, one clip per batch.  The actor's process is killed
with SIGKILL after a few batches are stored: Ray restarts it (the executor
asks for one restart and one retry), the batch in flight is computed again,
and the run ends with every clip stored once and every batch stored before
the kill unchanged.
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
from pathlib import Path

import pytest

from conftest import PROJECT_ROOT

pytest.importorskip("ray")
pytest.importorskip("ctranslate2")

N_CLIPS = 12

DRIVER = textwrap.dedent("""
    import functools, json, sys
    import ray
    from asraudit.data.corpus import load_manifest
    from asraudit.demo.organism import BENCHMARK_DIR
    from asraudit.models.registry import load_model
    from asraudit.run.executor import RayExecutor
    from asraudit.run.spec import Transcribe
    from asraudit.run.store import ResultStore

    store_path, n = sys.argv[1], int(sys.argv[2])
    clips = load_manifest(BENCHMARK_DIR / "test.jsonl").clips[:n]
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    with ResultStore(store_path) as store:
        model = functools.partial(load_model, "whisper-tiny.en", beam_size=1)
        s = RayExecutor(batch_size=1, progress=False).run(store, [model], clips, Transcribe())
        print(json.dumps({"run": s.jobs_run, "stored": store.count()}), flush=True)
    ray.shutdown()
""")


def _parent(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat[stat.rindex(")") + 2:].split()[1])  # the field after the state; the name may hold spaces


def _descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        pid = _parent(pid)
        if pid == ancestor:
            return True
    return False


def _worker_pids(driver_pid: int) -> list[int]:
    """Processes of a Ray actor (Ray titles them ray::_ModelWorker...) started under ``driver_pid`` (0: any).

    The driver starts its own Ray instance, whose raylet starts the actor, so the actor descends from the driver:
    another test's Ray worker running at the same time (the suite runs tests in parallel) is not this one."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if b"ray::_ModelWorker" in cmdline and (driver_pid == 0 or _descends_from(int(entry.name), driver_pid)):
            pids.append(int(entry.name))
    return pids


def _stored(store) -> dict[str, int]:
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30) as db:
            return dict(db.execute("SELECT job_key, batch_id FROM results"))
    except sqlite3.Error:
        return {}


@pytest.mark.slow
def test_a_killed_ray_worker_is_restarted_and_only_its_batch_in_flight_is_recomputed(tmp_path):
    from asraudit.models.registry import available_models

    if not any(e.name == "whisper-tiny.en" and e.present for e in available_models().embedded):
        pytest.skip("the embedded whisper-tiny.en is not installed")
    script, store = tmp_path / "driver.py", tmp_path / "s.sqlite"
    script.write_text(DRIVER, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(PROJECT_ROOT / "src"))
    driver = subprocess.Popen([sys.executable, str(script), str(store), str(N_CLIPS)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started = time.monotonic()
    while len(_stored(store)) < 3:
        assert driver.poll() is None, driver.communicate()[1]
        assert time.monotonic() - started < 300
        time.sleep(0.05)
    (victim,) = _worker_pids(driver.pid)
    before = _stored(store)
    os.kill(victim, signal.SIGKILL)
    out, err = driver.communicate(timeout=600)
    assert driver.returncode == 0, err
    report = json.loads([line for line in out.splitlines() if line.startswith("{")][-1])  # Ray logs to stdout too
    after = _stored(store)
    assert report == {"run": N_CLIPS, "stored": N_CLIPS}  # every clip stored once; none lost
    assert {k: after[k] for k in before} == before          # batches stored before the kill kept, not redone
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(*), SUM(n_jobs) FROM batches").fetchone() == (N_CLIPS, N_CLIPS)
