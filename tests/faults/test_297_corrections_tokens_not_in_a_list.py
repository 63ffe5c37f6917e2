"""Case 297: ``measure_refdis(..., corrections=...)`` from Python with a clip's corrected tokens in another
container than a list or tuple: a set (``set(text.split())``), a generator or iterator
(``(t for t in ...)``, ``map(str.lower, ...)``), a numpy array of str (``np.array(text.split())``).

Case 292 checked each token, reading the container into a list for it, but the recipe went on with the container
as given: a set was ``TypeError: 'set' object is not subscriptable``, a generator (already read by the check)
``TypeError: object of type 'generator' has no len()``, an array ``ValueError: operands could not be broadcast
together``, tracebacks from inside the WER cost.  Now a set is refused naming the clip (its order is its hash's,
and it keeps one of each repeated word: the correction cannot be recovered from it), and any other iterable of
words is read once into the tuple the recipe uses, so it scores as the list does.
"""

from __future__ import annotations

import numpy as np
import pytest

from asraudit import InputError, clip_inputs, get_normalizer, measure_refdis

from conftest import SMITH_REFS, SMITH_SAID

PANEL = ["m0", "m1", "m2"]
REFS, SAID = SMITH_REFS, SMITH_SAID


@pytest.fixture(scope="module")
def clips():
    return clip_inputs(REFS, {m: dict(SAID) for m in [*PANEL, "m3"]}, "whisper")


def _corrections(kind):
    normalize = get_normalizer("whisper")
    return {cid: kind(normalize(text).split()) for cid, text in SAID.items()}


@pytest.mark.parametrize("kind", [set, frozenset])
def test_a_set_of_tokens_is_refused(clips, kind):
    with pytest.raises(InputError) as err:
        measure_refdis(clips, PANEL, scored=["m3"], corrections=_corrections(kind), n_boot=0)
    assert str(err.value) == (f"corrections['c0'] is a {kind.__name__}, whose order is its hash's and which keeps "
                              "one of each repeated word: the corrected reference's tokens go in order, a list "
                              "(normalize(text).split())")


@pytest.mark.parametrize("kind", [list, tuple, lambda words: (w for w in words), iter, np.array,
                                  lambda words: map(str, words)],
                         ids=["list", "tuple", "generator", "iterator", "numpy array", "map"])
def test_tokens_in_order_score_as_a_list_does(clips, kind):
    result = measure_refdis(clips, PANEL, scored=["m3"], corrections=_corrections(kind), n_boot=0)
    assert (len(result.edits), result.accept_ref["m3"].n_ref, result.accept_ref["m3"].n_eligible) == (6, 0, 6)
    assert result.cost["m3"].corrected.estimate == 0.0
    assert result.corrected["c0"] == ("mister", "smith", "said", "the", "cat", "sat", "on", "the", "mat", "0")
    assert all(type(t) is str for t in result.corrected["c0"])
