"""Case 336: a number on the command line with an underscore that groups no thousands (``1_0``, ``10_00``): a typo
for ``1,0`` in a list of positions, or a stray key in a count. Python's ``int()`` and ``float()`` read digit
groups anywhere, so ``patch --positions 1_0`` patched position 10 (not 1 and 0), ``--bootstrap 1_0`` drew 10
resamples, ``--batch-size 1_0``, ``--limit 1_0``, ``--seed 1_0``, ``--layer 1_0`` and ``steer induce --alpha -1_0`` ran as 10 or
-10, exit 0, without a word.

Every number option now reads an underscore only as Python's digit grouping is meant, by thousands (``1_000``,
``-1_000``, as case 328 keeps for ``--alpha``): any other is refused in argparse's one line, exit 2."""

from __future__ import annotations

import pytest

from asraudit.commands.patch import _positions
from asraudit.errors import InputError


def test_positions_with_an_underscore_for_a_comma_are_refused():
    with pytest.raises(InputError) as err:
        _positions("1_0")
    assert str(err.value) == ("--positions 1_0: '1_0' is not a position: '_' groups digits by three (1_000), and "
                              "here it does not (a typo for ','?)")


def test_control_positions_read_as_before():
    assert _positions("1,0") == (1, 0)
    assert _positions("1_000") == (1000,)


@pytest.mark.parametrize("args, option", [
    (["wer", "--preds", "p", "--bootstrap", "1_0"], "--bootstrap"),
    (["wer", "--preds", "p", "--seed", "1_0"], "--seed"),
    (["transcribe", "--corpus", "c", "--model", "m", "--out", "o", "--batch-size", "10_00"], "--batch-size"),
    (["mask", "--corpus", "c", "--model", "m", "--edits", "e", "--limit", "1_0"], "--limit"),
    (["patch", "--corpus", "c", "--model", "m", "--layer", "1_0"], "--layer"),
    (["steer", "induce", "--corpus", "c", "--direction", "d.safetensors", "--alpha", "-1_0"], "--alpha"),
    (["mask", "--corpus", "c", "--model", "m", "--edits", "e", "--pad", "0.0_2"], "--pad"),
])
def test_a_number_option_with_an_underscore_that_groups_no_thousands_is_refused(cli, capsys, args, option):
    with pytest.raises(SystemExit) as exit_:
        cli(*args)
    assert exit_.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert f"error: argument {option}: expected a " in last and f"got {args[-1]!r}: '_' groups digits by three " \
        "(1_000), and here it does not (a typo?)" in last, last


@pytest.mark.parametrize("text, value", [("1_000", 1000), ("-1_000", -1000), ("10_000", 10000), ("12", 12)])
def test_control_thousands_grouped_read_as_before(text, value):
    from asraudit.commands.common import finite_number, integer

    assert integer(text) == value and finite_number(text) == float(value)


def test_a_frame_span_with_a_stray_underscore_is_refused(cli, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli("patch", "--corpus", "c", "--model", "m", "--block-attention", "0.5-1_0")
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(
        "argument --block-attention: frame span '0.5-1_0': '_' groups digits by three (1_000), and here it does not "
        "(a typo?)")


def test_control_a_frame_span_reads_as_before():
    from asraudit.models.whitebox.frames import Frames

    assert (Frames.parse("0.5-10").start_s, Frames.parse("0.5-10").end_s) == (0.5, 10.0)
