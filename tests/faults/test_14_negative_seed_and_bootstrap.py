"""Case 14: ``--seed -1`` and ``--bootstrap -1`` are one line before any work.

A negative ``--seed`` reached numpy's generator only when the first interval
was drawn: ``ValueError: expected non-negative integer`` as a traceback,
after ``wer`` had read every file (``conventions`` and ``refdis`` likewise).
A negative ``--bootstrap`` silently meant no intervals, and ``wer --paired
--bootstrap 0`` printed ``nan`` for every pair.  ``--bootstrap 0`` (no
intervals) stays accepted, as ``bootstrap = 0`` is in a spec.
"""

from __future__ import annotations

import pytest

from conftest import panel_files

ROWS = [(f"c{i}", f"the cat sat on mat {i}", f"the cat sat on the mat {i}") for i in range(4)]


@pytest.fixture()
def preds(tmp_path):
    return panel_files(tmp_path, ROWS)


@pytest.mark.parametrize("command", [("wer",), ("conventions",), ("refdis", "--panel", "m1,m2,m3"),
                                     ("refdis", "--panel", "m1,m2,m3", "--compat", "hume")])
def test_negative_seed_and_bootstrap_are_refused_before_any_work(preds, cli, command):
    ran = cli(command[0], "--preds", preds, *command[1:], "--seed", "-1")
    assert (ran.code, ran.out, ran.error_lines) == (2, "", ["asraudit: error: --seed must be at least 0, got -1"])
    ran = cli(command[0], "--preds", preds, *command[1:], "--bootstrap", "-1")
    assert (ran.code, ran.out, ran.error_lines) == (
        2, "", ["asraudit: error: --bootstrap must be at least 0 (0: no bootstrap intervals), got -1"])
    assert cli(command[0], "--preds", preds, *command[1:], "--bootstrap", "0").code == 0


def test_paired_needs_resamples(preds, cli):
    ran = cli("wer", "--preds", preds, "--paired", "--bootstrap", "0")
    assert (ran.code, ran.out, ran.error_lines) == (
        2, "", ["asraudit: error: --paired needs bootstrap resamples: give --bootstrap of at least 10, got 0"])
    assert "nan" not in cli("wer", "--preds", preds, "--paired", "--bootstrap", "10").out  # 1 to 9: case 317
