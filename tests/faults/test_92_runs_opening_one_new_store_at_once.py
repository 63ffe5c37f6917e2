"""Case 92: runs that open one new result store at the same moment.

Four ``transcribe`` runs started together into one ``--out`` (case 5's test)
failed now and then: one of them stopped with ``asraudit.sqlite: not a usable
asraudit store (database is locked)``, exit 2.  Opening a new store makes it
WAL and creates its tables; when several runs do this at once, SQLite answers
some steps "locked" at once instead of waiting out the busy timeout (a read
snapshot cannot become a write once another connection has written).
Measured before the fix: 5 and 8 failed opens in two runs of 480 (eight
processes opening a fresh store together, 60 times); after it, 0 in 1,440.
Now the tables are created in one write transaction taken up front, and an
open answered "locked" is retried until the store's timeout.
"""

from __future__ import annotations

import multiprocessing
import time

import pytest

PROCESSES, TRIALS = 8, 40


def _open_and_write(path: str, start: float) -> str:
    from asraudit.run.store import ResultStore

    time.sleep(max(0.0, start - time.time()))
    try:
        with ResultStore(path) as store:
            store.start_run("local", "opened together")
        return ""
    except Exception as exc:  # the test reports every failure, not only the first
        return f"{type(exc).__name__}: {exc}"


def test_eight_runs_opening_a_new_store_together_all_open_it(tmp_path):
    try:
        context = multiprocessing.get_context("fork")
    except ValueError:
        pytest.skip("needs the fork start method")
    failures = []
    with context.Pool(PROCESSES) as pool:
        for trial in range(TRIALS):
            path = str(tmp_path / f"t{trial}" / "asraudit.sqlite")
            start = time.time() + 0.05
            failures += [f for f in pool.starmap(_open_and_write, [(path, start)] * PROCESSES) if f]
    assert failures == [], f"{len(failures)} of {PROCESSES * TRIALS} opens failed: {sorted(set(failures))[:3]}"

    import sqlite3

    with sqlite3.connect(tmp_path / "t0" / "asraudit.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == PROCESSES
        assert db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchall() == [("1",)]
