"""Case 246: a list of models given empty: ``refdis --models ""`` (``--models "$MODELS"`` with the variable
unset), ``--models ","``, ``refdis --panel " , "``, ``steer induce --panel ""``.

Before, an empty ``--models`` was read as not given: every model was scored, with no word, exit 0 (case 227
refused an empty ``--group-field`` for the same reason); ``steer --panel ""`` took every prediction file as the
panel, after the white-box model had loaded."""

from __future__ import annotations

import pytest

from tests.faults.conftest import panel_files

ROWS = [("c0", "the cat sat", "the cat sat down"), ("c1", "a dog ran", "a dog ran off")]


def _preds(tmp_path):
    return panel_files(tmp_path / "p", ROWS)


@pytest.mark.parametrize("flag, value", [("--models", ""), ("--models", ","), ("--panel", " , ")])
def test_refdis_list_naming_no_model_is_refused(cli, capsys, tmp_path, flag, value):
    preds = _preds(tmp_path)
    args = {"--panel": "m1,m2,m3", flag: value}
    with pytest.raises(SystemExit) as stop:
        cli("refdis", "--preds", preds, *[x for kv in args.items() for x in kv], "--bootstrap", "0")
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (f"asraudit refdis: error: argument {flag}: names no model, got {value!r}: list "
                                    "the models, comma-separated, or leave the option out")


def test_refdis_models_stripped_and_scored_alone(cli, tmp_path):
    ran = cli("refdis", "--preds", _preds(tmp_path), "--panel", "m1,m2,m3", "--models", " m1, ", "--bootstrap", "0")
    assert ran.code == 0, ran.err
    table = ran.out.split("accept-ref = ")[1].split("accept-ref by kind")[0]
    assert "m1 " in table and "m2 " not in table and "m3 " not in table


def test_steer_panel_naming_no_model_is_refused_before_anything_loads(cli, capsys, tmp_path):
    with pytest.raises(SystemExit) as stop:
        cli("steer", "induce", "--model", "whisper-tiny.en", "--corpus", tmp_path / "none.jsonl",
            "--direction", tmp_path / "none.json", "--preds", _preds(tmp_path), "--panel", "")
    assert stop.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "asraudit steer induce: error: argument --panel: names no model, got '': list the models, comma-separated, "
        "or leave the option out")
