"""Case 108: SIGTERM (a batch scheduler's stop, ``kill``) or SIGHUP mid-run is handled as Ctrl-C is.

Python's default for SIGTERM is to die at once: exit status -15 with nothing
printed, no ``finally`` run.  The results stored were kept, but the run's
claims on the jobs it was computing stayed in the store (a run on another host
sharing the store waits 10 minutes for a claim whose owner it cannot see
die).  Now the
signal stops the run where it is, as Ctrl-C does (case 37): one line, exit
128 + the signal's number, the claims given back, and the rerun resumes.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import time

import pytest

from asraudit.demo.organism import BENCHMARK_DIR

from conftest import asraudit_subprocess


CLIPS = 4  # one batch each: the signal comes once the first is stored, while the others are still to run


def _count(store, table: str) -> int:
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30) as db:
            return db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    except sqlite3.Error:  # not made yet
        return 0


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_termination_signal_is_one_line_gives_back_the_claims_and_the_rerun_resumes(tmp_path, signum):
    rows = [json.loads(line) for line in (BENCHMARK_DIR / "manifest.jsonl").read_text(encoding="utf-8").splitlines()]
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(json.dumps({"audio_filepath": str(BENCHMARK_DIR / r["audio_filepath"]),
                                            "text": r["text"]}) + "\n" for r in rows[:CLIPS]), encoding="utf-8")
    out = tmp_path / "out"
    store = out / "asraudit.sqlite"
    args = ("transcribe", "--model", "pocketsphinx", "--corpus", manifest, "--out", out, "--batch-size", 1,
            "--no-progress")
    # The child starts with the signal's default action, as a run from a terminal does: a suite started under
    # nohup passes SIGHUP on as ignored, and asraudit leaves an ignored signal ignored (by design).
    proc = asraudit_subprocess(*args, preexec_fn=lambda: signal.signal(signum, signal.SIG_DFL))
    while _count(store, "results") < 1:  # the first clip's result is stored: the run is in its model calls
        assert proc.poll() is None, proc.communicate()[1]
        time.sleep(0.02)
    proc.send_signal(signum)
    _, err = proc.communicate()
    name = signal.Signals(signum).name
    assert (proc.returncode, err.splitlines()) == (128 + signum, [
        f"asraudit: stopped by {name}; a command that runs models keeps every result it stored, and running it "
        "again resumes from them"])
    stored = _count(store, "results")
    assert 1 <= stored < CLIPS
    assert (_count(store, "claims"), _count(store, "owners")) == (0, 0)  # given back, not left to time out
    assert sorted(p.name for p in out.iterdir() if p.name.endswith(".tmp")) == []

    proc = asraudit_subprocess(*args)
    _, err = proc.communicate()
    assert proc.returncode == 0, err
    assert f"{CLIPS - stored} job(s) run now, {stored} already stored" in err
    assert len((out / "pocketsphinx.jsonl").read_text(encoding="utf-8").splitlines()) == CLIPS


def test_a_worker_forked_from_the_command_still_dies_by_sigterm():
    """A process pool's worker inherits the handler; a pool stops its workers with SIGTERM, which must end them
    as before, not raise inside their task loop."""
    import os
    import signal
    import time

    from asraudit import cli

    # The command's handler goes only where the default is (a handler the caller set is kept), and Ray, once
    # initialised in this test process by an earlier test, leaves its own: start from the default, as a command does.
    before = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    previous = cli._handle_termination()
    try:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            try:
                time.sleep(30)
            finally:  # a handler that raised here instead of ending the child: it must not go on as a test worker
                os._exit(0)
        time.sleep(0.2)
        os.kill(pid, signal.SIGTERM)
        _, status = os.waitpid(pid, 0)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        signal.signal(signal.SIGTERM, before)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM
