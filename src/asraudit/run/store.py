"""The result store: immutable rows keyed by job, in SQLite (WAL mode).

Why SQLite in WAL mode: it is in the standard library, one file, and its
transactions are atomic against a killed process.  Each batch of results is
written in one transaction together with the batch's timing row, so a run
killed at any moment leaves every finished batch intact and nothing half
written; readers (a probe, a second ``asraudit`` process, a notebook) see
the store as of the last commit and are never blocked by the writer.
``synchronous=NORMAL`` is enough under WAL: a committed batch survives a
crash of the process; only a power cut can drop the last few commits, and
even then the file stays consistent.

Rows are immutable (a trigger refuses UPDATE) and inserted with ``INSERT OR
IGNORE`` keyed by the job's hash: rerunning a job whose row exists changes
nothing, and two processes racing on the same job keep the first result.

Concurrent runs into one store share work through *claims*: before a run
calls a model on a job it claims the job's key (one row per key, the first
claimant wins, in one transaction), and a job claimed by another live run is
not computed again but waited for.  A claim dies with its owner: a run killed
with SIGKILL leaves claims behind, and they are taken over as soon as another
run sees that the owner's process is gone (same host) or that its heartbeat
is older than ``STALE_CLAIM_SECONDS`` (another host sharing the file).  A
result written twice by mistake is still harmless (``INSERT OR IGNORE``).
The claim tables live in ``asraudit.run.claims``.

Transcribe results store the model's raw text (normalization happens in the
probes); score results store per-candidate token log-probabilities.  Model
timing is kept per batch (audio seconds, compute seconds), from which RTFx =
audio seconds / compute seconds is derived per model.
"""

from __future__ import annotations

import functools
import json
import random
import shutil
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from asraudit.arguments import path as path_argument
from asraudit.data.paths import ensure_writable_file
from asraudit.errors import InputError
from asraudit.models.base import TokenScores
from asraudit.run.claims import CLAIMS_SCHEMA, Claimant
from asraudit.run.spec import SCORE, TASKS, TRANSCRIBE, Job

# The file name of a command's or an audit's result store in its output folder, when none is named.
STORE_NAME = "asraudit.sqlite"

