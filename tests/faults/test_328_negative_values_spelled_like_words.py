"""Case 328: a negative value argparse does not take for a number: ``steer induce --alpha -inf`` (or ``-nan``),
and finite ones too: ``--alpha -1e5``, ``--alpha -1.``.

argparse reads only ``-1`` and ``-.5`` as negative numbers; anything else after ``--alpha`` that starts with ``-``
was taken for an unknown option, so the run stopped with ``argument --alpha: expected one argument``: a valid
scale of ``-1e5`` could not be given at all (only as ``--alpha=-1e5``), and ``-inf`` was not refused for what it is,
while ``--alpha=-inf`` read ``must be a finite number, got -inf``.  Now every parser reads Python's spellings of a
negative number (exponent, trailing point, digit groups, infinities, NaN) as a value, which the option's type
then checks.
"""

from __future__ import annotations

import pytest

from asraudit.cli import build_parser


@pytest.mark.parametrize("value", ["-inf", "-Infinity", "-nan"])
def test_a_negative_infinity_is_refused_as_not_finite(cli, capsys, value):
    for given in (("--alpha", value), (f"--alpha={value}",)):
        with pytest.raises(SystemExit) as exit_:
            cli("steer", "induce", "--corpus", "m.jsonl", "--direction", "d.safetensors", *given)
        assert exit_.value.code == 2
        assert capsys.readouterr().err.splitlines()[-1] == (f"asraudit steer induce: error: argument --alpha: must "
                                                            f"be a finite number, got {value}")


@pytest.mark.parametrize("value, number", [("-1e5", -1e5), ("-1.", -1.0), ("-2.5E-1", -0.25), ("-1_000", -1000.0),
                                           ("-3", -3.0)])
def test_a_finite_negative_scale_is_read(value, number):
    argv = ["steer", "induce", "--corpus", "m.jsonl", "--direction", "d.safetensors", "--alpha", value, "--alpha", "2"]
    assert build_parser(argv).parse_args(argv).alpha == [number, 2.0]


def test_control_an_option_after_alpha_is_still_an_option(cli, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli("steer", "induce", "--corpus", "m.jsonl", "--direction", "d.safetensors", "--alpha", "--layer", "2")
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith("argument --alpha: expected one argument")
