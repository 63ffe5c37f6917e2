"""Case 225: a function of asraudit's that is not a normalizer, where a normalizer goes, from Python.

``normalizer=get_normalizer`` (forgetting to call it) was trusted as one of
asraudit's normalizers, since its module is asraudit's: it was applied to
each text, which it read as a normalizer's name, and the run stopped once
the files were read with ``unknown normalizer 'the cat sat on mat 0'``;
``normalize=corpus_wer`` or ``clip_inputs`` was a ``TypeError`` traceback
(``missing 1 required positional argument``), and ``load_predictions``
looked for a file named by the first text.  A function of the caller's own
that takes two arguments (``f(text, language)``) was a ``TypeError``
traceback on the first text.  Now only asraudit's real normalizers (what
``get_normalizer`` returns, and caches over them) go unchecked; anything
else of asraudit is refused in one line naming the argument before any file
is read, and a function that cannot take one text is refused the same way.
A user's own ``str -> str`` function (a lambda, ``str.lower``) goes as
before.
"""

from __future__ import annotations

import pytest

from asraudit import (accept_ref_from_predictions, clip_inputs, corpus_wer, get_normalizer,
                      load_predictions, score_model)

from conftest import panel_files, refusal_message

ROWS = [(f"c{i}", f"well the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(4)]
PANEL = ["m1", "m2", "m3"]
NAMES = "whisper, basic, none, leaderboard, basic-es, basic-fr, basic-de, basic-it, basic-nl, basic-pl, basic-pt"


@pytest.fixture(scope="module")
def preds(tmp_path_factory):
    return load_predictions(panel_files(tmp_path_factory.mktemp("preds"), ROWS))


message = refusal_message


def not_one(name: str, qualified: str) -> str:
    return (f"{name} is {qualified}, which is not a normalizer: pass a normalizer's name ({NAMES}), one "
            "get_normalizer returns, or a function of a str to a str")


def test_get_normalizer_not_called_is_refused_before_any_file_is_read():
    uncalled = ("normalizer is get_normalizer itself, which builds a normalizer from a name: call it "
                "(get_normalizer('whisper')), or pass the name ('whisper')")
    # a folder that is not there: the refusal comes before it is looked for
    assert message(lambda: accept_ref_from_predictions("no/such/folder", PANEL, normalizer=get_normalizer)) == \
        uncalled
    assert message(lambda: clip_inputs({"c0": "a b"}, {"m": {"c0": "a"}}, get_normalizer)) == \
        uncalled.replace("normalizer is", "normalize is", 1)


def test_other_functions_of_asraudit_are_refused(preds):
    assert message(lambda: accept_ref_from_predictions("no/such/folder", PANEL, normalizer=corpus_wer)) == \
        not_one("normalizer", "asraudit.metrics.wer.corpus_wer")
    assert message(lambda: accept_ref_from_predictions(preds, PANEL, normalizer=clip_inputs)) == \
        not_one("normalizer", "asraudit.probes.refdis_probe.clip_inputs")
    assert message(lambda: accept_ref_from_predictions(preds, PANEL, normalizer=load_predictions)) == \
        not_one("normalizer", "asraudit.data.predictions.load_predictions")
    assert message(lambda: score_model(preds.models["m1"], corpus_wer)) == \
        not_one("normalize", "asraudit.metrics.wer.corpus_wer")


def test_a_function_that_cannot_take_one_text_is_refused(preds):
    def two(text, language):
        return text

    assert message(lambda: score_model(preds.models["m1"], two)) == (
        "normalize is called with one text and returns it normalized, but "
        "test_a_function_that_cannot_take_one_text_is_refused.<locals>.two(text, language) cannot be called with "
        "one argument: pass a function of a str to a str")


def test_normalizers_and_a_users_own_functions_still_go(preds):
    whisper = accept_ref_from_predictions(preds, PANEL)
    assert len(whisper.edits) == 4
    for normalizer in (get_normalizer("whisper"), get_normalizer("basic", language="fr"), get_normalizer("none"),
                       str.lower, lambda text: text.lower(), lambda text, language="en": text.lower()):
        assert len(accept_ref_from_predictions(preds, PANEL, normalizer=normalizer).edits) == 4
    for normalize in (get_normalizer("leaderboard"), str.lower):  # "well" deleted: 1 of 7 words per clip
        assert score_model(preds.models["m1"], normalize, n_boot=0).score.rate == pytest.approx(1 / 7)
