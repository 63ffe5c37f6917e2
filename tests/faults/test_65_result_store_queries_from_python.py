"""Case 65: querying the result store from Python with a misspelt task.

``ResultStore.results(task="transcription")`` (or ``timings(task=...)``)
matched no row and returned ``[]``, silently: the task column holds
``transcribe`` or ``score``.  Now a task outside those is one line.  (A
model is filtered by the id it was stored under, ``replay:m1`` for a
replayed file, not the audit's label: the docstring says so.)
"""

from __future__ import annotations

import pytest

from asraudit import InputError, ResultStore, run_audit

from conftest import panel_files

ROWS = [(f"c{i}", f"well the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(3)]


def test_a_misspelt_task_is_refused_and_the_right_one_finds_the_results(tmp_path):
    folder = panel_files(tmp_path / "p", ROWS)
    run_audit({"name": "t", "out": str(tmp_path / "out"), "corpus": {"predictions": str(folder / "m1.jsonl")},
               "model": [{"predictions": str(folder / f"{m}.jsonl"), "panel": True} for m in ("m1", "m2", "m3")]},
              progress=False)
    with ResultStore(tmp_path / "out" / "asraudit.sqlite") as store:
        for query in (store.results, store.timings):
            with pytest.raises(InputError) as err:
                query(task="transcription")
            assert str(err.value) == "task must be one of transcribe, score, got 'transcription'"
        assert len(store.results(task="transcribe")) == 9
        assert {r.model_id for r in store.results(model_id="replay:m1")} == {"replay:m1"}
        assert [t.model_id for t in store.timings(task="transcribe")] == ["replay:m1", "replay:m2", "replay:m3"]
