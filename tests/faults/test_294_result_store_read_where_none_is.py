"""Case 294: ``ResultStore(path)`` from Python naming a store that is not there, to read it: a typo in a folder
(``ResultStore("ouy/asraudit.sqlite")``) or in the file's name.

Opening it made the missing folders and an empty store, so ``.results()`` was ``[]``, ``.timings()`` ``[]`` and
``.count()`` 0: "nothing stored", silently, and a new folder was left where the user typed.  Now a store that does
not exist is made by the first call that needs it (every run that writes reads it first), never by a query: the
queries refuse it in one line, and nothing is created.  Commands that write a store (``transcribe --store NEW``)
still make it, folders too.
"""

from __future__ import annotations

import pytest

from asraudit import InputError, ResultStore
from asraudit.run.spec import TRANSCRIBE, make_job
from asraudit.run.store import Outcome

from conftest import one_clip_manifest, write_preds

MISSING = ("no result store here: no such file (a typo in the path?); a store is made by what runs models into it "
           "(run_audit, asraudit audit, transcribe, score): name the file that run wrote (OUT/asraudit.sqlite in an "
           "audit)")


@pytest.mark.parametrize("typed", ["typo/dir/asraudit.sqlite", "asraudit.sqlit"])
@pytest.mark.parametrize("query", ["results", "timings", "count"])
def test_a_query_of_a_store_that_is_not_there_is_refused(tmp_path, typed, query):
    path = tmp_path / typed
    with ResultStore(path) as store:
        with pytest.raises(InputError) as err:
            getattr(store, query)()
    assert str(err.value) == f"{path}: {MISSING}"
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no folder, no file left


def test_a_store_written_from_python_is_made_and_reads(tmp_path):
    path = tmp_path / "new" / "dir" / "s.sqlite"
    job = make_job("m", "h", "c0", "original", TRANSCRIBE, {})
    with ResultStore(path) as store:
        store.write_batch(store.start_run("local"), "m", "h", TRANSCRIBE, [Outcome(job, 1.0, text="a cat")], 0.1)
    with ResultStore(path) as store:
        assert ([r.text for r in store.results()], store.count()) == (["a cat"], 1)


def test_a_command_that_writes_a_new_store_still_makes_it(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manifest = one_clip_manifest(tmp_path, text="a cat")
    preds = write_preds(tmp_path / "m1.jsonl", [("a.wav", "a cat", "a cat")])
    ran = cli("transcribe", "--model", f"replay:{preds}", "--corpus", manifest, "--out", "o",
              "--store", "new/dir/s.sqlite", "--no-progress")
    assert ran.code == 0, ran.err
    with ResultStore(tmp_path / "new" / "dir" / "s.sqlite") as store:
        assert [r.text for r in store.results(task=TRANSCRIBE)] == ["a cat"]
