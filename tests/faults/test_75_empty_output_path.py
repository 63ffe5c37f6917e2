"""Case 75: an empty output path is refused, naming the option.

``Path("")`` is the working directory, so ``--out ""`` (a script's
``--out "$DIR"`` with ``DIR`` unset) ran the whole audit and wrote its store,
tables and report among whatever the working directory held; ``--json ""``
and the other output files failed only at the end.  Every option that names
an output folder or file now refuses an empty name when the arguments are
read, before anything runs or is written (``out = ""`` in a spec already was).
"""

from __future__ import annotations

import pytest

from asraudit.cli import main

REFUSED = "an empty path names no file or folder (it would be the working directory): give one"


@pytest.mark.parametrize("argv", [
    ["demo", "--out", ""],
    ["calibrate", "--out", ""],
    ["audit", "spec.toml", "--out", ""],
    ["transcribe", "--model", "pocketsphinx", "--corpus", "m.jsonl", "--out", ""],
    ["mask", "--model", "pocketsphinx", "--corpus", "m.jsonl", "--out", ""],
    ["battery", "--model", "pocketsphinx", "--corpus", "m.jsonl", "--spec", "paper", "--out", ""],
    ["steer", "ablate", "--store", ""],
    ["steer", "learn", "--out", ""],
    ["wer", "--preds", "p", "--json", ""],
    ["demo", "build-organism", "--out", ""],
    ["preds", "--preds", "p", "--export", ""],
    ["whitebox", "convert", "whisper-tiny.en", "--cache", ""],
], ids=lambda argv: " ".join(a or "''" for a in argv[:2]))
def test_an_empty_output_path_is_refused_before_anything_runs(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:  # argparse's refusal: usage, then one error line, exit 2
        main(argv)
    assert stopped.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    option = argv[argv.index("") - 1]
    assert ": error: argument " + option + ": " + REFUSED in last, last
    assert list(tmp_path.iterdir()) == []  # nothing written in the working directory
