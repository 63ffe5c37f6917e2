"""Case 112: ``get_normalizer``'s language in upper case, or a name or language it does not know, from Python.

``get_normalizer("basic", language="FR")`` (a code as many tools write it)
raised a plain ``ValueError`` (``no basic normalizer for language 'FR'``),
and so did every other refusal of ``get_normalizer`` (an unknown name, an
English-only normalizer for another language, a language of another type):
not the ``InputError`` every other argument of the Python API raises, so a
caller catching ``asraudit.InputError`` let them through.  Language codes
are case-insensitive: "FR" is now French; the rest is an ``InputError``
naming the argument.  Normalizer names stay exact (``"WHISPER"`` is not one,
as an audit spec and the command line have it); the command line's
``--normalizer`` and ``--language`` were already one line (argparse's
choices), and so is a spec's ``language = "FR"``.
"""

from __future__ import annotations

import pytest

from asraudit import get_normalizer, load_predictions, accept_ref_from_predictions

from conftest import panel_files, refusal_message

NAMES = "whisper, basic, none, leaderboard, basic-es, basic-fr, basic-de, basic-it, basic-nl, basic-pl, basic-pt"
CODES = "en, es, fr, de, it, nl, pl, pt"


message = refusal_message


@pytest.mark.parametrize("code", ["FR", "Fr", "fR"])
def test_a_language_code_in_any_case_is_that_language(code):
    assert get_normalizer("basic", language=code) is get_normalizer("basic-fr")
    assert get_normalizer("basic-fr", language=code) is get_normalizer("basic-fr")
    assert get_normalizer("basic", language=code)("L'ÉTÉ, ça va!") == get_normalizer("basic-fr")("L'ÉTÉ, ça va!")


def test_english_in_upper_case_keeps_the_english_normalizers():
    for name in ("whisper", "basic", "none", "leaderboard"):
        assert get_normalizer(name, language="EN") is get_normalizer(name)


def test_what_it_does_not_know_is_an_input_error_naming_the_argument():
    assert message(lambda: get_normalizer("basic", language="xx")) == \
        f"language 'xx' has no basic normalizer: choose one of {CODES}"
    assert message(lambda: get_normalizer("basic", language="fr-FR")) == \
        f"language 'fr-FR' has no basic normalizer: choose one of {CODES}"
    assert message(lambda: get_normalizer("basic", language=33)) == \
        f"language is an ISO 639-1 code (a str), one of {CODES}, got 33"
    assert message(lambda: get_normalizer("whisper", language="FR")) == \
        "normalizer 'whisper' is for English text; for language 'FR' use basic (basic-fr) or none"
    assert message(lambda: get_normalizer("basic-fr", language="es")) == \
        "normalizer basic-fr does not match language 'es': give one of them, or basic with language='es'"
    for name in ("klingon", "WHISPER", "basic-FR", "basic-xx"):
        assert message(lambda: get_normalizer(name)) == f"unknown normalizer {name!r}; choose one of {NAMES}"
    assert message(lambda: get_normalizer("klingon", language="fr")) == \
        f"unknown normalizer 'klingon'; choose one of {NAMES}"


def test_a_function_taking_a_normalizer_name_refuses_it_as_input(tmp_path):
    rows = [(f"c{i}", f"the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(3)]
    preds = load_predictions(panel_files(tmp_path, rows))
    assert message(lambda: accept_ref_from_predictions(preds, sorted(preds.models), normalizer="basic-FR")) == \
        f"unknown normalizer 'basic-FR'; choose one of {NAMES}"
