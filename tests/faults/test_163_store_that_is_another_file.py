"""Case 163: a result store path (``--store``, ``ResultStore(path)``) naming a file that is not an asraudit store.

Another program's SQLite database was taken for a new store: asraudit created its seven tables in it beside the
owner's, switched it to WAL, and ran; a JSON or text file was called "damaged" (move it aside); a store whose
``schema_version`` is not a number stopped with ``ValueError: invalid literal for int()``, a traceback.  Now the
database is refused in one line before anything is written to it, a text file is named for what it is, and a
store of another version says whether a later asraudit wrote it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3

import pytest

from asraudit.errors import InputError
from asraudit.run.store import ResultStore

from conftest import one_clip_manifest


def _foreign_database(path):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE people (name TEXT)")
    db.execute("INSERT INTO people VALUES ('ann')")
    db.commit()
    db.close()
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_another_programs_sqlite_database_is_refused_and_left_as_it_was(tmp_path, cli):
    other = tmp_path / "contacts.db"
    digest = _foreign_database(other)
    ran = cli("transcribe", "--model", "whisper-tiny.en", "--corpus", one_clip_manifest(tmp_path),
              "--out", tmp_path / "o", "--store", other)
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    assert ran.error_lines[0] == (
        f"asraudit: error: {other}: an SQLite database that is not an asraudit result store (its tables: people); "
        "asraudit would add its tables to it: name a new file (or an asraudit store) for the store")
    assert hashlib.sha256(other.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("contacts")) == ["contacts.db"]
    tables = [r[0] for r in sqlite3.connect(other).execute("SELECT name FROM sqlite_master WHERE type='table'")]
    assert tables == ["people"]
    assert not (tmp_path / "o" / "whisper-tiny.en.jsonl").exists()


def test_a_json_or_text_file_is_named_for_what_it_is(tmp_path):
    (tmp_path / "m.json").write_text(json.dumps({"audio_filepath": "a.wav", "text": "x"}), encoding="utf-8")
    with pytest.raises(InputError) as err:
        ResultStore(tmp_path / "m.json")
    assert str(err.value) == (f"{tmp_path / 'm.json'}: not a result store: a JSON file, not an SQLite database: "
                              "name a new file (or an asraudit store) for the store")
    (tmp_path / "notes.txt").write_text("résumé of the run\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a result store: a text file, not an SQLite database"):
        ResultStore(tmp_path / "notes.txt")
    one_clip_manifest(tmp_path)  # a.wav: the audio given as the store was called damaged ("move it aside")
    with pytest.raises(InputError, match="not a result store: a WAV \\(RIFF\\) file, not an SQLite database"):
        ResultStore(tmp_path / "a.wav")


@pytest.mark.parametrize("version, said", [
    ("2", "store schema version 2, this asraudit reads 1; it was written by a later asraudit: upgrade asraudit to "
          "read it, or start a new store"),
    ("abc", "store schema version abc, this asraudit reads 1: the store is damaged or not asraudit's"),
])
def test_a_store_of_another_schema_version(tmp_path, version, said):
    path = tmp_path / "s.sqlite"
    with ResultStore(path) as store:  # made by its first write
        store.start_run("local")
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (version,))
    db.commit()
    db.close()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(InputError) as err:
        ResultStore(path)
    assert str(err.value) == f"{path}: {said}"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest  # a later asraudit's store is left as it was


def test_an_empty_file_still_becomes_a_store(tmp_path):
    (tmp_path / "s.sqlite").write_bytes(b"")
    with ResultStore(tmp_path / "s.sqlite") as store:
        assert store.count() == 0


def test_from_python_a_folder_or_a_file_in_the_path_is_one_line(tmp_path):
    """``--store`` checked these already; ``ResultStore(path)`` said `unable to open database file` of a folder and
    raised `FileExistsError` (a traceback) where a file stood in the path."""
    with pytest.raises(InputError) as err:
        ResultStore(tmp_path)
    assert str(err.value) == f"{tmp_path}: the result store is a folder; give a file name"
    (tmp_path / "m.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        ResultStore(tmp_path / "m.jsonl" / "deeper" / "s.sqlite")
    assert str(err.value) == (f"{tmp_path / 'm.jsonl' / 'deeper' / 's.sqlite'}: cannot write the result store: "
                              f"{tmp_path / 'm.jsonl'} is a file, not a folder")
    assert (tmp_path / "m.jsonl").read_text(encoding="utf-8") == "{}\n"
