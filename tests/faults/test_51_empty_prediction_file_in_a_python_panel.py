"""Case 51: case 8 through Python: ``accept_ref_from_predictions`` with an empty prediction file in the panel.

The loader's warning says the empty model "is left out of every panel",
and ``asraudit refdis`` leaves it out; ``accept_ref_from_predictions`` kept
it: a panel of ``m1, m2, m3, empty`` was reported as four members, its
majority threshold counted four (0.8 x 4: all four must agree), and it
mined no edit where the three members with transcripts all agreed,
silently.  Now the panel is the members with transcripts, as the command's.
"""

from __future__ import annotations

import pytest

from asraudit import InputError, accept_ref_from_predictions, load_predictions

from conftest import write_preds

REFS = [(f"c{i}", f"madam president the report number {i} is late") for i in range(8)]


@pytest.fixture()
def folder(tmp_path):
    for name in ("m1", "m2", "m3"):  # each drops "madam president", as the audio says
        write_preds(tmp_path / f"{name}.jsonl", [(c, r, r.removeprefix("madam president ")) for c, r in REFS])
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    return tmp_path


def test_the_empty_member_is_left_out_of_the_panel_as_the_warning_says(folder, cli):
    pset = load_predictions(folder)
    assert pset.warnings == [f"{folder / 'empty.jsonl'}: no rows with a hypothesis (an empty prediction file): "
                             "model empty ran no clips and is left out of every panel"]
    four = accept_ref_from_predictions(pset, ["m1", "m2", "m3", "empty"], models=["m1", "m2", "m3"])
    three = accept_ref_from_predictions(pset, ["m1", "m2", "m3"])
    assert four.mining.panel == ["m1", "m2", "m3"]
    assert len(four.edits) == len(three.edits) == len(REFS)
    assert four.accept_ref == {m: three.accept_ref[m] for m in ("m1", "m2", "m3")}
    ran = cli("refdis", "--preds", folder, "--panel", "m1,m2,m3,empty", "--models", "m1,m2,m3", "--bootstrap", "0")
    assert ran.code == 0 and "panel: m1, m2, m3 (3)" in ran.out  # the command's panel, the same


def test_a_panel_too_small_without_it_is_refused_as_the_command_refuses_it(folder, cli):
    with pytest.raises(InputError) as err:
        accept_ref_from_predictions(load_predictions(folder), ["m1", "m2", "empty"])
    assert str(err.value) == "the panel needs at least 3 models, got 2"
    ran = cli("refdis", "--preds", folder, "--panel", "m1,m2,empty")
    assert (ran.code, ran.error_lines) == (2, ["asraudit: error: the panel needs at least 3 models, got 2"])
