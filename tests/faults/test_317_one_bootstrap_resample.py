"""Case 317: ``--bootstrap 1`` (and a few resamples more): an "interval" of one draw.

``wer --bootstrap 1`` printed ``14.29%  [28.57, 28.57]``: both bounds the one resample, an interval that does not
even hold the estimate, exit 0.  No command had a floor above 0 (no intervals): ``refdis``, ``conventions``, a
spec's ``bootstrap``, ``steer --n-boot`` and the Python API's ``n_boot`` took 1 alike.  Now a count from 1 to 9 is
refused in one line naming the argument, before any work, by the one check that already refused too many
(``metrics.defaults.check_bootstrap_count``, case 137); 0 (no intervals) and 10 or more are accepted as before.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from asraudit import InputError, measure_refdis, parse_spec
from asraudit.audit.spec import checked_audit_spec

from conftest import panel_files

ROWS = [(f"c{i}", f"the cat sat on mat {i}", f"the cat sat on the mat {i}") for i in range(4)]
REFUSED = ("must be 0 (no intervals) or at least 10 resamples: a 95% interval of fewer is one or two draws (of 1: "
           "its one value as both bounds, which need not hold the estimate), got {}")


@pytest.mark.parametrize("command", [("wer",), ("wer", "--paired"), ("conventions",),
                                     ("refdis", "--panel", "m1,m2,m3")])
@pytest.mark.parametrize("count", [1, 9])
def test_commands_refuse_a_handful_of_resamples(tmp_path, cli, command, count):
    preds = panel_files(tmp_path, ROWS)
    ran = cli(command[0], "--preds", preds, *command[1:], "--bootstrap", count)
    assert (ran.code, ran.out, ran.error_lines) == (2, "", [f"asraudit: error: --bootstrap {REFUSED.format(count)}"])


def test_control_zero_and_ten_are_accepted(tmp_path, cli):
    preds = panel_files(tmp_path, ROWS)
    for count in (0, 10):
        assert cli("wer", "--preds", preds, "--bootstrap", count).code == 0


def test_python_api_spec_and_steer(tmp_path, cli, capsys):
    with pytest.raises(InputError) as err:
        measure_refdis([], ["m1"], scored=["m1"], n_boot=1)
    assert str(err.value) == f"n_boot {REFUSED.format(1)}"
    folder = panel_files(tmp_path / "p", ROWS)
    data = {"name": "t", "out": str(tmp_path / "out"), "corpus": {"predictions": str(folder / "m1.jsonl")},
            "model": [{"predictions": str(folder / f"{m}.jsonl"), "panel": True} for m in ("m1", "m2", "m3")]}
    with pytest.raises(InputError) as err:
        parse_spec({**data, "bootstrap": 1})
    assert str(err.value).endswith(f": spec: bootstrap {REFUSED.format(1)}")
    with pytest.raises(InputError) as err:
        checked_audit_spec(replace(parse_spec(data), bootstrap=2))
    assert str(err.value).endswith(f"bootstrap {REFUSED.format(2)}")
    assert parse_spec({**data, "bootstrap": 0}).bootstrap == 0 and parse_spec({**data, "bootstrap": 10}).bootstrap == 10
    with pytest.raises(SystemExit) as exit_:
        cli("steer", "induce", "--n-boot", "1")
    assert exit_.value.code == 2
    assert f"argument --n-boot: {REFUSED.format(1)}" in capsys.readouterr().err
