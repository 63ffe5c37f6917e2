"""Case 292: ``measure_refdis(..., corrections=...)`` from Python with a corrected reference that is not split
into words: the whole corrected text as one token (``{clip: [text]}``), a token holding a space, an empty token.

The clips' reference tokens are ``normalize(text).split()``; a token that is
not one word can equal no transcript's token.  The whole text as one token was
diffed as one substitution of the clip's every word, which every model then
"echoed": a scored model that writes the human correction word for word was
reported at accept-ref 1.0 (6 of 6 edits) where it is 0.0, and its corrected
WER at 10.0, exit 0, silently.  Now each is one line naming the clip and the
token, before any edit is made.
"""

from __future__ import annotations

import pytest

from asraudit import InputError, clip_inputs, get_normalizer, measure_refdis

from conftest import SMITH_REFS, SMITH_SAID

PANEL = ["m0", "m1", "m2"]
REFS, SAID = SMITH_REFS, SMITH_SAID


@pytest.fixture(scope="module")
def clips():
    return clip_inputs(REFS, {m: dict(SAID) for m in [*PANEL, "m3"]}, "whisper")


@pytest.mark.parametrize(("tokens", "shown"), [
    (lambda text: [text], "'mister smith said the cat sat on the mat 0', not one word"),
    (lambda text: ["mister smith", *text.split()[2:]], "'mister smith', not one word"),
    (lambda text: ["", *text.split()], "an empty token"),
], ids=["the whole text", "two words", "empty"])
def test_tokens_that_are_not_words_are_refused(clips, tokens, shown):
    normalize = get_normalizer("whisper")
    corrections = {cid: tokens(normalize(text)) for cid, text in SAID.items()}
    with pytest.raises(InputError) as err:
        measure_refdis(clips, PANEL, scored=["m3"], corrections=corrections, n_boot=10)
    assert str(err.value) == (f"corrections['c0'][0] is {shown}: corrections['c0'] is the corrected reference's "
                              "tokens, split as the clips' references are (normalize(text).split())")


def test_split_corrections_score_as_before(clips):
    normalize = get_normalizer("whisper")
    result = measure_refdis(clips, PANEL, scored=["m3"], n_boot=10,
                            corrections={cid: normalize(text).split() for cid, text in SAID.items()})
    assert (len(result.edits), result.accept_ref["m3"].n_ref, result.accept_ref["m3"].n_eligible) == (6, 0, 6)
    assert result.cost["m3"].corrected.estimate == 0.0
