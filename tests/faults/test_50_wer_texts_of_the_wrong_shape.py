"""Case 50: ``corpus_wer`` / ``corpus_cer`` given texts of the wrong shape from Python.

``corpus_wer(refs, hyps)`` takes one text per clip.  A dict (clip id ->
text, the shape a notebook usually holds) was iterated as its keys: the clip
ids were scored against each other, WER 0.0 for any texts with the same ids
(1.0 when the two dicts listed them in another order); one string was one
clip per character; bytes never matched a word; ``None`` or a pandas NaN
inside the lists was an ``AttributeError`` from ``str.split``; lists of two
lengths were ``zip()``'s message.  Now each is one line naming the argument.
"""

from __future__ import annotations

import pytest

from asraudit import InputError, corpus_cer, corpus_wer

REFS = {"c0": "the cat sat", "c1": "on the mat"}
HYPS = {"c0": "the cat sat down", "c1": "on a mat"}


@pytest.mark.parametrize("score", [corpus_wer, corpus_cer])
@pytest.mark.parametrize(("refs", "hyps", "message"), [
    (REFS, HYPS, "refs is a list of texts, one per clip, got a dict (its keys would be scored, not its texts): "
                 "pass its values as a list, in the clip order of the other list"),
    (["a b"], HYPS, "hyps is a list of texts, one per clip, got a dict (its keys would be scored, not its texts): "
                    "pass its values as a list, in the clip order of the other list"),
    ("the cat", "the hat", "refs is a list of texts, one per clip, got the string 'the cat': wrap one text in a list"),
    (["a", None], ["a", "b"], "refs[1] is None, not a text: give every clip a str ('' for an empty one)"),
    (["a", "b"], ["a", float("nan")], "hyps[1] is NaN (a missing value), not a text: give every clip a str "
                                      "('' for an empty one)"),
    ([b"a b"], ["a b"], "refs[0] is b'a b', not a text: give every clip a str ('' for an empty one)"),
    (["a"], ["a", "b"], "refs and hyps pair up clip by clip, but refs has 1 text(s) and hyps 2"),
    (None, ["a"], "refs is a list of texts, one per clip, got None"),
])
def test_texts_of_the_wrong_shape_are_one_line_naming_the_argument(score, refs, hyps, message):
    with pytest.raises(InputError) as err:
        score(refs, hyps, n_boot=0)
    assert str(err.value) == message


def test_the_texts_of_the_dicts_as_lists_are_scored():
    ids = list(REFS)
    score = corpus_wer([REFS[c] for c in ids], [HYPS[c] for c in ids], n_boot=0)
    assert (score.substitutions, score.deletions, score.insertions, score.ref_units) == (1, 0, 1, 6)
    # any iterable of str still goes, once: a generator, a tuple
    assert corpus_wer((REFS[c] for c in ids), tuple(HYPS[c] for c in ids), n_boot=0).rate == score.rate
    assert corpus_cer(["ab"], ["ac"], n_boot=0).rate == 0.5
