"""Case 314: a result store opened on a full disk.

Making a new store (WAL, its tables) on a full disk fails in SQLite with "database or disk is full"; opening one
that holds finished results fails with "disk I/O error" (a 1 MB tmpfs filled: both measured).  Both were
"not a usable asraudit store (...)", which reads as a fault of the file, and a user told the store is unusable
moves aside or deletes the results it keeps.  Now the line says the disk is full, how much is free, that the
results are kept, and what to do.  The disk is stood in for: ``_open`` raises what SQLite raised there, and the
free space reads 0 (a disk I/O error with space free stays the store's own error).
"""

from __future__ import annotations

import shutil
import sqlite3
from collections import namedtuple

import pytest

from asraudit.errors import InputError
from asraudit.run.store import Outcome, ResultStore
from asraudit.run.spec import TRANSCRIBE, make_job

Usage = namedtuple("Usage", "total used free")


def _error(text, code):
    exc = sqlite3.OperationalError(text)
    exc.sqlite_errorcode = code
    return exc


def _kept_store(path):
    with ResultStore(path) as s:
        s.write_batch(s.start_run("local"), "m", "h", TRANSCRIBE,
                      [Outcome(make_job("m", "h", "c1", "original", TRANSCRIBE, {}), 1.0, text="finished work")], 0.1)


@pytest.mark.parametrize("exists, text, code, kept", [
    (True, "disk I/O error", sqlite3.SQLITE_IOERR | (4 << 8), "; the results it holds are kept"),
    (False, "database or disk is full", sqlite3.SQLITE_FULL, ""),
], ids=["store-with-results", "new-store"])
def test_a_full_disk_is_named_as_such(tmp_path, monkeypatch, exists, text, code, kept):
    path = tmp_path / "asraudit.sqlite"
    if exists:
        _kept_store(path)

    def full(self):
        raise _error(text, code)

    monkeypatch.setattr(ResultStore, "_open", full)
    monkeypatch.setattr(shutil, "disk_usage", lambda p: Usage(1 << 20, 1 << 20, 0))
    with pytest.raises(InputError) as caught:
        ResultStore(path).start_run("local")
    assert str(caught.value) == (f"{path}: cannot open the result store: the disk is full (0 bytes free; {text})"
                                 f"{kept}: free some space, or name a store on another disk, and run again")
    monkeypatch.undo()
    if exists:
        with ResultStore(path) as again:
            assert again.get(make_job("m", "h", "c1", "original", TRANSCRIBE, {})).text == "finished work"


def test_an_io_error_with_space_free_is_the_stores_own(tmp_path, monkeypatch):
    path = tmp_path / "asraudit.sqlite"
    _kept_store(path)

    def failing(self):
        raise _error("disk I/O error", sqlite3.SQLITE_IOERR)

    monkeypatch.setattr(ResultStore, "_open", failing)
    with pytest.raises(InputError) as caught:
        ResultStore(path)
    assert str(caught.value) == f"{path}: not a usable asraudit store (disk I/O error)"