SCHEMA_VERSION = 1
# How long a run waits for the store's lock (another run writing) before it reports the store unusable.
OPEN_TIMEOUT_S = 60.0
# SQLite's default limit on bound parameters is 32766; stay far below it.
_KEYS_PER_QUERY = 500

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at REAL NOT NULL,
    executor TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS batches (
    batch_id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER NOT NULL REFERENCES runs(run_id),
    model_id TEXT NOT NULL,
    config_hash TEXT NOT NULL,
    task TEXT NOT NULL,
    n_jobs INTEGER NOT NULL,
    audio_seconds REAL NOT NULL,
    compute_seconds REAL NOT NULL,
    finished_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
    job_key TEXT PRIMARY KEY,
    model_id TEXT NOT NULL,
    config_hash TEXT NOT NULL,
    clip_id TEXT NOT NULL,
    condition_id TEXT NOT NULL,
    task TEXT NOT NULL,
    params TEXT NOT NULL,
    text TEXT,
    scores TEXT,
    audio_seconds REAL NOT NULL,
    batch_id INTEGER NOT NULL REFERENCES batches(batch_id),
    created_at REAL NOT NULL
);
-- The audio each clip id's results were computed from: results are keyed by clip id, so a second corpus
-- reusing an id for other audio must be refused, not answered from the first.  samples_digest is what is
-- compared (the decoded 16-kHz samples: a rewritten file with a new header is the same audio); file_digest
-- (the file's bytes) spares decoding a clip whose file is unchanged.
CREATE TABLE IF NOT EXISTS clip_audio (
    clip_id TEXT PRIMARY KEY,
    file_digest TEXT NOT NULL,
    samples_digest TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS results_by_model ON results (model_id, config_hash, task, condition_id);
CREATE INDEX IF NOT EXISTS batches_by_model ON batches (model_id, config_hash, task);
CREATE TRIGGER IF NOT EXISTS results_are_immutable BEFORE UPDATE ON results
BEGIN
    SELECT RAISE(ABORT, 'stored results are immutable');
END;
"""


@dataclass(frozen=True)
class Result:
    """One stored job result."""

    job_key: str
    model_id: str
    config_hash: str
    clip_id: str
    condition_id: str
    task: str
    params: dict
    text: str | None
    scores: tuple[TokenScores, ...] | None
    audio_seconds: float
    batch_id: int
    created_at: float


@dataclass(frozen=True)
class Outcome:
    """What the executor hands the store for one finished job."""

    job: Job
    audio_seconds: float
    text: str | None = None
    scores: Sequence[TokenScores] | None = None


@dataclass(frozen=True)
class ModelTiming:
    """Audio and compute seconds summed over a model's stored batches."""

    model_id: str
    config_hash: str
    task: str
    n_jobs: int
    audio_seconds: float
    compute_seconds: float

    @property
    def rtfx(self) -> float:
        return self.audio_seconds / self.compute_seconds if self.compute_seconds > 0 else float("inf")


def scores_to_json(scores: Sequence[TokenScores]) -> str:
    return json.dumps(
        [
            {
                "text": s.text,
                "tokens": list(s.tokens),
                "logprobs": list(s.logprobs),
                "token_ids": list(s.token_ids),
                "offsets": [list(o) for o in s.offsets],
            }
            for s in scores
        ],
        ensure_ascii=False,
    )


def scores_from_json(text: str) -> tuple[TokenScores, ...]:
    return tuple(
        TokenScores(
            d["text"],
            tuple(d["tokens"]),
            tuple(float(x) for x in d["logprobs"]),
            tuple(d.get("token_ids", ())),
            tuple(tuple(o) for o in d.get("offsets", ())),
        )
        for d in json.loads(text)
    )


def _chunks(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _damaged(exc: sqlite3.DatabaseError) -> str:
    """What to do about a store file SQLite reads as damaged ("" for other errors: a lock, a full disk)."""
    text = str(exc)
    if any(word in text for word in ("malformed", "not a database", "corrupt")):
        return "; the file is damaged: move it aside and run again to start a new store (its results cannot be read)"
    return ""


def _disk_full(exc: sqlite3.Error, path: Path) -> str:
    """The error for a store that cannot be opened because its disk is full ("" for any other error).

    Opening a store on a full disk (making it WAL, creating its tables) fails with "database or disk is full", or
    with "disk I/O error" where the store exists; both were "not a usable asraudit store", which reads as a fault
    of the file, whose finished results are intact (case 314)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None or code & 0xFF not in (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR):
        return ""
    try:
        free = shutil.disk_usage(path.parent).free
    except OSError:
        return ""
    if code & 0xFF == sqlite3.SQLITE_IOERR and free >= _FULL_BELOW:
        return ""
    kept = "; the results it holds are kept" if path.exists() and path.stat().st_size else ""
    return (f"cannot open the result store: the disk is full ({free} bytes free; {exc}){kept}: free some space, "
            "or name a store on another disk, and run again")


# Free space below which a disk I/O error in opening a store is taken for a full disk (SQLite needs a few pages).
_FULL_BELOW = 1 << 20


_JOURNALS = ("-wal", "-shm", "-journal")


def _undo_create(path: Path, made: Sequence[Path]) -> None:
    """Remove what a failed first open made: the store's file while it is still empty, its journals, the folders.

    SQLite creates the file on connecting, before a byte is written, so a store whose making failed (a full disk)
    left a 0-byte ``asraudit.sqlite`` and the folders made for it, which the next run met as a store (case 315).
    A file that holds anything (another run made it meanwhile), a journal that was there before and a folder that is
    not empty are left; ``made`` is what did not exist before the open."""
    try:
        if path.stat().st_size:
            return
        path.unlink()
        for journal in (Path(f"{path}{s}") for s in _JOURNALS):
            if journal in made:
                journal.unlink(missing_ok=True)
    except OSError:
        return
    for folder in (p for p in made if p not in (path, *(Path(f"{path}{s}") for s in _JOURNALS))):  # deepest first
        try:
            folder.rmdir()
        except OSError:
            return


def _other_kind_of_file(path: Path) -> str:
    """What a file SQLite refused is, when it is plainly not an SQLite database ("" when it may be one, damaged)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return ""
    if not head or head.startswith(b"SQLite format 3\x00"):
        return ""
    for magic, kind in ((b"RIFF", "a WAV (RIFF) file"), (b"fLaC", "a FLAC file"), (b"OggS", "an Ogg file"),
                        (b"ID3", "an MP3 file"), (b"PAR1", "a Parquet file"), (b"PK\x03\x04", "a zip archive")):
        if head.startswith(magic):
            return kind
    if head.lstrip().startswith((b"{", b"[")):
        return "a JSON file"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not merely a character cut at the end of what was read
            return ""
    return "a text file"


def _store_errors(method):
    """A store method whose SQLite errors (a damaged page met only when read, a full disk, a lock held past
    the timeout) become one line naming the store file, which the CLI prints without a traceback."""

    @functools.wraps(method)
    def call(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            raise InputError(f"cannot use the result store ({exc}){_damaged(exc)}", self.path) from None

    return call


def _known_task(task: str | None) -> None:
    if task is not None and task not in TASKS:
        raise InputError(f"task must be one of {', '.join(TASKS)}, got {task!r}")


class ResultStore:
    """An open store file.  One per process; not shared across threads.

    Every method that touches the file reports SQLite's errors as one ``InputError`` naming it
    (``_store_errors``): a store damaged in the middle opens fine and fails only where a damaged page is read."""

    def __init__(self, path: str | Path):
        self.path = path_argument(path, "path")
        self._claims: Claimant | None = None
        # A folder, or a file where a folder of the path should be, in one line (from Python too, not only --store).
        ensure_writable_file(self.path, "the result store")
        # A store that exists is opened (and checked) now; a new one is made, folders and file, by the first call
        # that needs it (every run that writes reads it first), never by the queries alone (``_existing``): a
        # typo in the path of a store to read made the folders and an empty store, and ``results()`` was [].
        self._handle: sqlite3.Connection | None = self._connect() if self.path.exists() else None

    @property
    def _db(self) -> sqlite3.Connection:
        if self._handle is None:
            self._handle = self._connect()
        return self._handle

    def _existing(self) -> None:
        """Refuse a query of a store that is not there (nothing is created for it)."""
        if self._handle is None and not self.path.exists():
            raise InputError("no result store here: no such file (a typo in the path?); a store is made by what "
                             "runs models into it (run_audit, asraudit audit, transcribe, score): name the file "
                             "that run wrote (OUT/asraudit.sqlite in an audit)", self.path)

    def _connect(self) -> sqlite3.Connection:
        made = [p for p in (self.path.parent, *self.path.parent.parents) if not p.exists()]
        made += [p for p in (self.path, *(Path(f"{self.path}{s}") for s in _JOURNALS)) if not p.exists()]
        new_file = self.path in made
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            return self._connect_made()
        except InputError:
            if new_file:
                _undo_create(self.path, made)
            raise

    def _connect_made(self) -> sqlite3.Connection:
        deadline = time.monotonic() + OPEN_TIMEOUT_S
        while True:
            try:
                return self._open()
            except sqlite3.OperationalError as exc:
                # Runs that open one new store at the same moment race to make it WAL and to create its tables;
                # SQLite answers some of these steps "database is locked" at once, without waiting out the busy
                # timeout (a read snapshot cannot be upgraded to a write once another run has written: 5 opens
                # of 480, eight runs at a time, before this retry).  The store is fine: open it again.
                if "locked" not in str(exc) and "busy" not in str(exc) or time.monotonic() > deadline:
                    disk = _disk_full(exc, self.path)
                    if disk:
                        raise InputError(disk, self.path) from None
                    raise InputError(f"not a usable asraudit store ({exc}){_damaged(exc)}", self.path) from None
                time.sleep(random.uniform(0.01, 0.1))
            except sqlite3.DatabaseError as exc:
                other = _other_kind_of_file(self.path)
                if other:
                    raise InputError(f"not a result store: {other}, not an SQLite database: name a new file (or an "
                                     "asraudit store) for the store", self.path) from None
                raise InputError(f"not a usable asraudit store ({exc}){_damaged(exc)}", self.path) from None

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(str(self.path), timeout=OPEN_TIMEOUT_S, isolation_level=None)
        try:
            self._check_identity(db)  # before anything is written: another program's database is left as it was
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            # One write transaction taken up front (IMMEDIATE waits on the busy timeout), so creating the tables
            # and recording the schema version never upgrade a read to a write.
            db.executescript("BEGIN IMMEDIATE;" + _SCHEMA + CLAIMS_SCHEMA)
            self._check_schema(db)
            db.execute("COMMIT")
        except BaseException:
            db.close()
            raise
        return db

    def _check_identity(self, db: sqlite3.Connection) -> None:
        """Refuse an SQLite database that is not an asraudit store (another program's, whose tables asraudit would
        add its own to), and a store of another schema version, before a table is created or the journal changed.
        A database without tables (a new or empty file) becomes a store."""
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        if not tables:
            return
        version = None
        if "meta" in tables:
            try:
                row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            except sqlite3.OperationalError:  # a table named meta of other columns
                row = None
            version = row[0] if row else None
        if version is None:
            shown = ", ".join(tables[:5]) + (f", ... ({len(tables)} in all)" if len(tables) > 5 else "")
            raise InputError(f"an SQLite database that is not an asraudit result store (its tables: {shown}); "
                             "asraudit would add its tables to it: name a new file (or an asraudit store) for the store",
                             self.path)
        self._check_version(version)

    def _check_version(self, version: object) -> None:
        if str(version) != str(SCHEMA_VERSION):
            later = str(version).isdigit() and int(str(version)) > SCHEMA_VERSION
            raise InputError(f"store schema version {version}, this asraudit reads {SCHEMA_VERSION}"
                             + ("; it was written by a later asraudit: upgrade asraudit to read it, or start a new"
                                " store" if later else ": the store is damaged or not asraudit's"), self.path)

    def _check_schema(self, db: sqlite3.Connection) -> None:
        row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is None:
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        else:
            self._check_version(row[0])

    def close(self) -> None:
        try:
            self.release_claims()
        except (sqlite3.Error, InputError):
            pass  # a store that cannot be written now loses nothing: stale claims are taken over
        if self._handle is not None:
            self._handle.close()

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- writing ------------------------------------------------------------------

    @_store_errors
    def start_run(self, executor: str, description: str = "") -> int:
        cur = self._db.execute(
            "INSERT INTO runs (started_at, executor, description) VALUES (?, ?, ?)", (time.time(), executor, description)
        )
        return int(cur.lastrowid)

    @_store_errors
    def write_batch(self, run_id: int, model_id: str, config_hash: str, task: str,
                    outcomes: Sequence[Outcome], compute_seconds: float) -> int:
        """Store one model call's results and its timing, atomically.

        Returns how many rows were new (jobs another process finished first
        are ignored, not overwritten)."""
        now = time.time()
        audio = float(sum(o.audio_seconds for o in outcomes))
        self._db.execute("BEGIN IMMEDIATE")
        try:
            cur = self._db.execute(
                "INSERT INTO batches (run_id, model_id, config_hash, task, n_jobs, audio_seconds, compute_seconds, finished_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, model_id, config_hash, task, len(outcomes), audio, float(compute_seconds), now),
            )
            batch_id = cur.lastrowid
            before = self._db.total_changes
            self._db.executemany(
                "INSERT OR IGNORE INTO results (job_key, model_id, config_hash, clip_id, condition_id, task, params,"
                " text, scores, audio_seconds, batch_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [self._row(o, batch_id, now) for o in outcomes],
            )
            inserted = self._db.total_changes - before
            if self._claims is not None:
                self._claims.finished([o.job.key for o in outcomes], now)
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:  # SQLite has rolled back itself after some errors (a full disk)
                self._db.execute("ROLLBACK")
            raise
        return inserted

    # --- claims: sharing work with concurrent runs (see asraudit.run.claims) -------------

    @property
    @_store_errors
    def owner(self) -> str:
        """This open store's claimant name: host, process id and a random part (pids are reused)."""
        if self._claims is None:
            self._claims = Claimant(self._db)
        return self._claims.owner

    @_store_errors
    def claim(self, keys: Iterable[str]) -> set[str]:
        """Claim the jobs among ``keys`` that have no result and no live claimant; returns every key
        this store holds a claim on afterwards, i.e. the jobs it should compute itself."""
        self.owner  # noqa: B018 (creates the claimant)
        return self._claims.claim(keys)

    @_store_errors
    def claimants(self, keys: Iterable[str]) -> dict[str, str]:
        """job key -> owner, for the keys another run holds a claim on."""
        return self._claims.claimants(keys) if self._claims else {}

    @_store_errors
    def release_claims(self) -> None:
        """Give up every claim of this store (a run that stops early leaves its jobs to others)."""
        if self._claims is not None:
            self._claims.release()

    @staticmethod
    def _row(o: Outcome, batch_id: int, now: float) -> tuple:
        job = o.job
        if job.task == TRANSCRIBE and o.text is None:
            raise ValueError(f"transcribe job {job.key} has no text")
        if job.task == SCORE and o.scores is None:
            raise ValueError(f"score job {job.key} has no scores")
        scores = scores_to_json(o.scores) if o.scores is not None else None
        return (job.key, job.model_id, job.config_hash, job.clip_id, job.condition_id, job.task, job.params_json,
                o.text, scores, float(o.audio_seconds), batch_id, now)

    @_store_errors
    def clip_audio(self, clip_ids: Iterable[str]) -> dict[str, tuple[str, str]]:
        """clip id -> (file digest, samples digest) of the audio its stored results came from."""
        found: dict[str, tuple[str, str]] = {}
        for chunk in _chunks(list(dict.fromkeys(clip_ids)), _KEYS_PER_QUERY):
            marks = ",".join("?" * len(chunk))
            for cid, file_digest, samples_digest in self._db.execute(
                    f"SELECT clip_id, file_digest, samples_digest FROM clip_audio WHERE clip_id IN ({marks})", chunk):
                found[cid] = (file_digest, samples_digest)
        return found

    @_store_errors
    def record_clip_audio(self, rows: Sequence[tuple[str, str, str]]) -> None:
        """Record (clip id, file digest, samples digest) rows, replacing an id's file digest when its file changed."""
        if rows:
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO clip_audio (clip_id, file_digest, samples_digest)"
                                     " VALUES (?, ?, ?)", rows)

    # --- reading ------------------------------------------------------------------

    @_store_errors
    def done_keys(self, keys: Iterable[str]) -> set[str]:
        """The subset of ``keys`` that already have a stored result."""
        keys = list(dict.fromkeys(keys))
        found: set[str] = set()
        for chunk in _chunks(keys, _KEYS_PER_QUERY):
            marks = ",".join("?" * len(chunk))
            found.update(r[0] for r in self._db.execute(f"SELECT job_key FROM results WHERE job_key IN ({marks})", chunk))
        return found

    _COLUMNS = ("job_key, model_id, config_hash, clip_id, condition_id, task, params, text, scores,"
                " audio_seconds, batch_id, created_at")

    @staticmethod
    def _result(row: tuple) -> Result:
        (key, model_id, config_hash, clip_id, condition_id, task, params, text, scores, audio, batch_id, created) = row
        return Result(key, model_id, config_hash, clip_id, condition_id, task, json.loads(params), text,
                      scores_from_json(scores) if scores is not None else None, audio, batch_id, created)

    @_store_errors
    def get(self, job: Job | str) -> Result | None:
        if not isinstance(job, (str, Job)):
            raise InputError(f"job is a Job or its key (a str), got {job!r:.60}")
        key = job if isinstance(job, str) else job.key
        row = self._db.execute(f"SELECT {self._COLUMNS} FROM results WHERE job_key = ?", (key,)).fetchone()
        return self._result(row) if row else None

    @_store_errors
    def get_many(self, jobs: Iterable[Job]) -> dict[str, Result]:
        """job key -> result, for the jobs that have one."""
        keys = list(dict.fromkeys(j.key for j in jobs))
        out: dict[str, Result] = {}
        for chunk in _chunks(keys, _KEYS_PER_QUERY):
            marks = ",".join("?" * len(chunk))
            for row in self._db.execute(f"SELECT {self._COLUMNS} FROM results WHERE job_key IN ({marks})", chunk):
                res = self._result(row)
                out[res.job_key] = res
        return out

    @_store_errors
    def results(self, *, model_id: str | None = None, config_hash: str | None = None, task: str | None = None,
                condition_id: str | None = None) -> list[Result]:
        """Stored results matching every given field, in insertion order.

        ``model_id`` is the model's own id as it was stored (``whisper-tiny.en``; ``replay:<name>`` for a replayed
        prediction file), not an audit's label; ``task`` is one of ``run.spec.TASKS``: a misspelt task matched
        nothing, silently, and is refused."""
        _known_task(task)
        filters = {"model_id": model_id, "config_hash": config_hash, "condition_id": condition_id}
        for column, value in filters.items():
            if value is not None and not isinstance(value, str):
                raise InputError(f"{column} is a str (the {column} a result was stored under), got {value!r:.60}")
        self._existing()
        filters = {**filters, "task": task}
        where, args = [], []
        for column, value in filters.items():
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        rows = self._db.execute(f"SELECT {self._COLUMNS} FROM results{clause} ORDER BY rowid", args)
        found = [self._result(r) for r in rows]
        if not found:
            self._no_such_value(filters)
        return found

    def _no_such_value(self, filters: dict[str, str | None]) -> None:
        """A filter whose value no stored result has (an audit's label ``m1`` for the id ``replay:m1``, a typo)
        matched nothing and ``results`` was ``[]``, read as "that model has no results".  Asked only once a query
        found no row, so a query that finds rows costs nothing more; filters that each match rows but not
        together still give ``[]``."""
        for column, value in filters.items():
            if value is None or column == "task":
                continue
            if self._db.execute(f"SELECT 1 FROM results WHERE {column} = ? LIMIT 1", (value,)).fetchone():
                continue
            held = [r[0] for r in self._db.execute(f"SELECT DISTINCT {column} FROM results ORDER BY {column} LIMIT 11")]
            shown = ", ".join(held[:10]) + (", ..." if len(held) > 10 else "") if held else "none (no result is stored)"
            hint = (" (a model is stored under its own id, not an audit's label: replay:NAME for a prediction file)"
                    if column == "model_id" else "")
            raise InputError(f"no stored result has {column} {value!r}{hint}; the store holds {column} {shown}",
                             self.path)

    @_store_errors
    def timings(self, *, task: str | None = None) -> list[ModelTiming]:
        """Per model configuration: jobs, audio seconds and compute seconds over all batches."""
        _known_task(task)
        self._existing()
        clause, args = ("WHERE task = ?", (task,)) if task else ("", ())
        rows = self._db.execute(
            "SELECT model_id, config_hash, task, SUM(n_jobs), SUM(audio_seconds), SUM(compute_seconds)"
            f" FROM batches {clause} GROUP BY model_id, config_hash, task ORDER BY MIN(batch_id)",
            args,
        )
        return [ModelTiming(*r) for r in rows]

    @_store_errors
    def count(self) -> int:
        self._existing()
        return int(self._db.execute("SELECT COUNT(*) FROM results").fetchone()[0])
