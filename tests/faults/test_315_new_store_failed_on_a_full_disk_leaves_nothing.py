"""Case 315: a new result store whose making fails (a full disk) left a 0-byte file and the folders made for it.

SQLite creates the store's file when it connects, before a byte is written; on a full disk the first write (making
the store WAL) fails, and case 314's line was printed over an empty ``asraudit.sqlite`` and any folders made for it
(measured with a real failing write: a file-size limit of 0, ``new/dir/asraudit.sqlite`` of 0 bytes left).  The
next run then met that file as a store.  A failed create now leaves the user's folder as it was; a store that was
there before is never removed.  The disk is stood in for as in case 314: ``_open`` connects (which makes the file,
as SQLite does) and raises what SQLite raised on the full disk, and the free space reads 0.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections import namedtuple

import pytest

from asraudit.errors import InputError
from asraudit.run.store import ResultStore

from conftest import files_under

Usage = namedtuple("Usage", "total used free")


def _full_disk(monkeypatch):
    def full(self):
        sqlite3.connect(str(self.path)).close()  # the file is made on connecting, as SQLite does
        exc = sqlite3.OperationalError("database or disk is full")
        exc.sqlite_errorcode = sqlite3.SQLITE_FULL
        raise exc

    monkeypatch.setattr(ResultStore, "_open", full)
    monkeypatch.setattr(shutil, "disk_usage", lambda p: Usage(1 << 20, 1 << 20, 0))


@pytest.mark.parametrize("name", ["asraudit.sqlite", "new/dir/asraudit.sqlite"], ids=["file", "file-and-folders"])
def test_a_failed_create_leaves_the_folder_as_it_was(tmp_path, monkeypatch, name):
    (tmp_path / "kept.txt").write_text("the user's")
    _full_disk(monkeypatch)
    with pytest.raises(InputError) as caught:
        ResultStore(tmp_path / name).start_run("local")
    assert "cannot open the result store: the disk is full" in str(caught.value)
    assert files_under(tmp_path) == {"kept.txt"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.txt"]


def test_an_empty_file_the_user_had_is_kept(tmp_path, monkeypatch):
    """Control: a 0-byte file that was there before (a store to be) is the user's, and stays."""
    path = tmp_path / "asraudit.sqlite"
    path.touch()
    _full_disk(monkeypatch)
    with pytest.raises(InputError):
        ResultStore(path).start_run("local")
    assert path.exists() and files_under(tmp_path) == {"asraudit.sqlite"}


def test_an_audit_whose_store_cannot_be_made_leaves_no_out(tmp_path, cli, monkeypatch):
    """``audit`` makes its ``out`` before the store: the stop left an empty ``out`` behind and said "results so
    far are in out", where nothing was."""
    monkeypatch.chdir(tmp_path)
    rows = [(f"c{i}.wav", f"the cat sat on mat {i}", f"the cat sat on the mat {i}") for i in range(3)]
    models = ""
    for i in range(3):
        with (tmp_path / f"m{i}.jsonl").open("w", encoding="utf-8") as fh:
            for c, r, h in rows:
                fh.write(f'{{"audio_filepath": "{c}", "text": "{r}", "pred_text": "{h}"}}\n')
        models += f'[[model]]\npredictions = "m{i}.jsonl"\npanel = true\n\n'
    (tmp_path / "audit.toml").write_text(f'name = "t"\nout = "new/out"\nbootstrap = 0\n[corpus]\npredictions = '
                                         f'"m0.jsonl"\n\n{models}', encoding="utf-8")
    before = files_under(tmp_path)
    _full_disk(monkeypatch)
    ran = cli("audit", "audit.toml", "--no-progress")
    assert ran.code == 2
    assert ran.error_lines[0].startswith("asraudit: error: audit stage 'transcribe' stopped (nothing was written): "
                                         "new/out/asraudit.sqlite: cannot open the result store: the disk is full")
    assert files_under(tmp_path) == before and not (tmp_path / "new").exists()
