"""Case 18: a panel that names one model twice.

``refdis --panel m0,m0,m0,m1`` was accepted as a four-member panel (the
header said ``panel: m0, m0, m0, m1 (4)``) and mined no edit where the two
real members agreed, exit 0; ``--compat hume`` and
``accept_ref_from_predictions`` did the same, and the Python function given
the string ``"m0,m1,m2"`` instead of a list looked for models ``m``, ``0``
and ``,``.  Now each is one line before any file is read.
"""

from __future__ import annotations

import pytest

from asraudit import accept_ref_from_predictions, load_predictions
from asraudit.errors import InputError

from conftest import write_preds

ROWS = [(f"c{i}", f"well the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(4)]
TWICE = "the panel names m0 more than once; each member votes once: list each model once"


@pytest.fixture()
def preds(tmp_path):
    for name in ("m0", "m1", "m2"):
        write_preds(tmp_path / f"{name}.jsonl", ROWS)
    return tmp_path


@pytest.mark.parametrize("compat", [(), ("--compat", "hume")])
def test_the_cli_refuses_a_model_named_twice_in_the_panel(preds, cli, compat):
    ran = cli("refdis", "--preds", preds, "--panel", "m0,m0,m0,m1", *compat)
    assert (ran.code, ran.out, ran.error_lines) == (2, "", [f"asraudit: error: {TWICE}"])
    assert cli("refdis", "--preds", preds, "--panel", "m0,m1,m2", *compat).code == 0


def test_the_python_api_refuses_it_too(preds):
    pset = load_predictions(preds)
    with pytest.raises(InputError) as err:
        accept_ref_from_predictions(pset, ["m0", "m0", "m0", "m1"])
    assert str(err.value) == TWICE
    with pytest.raises(InputError) as err:
        accept_ref_from_predictions(pset, "m0,m1,m2")
    assert str(err.value) == "the panel is a list of model names, got the string 'm0,m1,m2'"
    assert len(accept_ref_from_predictions(pset, ["m0", "m1", "m2"]).edits) == 4
