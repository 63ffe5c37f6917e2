"""Case 33: the Python API refuses ``seed=-1`` (and a negative bootstrap count) naming the argument.

Case 14 checked ``--seed`` and ``--bootstrap`` on the command line only.
``accept_ref_from_predictions(..., seed=-1)`` read the files, mined the
edits and then raised numpy's ``ValueError: expected non-negative integer``
from deep inside the WER-cost bootstrap; ``corpus_wer(..., seed=-1)`` the
same; ``corpus_wer(..., n_boot=-1)`` silently gave no interval.  One check
(``metrics.stats.check_resampling_args``) runs at the top of each public
function, before any file is read, and raises an ``InputError`` (a
``ValueError``) that names the argument.
"""

from __future__ import annotations

import pytest

from asraudit import accept_ref_from_predictions, corpus_cer, corpus_wer, measure_refdis
from conftest import PANEL, panel_files

ROWS = [(f"c{i}", f"the cat sat on mat {i}", f"the cat sat on the mat {i}") for i in range(4)]


def test_accept_ref_from_predictions_names_the_argument_before_reading(tmp_path):
    preds = panel_files(tmp_path / "preds", ROWS)
    with pytest.raises(ValueError, match=r"^seed must be at least 0, got -1$"):
        accept_ref_from_predictions(preds, list(PANEL), seed=-1)
    with pytest.raises(ValueError, match=r"^accept_ref_boot must be at least 0, got -2$"):
        accept_ref_from_predictions(tmp_path / "not-there", list(PANEL), accept_ref_boot=-2)  # checked first
    assert accept_ref_from_predictions(preds, list(PANEL), seed=0).accept_ref.keys() == set(PANEL)


@pytest.mark.parametrize("function, rate", [(corpus_wer, 1 / 2), (corpus_cer, 1 / 3)])
def test_corpus_scores_name_the_argument(function, rate):
    with pytest.raises(ValueError, match=r"^seed must be at least 0, got -1$"):
        function(["a b"], ["a c"], seed=-1)
    with pytest.raises(ValueError, match=r"^n_boot must be at least 0, got -1$"):
        function(["a b"], ["a c"], n_boot=-1)
    with pytest.raises(ValueError, match=r"^seed must be an integer of at least 0, got 1.5$"):
        function(["a b"], ["a c"], seed=1.5)
    assert function(["a b"], ["a c"], n_boot=0).rate == rate  # 0 resamples (no interval) is still accepted


def test_measure_refdis_names_the_argument():
    with pytest.raises(ValueError, match=r"^seed must be at least 0, got -1$"):
        measure_refdis([], list(PANEL), scored=[], seed=-1)
