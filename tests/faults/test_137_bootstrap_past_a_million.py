"""Case 137: a count of bootstrap resamples with a digit too many: ``--bootstrap 99999999999999``.

``wer``, ``conventions``, ``refdis`` (and ``mask``, ``lift``, ``translate``,
which share the check), a spec's ``bootstrap``, ``steer --n-boot`` and the
Python API's ``n_boot`` took any count: the run drew resamples for hours with
no message.  Now a count past 1,000,000 is one line naming the argument,
where case 14 refuses a negative one: before any work.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from asraudit import InputError, measure_refdis, parse_spec
from asraudit.audit.spec import checked_audit_spec

from conftest import panel_files

ROWS = [(f"c{i}", f"the cat sat on mat {i}", f"the cat sat on the mat {i}") for i in range(4)]
TOO_MANY = "99999999999999"
REFUSED = f"must be at most 1000000 resamples (a third digit of an interval needs far fewer), got {TOO_MANY}"


def test_python_api_and_spec_refuse_before_any_work(tmp_path):
    with pytest.raises(InputError) as err:
        measure_refdis([], ["m1"], scored=["m1"], n_boot=int(TOO_MANY))
    assert str(err.value) == f"n_boot {REFUSED}"
    with pytest.raises(InputError) as err:
        measure_refdis([], ["m1"], scored=["m1"], n_boot=0, accept_ref_boot=int(TOO_MANY))
    assert str(err.value) == f"accept_ref_boot {REFUSED}"
    folder = panel_files(tmp_path / "p", ROWS)
    data = {"name": "t", "out": str(tmp_path / "out"), "corpus": {"predictions": str(folder / "m1.jsonl")},
            "model": [{"predictions": str(folder / f"{m}.jsonl"), "panel": True} for m in ("m1", "m2", "m3")]}
    with pytest.raises(InputError) as err:
        parse_spec({**data, "bootstrap": int(TOO_MANY)})
    assert str(err.value).endswith(f": spec: bootstrap {REFUSED}")
    with pytest.raises(InputError) as err:
        checked_audit_spec(replace(parse_spec(data), bootstrap=int(TOO_MANY)))
    assert str(err.value).endswith(f"bootstrap {REFUSED}")
    assert parse_spec({**data, "bootstrap": 1_000_000}).bootstrap == 1_000_000


def test_steer_n_boot_is_refused_by_argparse(cli, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli("steer", "induce", "--n-boot", TOO_MANY)
    assert exit_.value.code == 2
    assert f"argument --n-boot: {REFUSED}" in capsys.readouterr().err


@pytest.mark.parametrize("command", [("wer",), ("conventions",), ("refdis", "--panel", "m1,m2,m3")])
def test_commands_refuse_before_any_work(tmp_path, cli, command):
    preds = panel_files(tmp_path, ROWS)
    ran = cli(command[0], "--preds", preds, *command[1:], "--bootstrap", TOO_MANY)
    assert (ran.code, ran.out, ran.error_lines) == (2, "", [f"asraudit: error: --bootstrap {REFUSED}"])
