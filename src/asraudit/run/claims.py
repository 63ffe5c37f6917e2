"""Claims: how concurrent runs into one store share jobs instead of racing on them.

Before a run calls a model on a job it claims the job's key; the first
claimant wins, in one SQLite transaction, and a job claimed by another live
run is waited for rather than computed twice.  The batch's results and the
removal of its claims commit together, so a job is always either claimed,
stored, or free.

A claim dies with its owner.  A run killed with SIGKILL cannot release
anything, so every claimant registers its host and process id: a run on the
same host frees the claims of an owner whose process is gone (or a zombie)
as soon as it next claims; an owner on another host sharing the file is
presumed dead when its heartbeat (refreshed by every claim and every stored
batch) is older than ``STALE_CLAIM_SECONDS``.  Taking over a live but slow
owner's jobs at worst computes them twice; ``INSERT OR IGNORE`` keeps the
first result, so nothing is corrupted.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import time
from typing import Iterable, Iterator, Sequence

from asraudit.processes import process_alive

# No process table to ask on another host: an owner there that has neither claimed nor
# stored anything for this long is taken to be dead.  Longer than any single model call.
STALE_CLAIM_SECONDS = 600.0
_KEYS_PER_QUERY = 500

CLAIMS_SCHEMA = """
CREATE TABLE IF NOT EXISTS owners (
    owner TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    heartbeat REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS claims (
    job_key TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    claimed_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS claims_by_owner ON claims (owner);
"""


def _chunks(items: Sequence[str], size: int = _KEYS_PER_QUERY) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


class Claimant:
    """One run's claims in a store, over the store's connection (autocommit mode)."""

    def __init__(self, db: sqlite3.Connection):
        self._db = db
        self.host = socket.gethostname()
        self.pid = os.getpid()
        # The random part keeps a later process that reuses this pid from owning these claims.
        self.owner = f"{self.host}:{self.pid}:{os.urandom(4).hex()}"
        self.registered = False

    def claim(self, keys: Iterable[str]) -> set[str]:
        keys = list(dict.fromkeys(keys))
        now = time.time()
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.execute("INSERT INTO owners (owner, host, pid, heartbeat) VALUES (?, ?, ?, ?)"
                             " ON CONFLICT(owner) DO UPDATE SET heartbeat = excluded.heartbeat",
                             (self.owner, self.host, self.pid, now))
            self.registered = True
            self._free_dead(now)
            mine: set[str] = set()
            for chunk in _chunks(keys):
                self._db.executemany(
                    "INSERT OR IGNORE INTO claims (job_key, owner, claimed_at) SELECT ?, ?, ?"
                    " WHERE NOT EXISTS (SELECT 1 FROM results WHERE job_key = ?)",
                    [(k, self.owner, now, k) for k in chunk])
                marks = ",".join("?" * len(chunk))
                mine.update(r[0] for r in self._db.execute(
                    f"SELECT job_key FROM claims WHERE owner = ? AND job_key IN ({marks})", (self.owner, *chunk)))
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:  # SQLite has rolled back itself after some errors (a full disk)
                self._db.execute("ROLLBACK")
            raise
        return mine

    def _free_dead(self, now: float) -> None:
        dead = []
        for owner, host, pid, heartbeat in self._db.execute("SELECT owner, host, pid, heartbeat FROM owners"):
            if owner == self.owner:
                continue
            if host == self.host:
                gone = pid == self.pid or not process_alive(pid)
            else:
                gone = now - heartbeat > STALE_CLAIM_SECONDS
            if gone:
                dead.append(owner)
        for owner in dead:
            self._db.execute("DELETE FROM claims WHERE owner = ?", (owner,))
            self._db.execute("DELETE FROM owners WHERE owner = ?", (owner,))

    def finished(self, keys: Sequence[str], now: float) -> None:
        """Inside the store's batch transaction: the batch's claims end as its results commit."""
        for chunk in _chunks(list(keys)):
            self._db.execute(f"DELETE FROM claims WHERE job_key IN ({','.join('?' * len(chunk))})", chunk)
        if self.registered:
            self._db.execute("UPDATE owners SET heartbeat = ? WHERE owner = ?", (now, self.owner))

    def claimants(self, keys: Iterable[str]) -> dict[str, str]:
        keys = list(dict.fromkeys(keys))
        out: dict[str, str] = {}
        for chunk in _chunks(keys):
            marks = ",".join("?" * len(chunk))
            out.update(self._db.execute(
                f"SELECT job_key, owner FROM claims WHERE owner != ? AND job_key IN ({marks})", (self.owner, *chunk)))
        return out

    def release(self) -> None:
        if not self.registered:
            return
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.execute("DELETE FROM claims WHERE owner = ?", (self.owner,))
            self._db.execute("DELETE FROM owners WHERE owner = ?", (self.owner,))
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:  # SQLite has rolled back itself after some errors (a full disk)
                self._db.execute("ROLLBACK")
            raise
        self.registered = False
