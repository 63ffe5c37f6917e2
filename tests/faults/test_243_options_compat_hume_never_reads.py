"""Case 243: ``asraudit refdis --compat hume`` given options it never reads: ``--normalizer``, ``--bootstrap``.

``--compat hume`` reproduces the paper's released implementation: its own
Whisper English normalizer, Wilson intervals, no resamples.  ``--normalizer
basic`` (or ``none``, ``leaderboard``) was dropped without a word, so the
edits were mined and the models judged under another normalizer than the one
asked for, and ``--bootstrap 5000`` drew nothing; exit 0 (the help said so,
the run did not).  As case 127 does for a model's options, each is now
refused before any file is read, unless its value changes nothing (the
default, ``--normalizer whisper``, ``--bootstrap 0``).
"""

from __future__ import annotations

import pytest

from conftest import panel_files

ROWS = [(f"c{i}", f"the cat sat on mat {i}", f"the cat sat on the mat {i}") for i in range(4)]
HUME = ("--panel", "m1,m2,m3", "--compat", "hume")


@pytest.mark.parametrize("options, said", [
    (("--normalizer", "basic"), "--normalizer basic: --compat hume reproduces the paper's release, which normalizes "
                                "with its own Whisper English normalizer and gives Wilson intervals (no resamples), "
                                "so this option is not read: leave it out, or drop --compat hume to use it"),
    (("--normalizer", "none", "--bootstrap", "5000"),
     "--normalizer none, --bootstrap 5000: --compat hume reproduces the paper's release, which normalizes with its "
     "own Whisper English normalizer and gives Wilson intervals (no resamples), so these options are not read: leave "
     "them out, or drop --compat hume to use them"),
])
def test_an_option_hume_never_reads_is_refused(tmp_path, cli, options, said):
    preds = panel_files(tmp_path / "p", ROWS)
    ran = cli("refdis", "--preds", preds, *HUME, *options, "--json", tmp_path / "h.json")
    assert (ran.code, ran.out, ran.error_lines) == (2, "", [f"asraudit: error: {said}"])
    assert not (tmp_path / "h.json").exists()


def test_values_that_change_nothing_and_the_full_miner_read_as_before(tmp_path, cli):
    preds = panel_files(tmp_path / "p", ROWS)
    for options in ((), ("--normalizer", "whisper"), ("--bootstrap", "0"), ("--bootstrap", "1000", "--seed", "3")):
        assert cli("refdis", "--preds", preds, *HUME, *options).code == 0, options
    ran = cli("refdis", "--preds", preds, "--panel", "m1,m2,m3", "--normalizer", "basic", "--bootstrap", "50",
              "--json", tmp_path / "f.json")
    assert ran.code == 0 and '"normalizer": "basic"' in (tmp_path / "f.json").read_text()
