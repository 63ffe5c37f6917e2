"""Case 38: ``mask`` and ``battery`` options out of range are one line before anything is aligned.

A spec's ``[masked]`` keys were checked against the ranges ``MaskedParams``
declares, the same options on the command line were not: ``--pad -1`` and
``--guard -1`` were ``ValueError: pad and guard must be >= 0`` tracebacks
after pocketsphinx had aligned the corpus, ``--pad nan`` a ``cannot convert
float NaN to integer`` traceback, ``--guard nan`` and ``--attenuation-db -5``
(noise louder than the clip) were used as given; ``battery --min-ref-match
nan`` was accepted.  The command line now checks the fields' own ranges.
(``--limit 0`` and ``--limit -1`` are case 47: argparse refuses a count
below its minimum for every command.)
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf


@pytest.fixture()
def manifest(tmp_path):
    t = np.arange(16_000) / 16_000
    rows = []
    for i, text in enumerate(("the meeting starts at seven today", "we counted forty birds in the field")):
        sf.write(tmp_path / f"n{i}.wav", (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), 16_000)
        rows.append(json.dumps({"audio_filepath": f"n{i}.wav", "text": text}) + "\n")
    m = tmp_path / "m.jsonl"
    m.write_text("".join(rows), encoding="utf-8")
    return m


@pytest.mark.parametrize("option, said", [
    (("--pad", "-1"), "--pad must be in [0.0, 1.0], got -1.0"),
    (("--pad", "nan"), "--pad must be a number, got nan"),
    (("--guard", "nan"), "--guard must be a number, got nan"),
    (("--guard", "-1"), "--guard must be in [0.0, 1.0], got -1.0"),
    (("--attenuation-db", "-5"), "--attenuation-db must be at least 0.0, got -5.0"),
])
@pytest.mark.parametrize("command", [("mask",), ("battery", "--spec", "paper")])
def test_an_option_out_of_range_is_one_line_before_alignment(tmp_path, cli, manifest, command, option, said):
    out = tmp_path / "out"
    ran = cli(*command, "--model", "pocketsphinx", "--corpus", manifest, "--out", out, "--no-progress", *option)
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {said}"])
    assert not out.exists()  # nothing aligned, no timings cached, no store


def test_battery_min_ref_match_nan(tmp_path, cli, manifest):
    ran = cli("battery", "--spec", "paper", "--model", "pocketsphinx", "--corpus", manifest, "--out", tmp_path / "o",
              "--min-ref-match", "nan", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, ["asraudit: error: --min-ref-match must be a number, got nan"])
