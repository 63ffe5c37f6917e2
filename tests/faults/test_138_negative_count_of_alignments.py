"""Case 138: ``wer --show-alignments -1``.

A negative count was taken: the table printed and no alignment at all, with
exit 0, as if asked for none.  Now it is refused at the argument, as
``preds --show-conflicts -1`` is; 0 (none) stays the default.
"""

from __future__ import annotations

import pytest

from conftest import panel_files

ROWS = [(f"c{i}", f"the cat sat on mat {i}", f"the cat sat on the mat {i}") for i in range(3)]


def test_negative_count_is_refused_at_the_argument(tmp_path, cli, capsys):
    preds = panel_files(tmp_path, ROWS)
    with pytest.raises(SystemExit) as exit_:
        cli("wer", "--preds", preds, "--show-alignments", "-1")
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == \
        "asraudit wer: error: argument --show-alignments: must be at least 0, got -1"
    shown = cli("wer", "--preds", preds, "--show-alignments", "1", "--bootstrap", "0")
    assert shown.code == 0
    assert [line for line in shown.out.splitlines() if line.startswith("== ")] == \
        [f"== {m}: 1 worst clips ==" for m in ("m1", "m2", "m3")]
