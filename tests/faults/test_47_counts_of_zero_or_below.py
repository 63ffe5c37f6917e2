"""Case 47: a count option given as 0 or a negative number.

Where a command read the count with a slice or a truth test, it was taken
silently: ``mask --limit -1`` (and ``battery``) masked every clip but the
last (``clips[:-1]``), ``--limit 0`` every clip; ``calibrate --sentences 0``
ran the whole calibration and ``--sentences -3`` all but the last three
sentences; ``demo build-organism --epochs 0`` trained the default number of
epochs and ``--epochs -1`` none, saving the untrained adapter as the
organism.  Now every count option is checked by argparse before anything
runs: one line naming the option, exit 2.
"""

from __future__ import annotations

import pytest

from asraudit.cli import main


@pytest.mark.parametrize("args, option, minimum, value", [
    (["mask", "--corpus", "c.jsonl", "--model", "pocketsphinx", "--limit", "-1"], "--limit", 1, -1),
    (["mask", "--corpus", "c.jsonl", "--model", "pocketsphinx", "--limit", "0"], "--limit", 1, 0),
    (["battery", "--corpus", "c.jsonl", "--model", "pocketsphinx", "--limit", "0"], "--limit", 1, 0),
    (["calibrate", "--sentences", "0"], "--sentences", 1, 0),
    (["calibrate", "--sentences", "-3"], "--sentences", 1, -3),
    (["demo", "build-organism", "--epochs", "0"], "--epochs", 1, 0),
    (["demo", "build-organism", "--epochs", "-1"], "--epochs", 1, -1),
    (["demo", "build-benchmark", "--jobs", "0"], "--jobs", 1, 0),
    (["translate", "--corpus", "c.jsonl", "--model", "whisper-base", "--truth", "t.json", "--max-clips", "0",
      "--out", "o.jsonl"], "--max-clips", 1, 0),
    (["conventions", "--preds", "p", "--show", "-2"], "--show", 0, -2),
])
def test_a_count_below_its_minimum_is_refused_before_anything_runs(tmp_path, monkeypatch, capsys, args, option,
                                                                   minimum, value):
    monkeypatch.chdir(tmp_path)  # nothing the command names exists here: the count is checked first
    with pytest.raises(SystemExit) as stopped:
        main(args)
    assert stopped.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].endswith(f"error: argument {option}: must be at least {minimum}, got {value}")
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_a_count_that_is_not_a_whole_number_is_named(capsys):
    with pytest.raises(SystemExit):
        main(["calibrate", "--sentences", "2.5"])
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(
        "error: argument --sentences: expected a whole number, got '2.5'")
