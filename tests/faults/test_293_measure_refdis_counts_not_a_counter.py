"""Case 293: ``measure_refdis(..., counts=...)`` from Python with what is not a word-error counter: None, a
scorer's name (``"leaderboard"``), a function of one argument, one that returns the error count as a number.

``counts`` is called as ``counts(reference tokens, hypothesis tokens)`` and returns a ``ClipCounts``.  Each of
these was a ``TypeError`` or ``AttributeError`` from inside ``probes/inflation.py`` (``'NoneType' object is not
callable``, ``'int' object has no attribute 'errors'``), after the panel's edits were mined.  Now each is one line
naming the argument, before any edit is made; a scorer's ``counts`` goes as before.
"""

from __future__ import annotations

import pytest

from asraudit import InputError, clip_inputs, measure_refdis
from asraudit.metrics.scorers import get_scorer
from asraudit.metrics.wer import ClipCounts

PANEL = ["a", "b", "c"]
REFS = {"c0": "the cat sat on the mat", "c1": "a dog ran"}


@pytest.fixture(scope="module")
def clips():
    return clip_inputs(REFS, {m: {"c0": "the cat sat on a mat", "c1": "a dog ran"} for m in [*PANEL, "d"]},
                       "whisper")


SHAPE = "counts is a function (reference tokens, hypothesis tokens) -> ClipCounts"


@pytest.mark.parametrize(("counts", "said"), [
    (None, f"{SHAPE}, got None"),
    (7, f"{SHAPE}, got int"),
    (ClipCounts, f"{SHAPE}, got type"),
    ("leaderboard", f"{SHAPE}, got the string 'leaderboard': for a scorer by name pass "
                    "asraudit.metrics.scorers.get_scorer('leaderboard').counts"),
    (lambda ref: 0, "counts is called as counts(reference tokens, hypothesis tokens) and returns a ClipCounts, "
                    "but counts(('a', 'b'), ('a', 'c')) failed: <lambda>() takes 1 positional argument but 2 were "
                    "given"),
    (lambda ref, hyp: 1, "counts returned 1 for counts(('a', 'b'), ('a', 'c')): it returns a ClipCounts "
                         "(asraudit.metrics.wer.ClipCounts: ref_words, hyp_words, substitutions, deletions, "
                         "insertions), as asraudit.metrics.wer.clip_counts does"),
], ids=["None", "int", "the class", "a scorer's name", "one argument", "a number"])
def test_what_is_not_a_counter_is_refused(clips, counts, said):
    with pytest.raises(InputError) as err:
        measure_refdis(clips, PANEL, scored=["d"], counts=counts, n_boot=0)
    assert str(err.value) == said


def test_a_scorers_counts_goes_as_before(clips):
    pytest.importorskip("kaldialign")
    for scorer in ("asraudit", "leaderboard"):
        cost = measure_refdis(clips, PANEL, scored=["d"], counts=get_scorer(scorer).counts, n_boot=0).cost["d"]
        assert (cost.ref_words, cost.original.estimate) == (9, 1 / 9)
