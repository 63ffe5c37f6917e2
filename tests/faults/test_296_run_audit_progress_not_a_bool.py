"""Case 296: ``run_audit(..., progress=...)`` from Python with what is not True or False: ``"no"``, ``"false"``,
``0.0``-like strings, ``None``, a number.

Any truthy value was taken as true: ``progress="no"`` drew the progress bars the caller asked not to see (on a
terminal), and ran the audit, no error.  Now it is one line naming the
argument, before anything is read or written; ``True``, ``False`` and numpy's bools go as before.
"""

from __future__ import annotations

import numpy as np
import pytest

from asraudit import InputError, run_audit

from conftest import panel_files

ROWS = [(f"c{i}", f"well the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(4)]


def spec(tmp_path) -> dict:
    folder = panel_files(tmp_path / "p", ROWS)
    return {"name": "t", "out": str(tmp_path / "out"), "corpus": {"predictions": str(folder / "m1.jsonl")},
            "model": [{"predictions": str(folder / f"{m}.jsonl"), "panel": True} for m in ("m1", "m2", "m3")]}


@pytest.mark.parametrize(("progress", "shown"), [("no", "'no'"), ("false", "'false'"), (None, "None"), (1, "1")])
def test_a_progress_that_is_not_a_bool_is_refused_before_any_work(tmp_path, progress, shown):
    with pytest.raises(InputError) as err:
        run_audit(spec(tmp_path), progress=progress)
    assert str(err.value) == f"progress must be true or false, got {shown}"
    assert not (tmp_path / "out").exists()


def test_a_bool_runs_the_audit_as_before(tmp_path):
    for progress in (np.bool_(False), True):
        assert run_audit(spec(tmp_path), progress=progress).summary_path.is_file()
