"""Case 12: a result store damaged in the middle of the file.

A store whose header and schema are intact but one of whose pages is garbage
(a partial copy, a disk error) opened fine, and the first read of the damaged
page raised ``sqlite3.DatabaseError: database disk image is malformed`` as a
traceback, in the middle of an audit.  Now every store operation reports
SQLite's error as one line naming the store, saying the file is damaged and
what to do about it.
"""

from __future__ import annotations

import sqlite3

import pytest

from asraudit.errors import InputError
from asraudit.run.spec import make_job
from asraudit.run.store import Outcome, ResultStore

from conftest import write_preds


def damage_results(path) -> None:
    """Overwrite the pages of the results table and of its indexes with 0xff bytes (no valid page type)."""
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every committed row into the main file first
        size = db.execute("PRAGMA page_size").fetchone()[0]
        roots = [r for (r,) in db.execute("SELECT rootpage FROM sqlite_master WHERE tbl_name = 'results' "
                                          "AND rootpage > 0")]
    with open(path, "r+b") as fh:
        for root in roots:
            fh.seek((root - 1) * size)
            fh.write(b"\xff" * size)


def _job(clip: str):
    return make_job("m", "h", clip, "original", "transcribe", {})


def test_reading_a_damaged_page_is_one_line_naming_the_store(tmp_path):
    path = tmp_path / "asraudit.sqlite"
    with ResultStore(path) as store:
        store.write_batch(store.start_run("local"), "m", "h", "transcribe",
                          [Outcome(_job(f"c{i}"), 1.0, text=f"text {i}") for i in range(5)], 0.1)
    damage_results(path)
    store = ResultStore(path)  # the header and the schema are intact: it opens
    with pytest.raises(InputError) as caught:
        store.get_many([_job("c1")])
    store.close()
    assert str(caught.value) == (
        f"{path}: cannot use the result store (database disk image is malformed); the file is damaged: "
        "move it aside and run again to start a new store (its results cannot be read)")


def test_an_audit_into_a_damaged_store_stops_with_one_line(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = [(f"c{i}.wav", f"the cat sat on mat number {i}", f"the cat sat on the mat number {i}") for i in range(4)]
    models = "".join(f'[[model]]\npredictions = "{write_preds(tmp_path / f"m{i}.jsonl", rows)}"\npanel = true\n\n'
                     for i in range(3))
    spec = tmp_path / "audit.toml"
    spec.write_text(f'name = "text only"\nout = "out"\nbootstrap = 20\n[corpus]\npredictions = "m0.jsonl"\n\n'
                    f"{models}", encoding="utf-8")
    assert cli("audit", spec, "--no-progress").code == 0
    damage_results(tmp_path / "out" / "asraudit.sqlite")
    ran = cli("audit", spec, "--no-progress")
    assert ran.code == 2 and "Traceback" not in ran.err
    assert len(ran.error_lines) == 1
    line = ran.error_lines[0]
    assert "out/asraudit.sqlite: cannot use the result store (database disk image is malformed); the file is " \
           "damaged: move it aside and run again to start a new store" in line, line


def test_a_full_disk_is_one_line_and_the_batches_before_it_stay(tmp_path):
    """SQLite rolls a transaction back itself when the disk fills; the store's own ROLLBACK then failed with
    "cannot rollback - no transaction is active", which hid the real error.  The page limit stands in for the
    disk (SQLite reports both as SQLITE_FULL)."""
    path = tmp_path / "asraudit.sqlite"
    store = ResultStore(path)
    run = store.start_run("local")
    store.write_batch(run, "m", "h", "transcribe", [Outcome(_job("kept"), 1.0, text="finished work")], 0.1)
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages + 2}")
    with pytest.raises(InputError) as caught:
        for b in range(100):
            store.write_batch(run, "m", "h", "transcribe",
                              [Outcome(_job(f"b{b}-{i}"), 1.0, text="x" * 2000) for i in range(20)], 0.1)
    store.close()
    assert str(caught.value) == f"{path}: cannot use the result store (database or disk is full)"
    with ResultStore(path) as again:
        assert again.get(_job("kept")).text == "finished work"
