"""The basic normalizer of each language: letters and diacritics kept, punctuation gone, elisions split."""

from __future__ import annotations

import pickle
import unicodedata

import pytest

from asraudit.text.basic_languages import BASIC_LANGUAGES
from asraudit.text.normalize import NORMALIZERS, get_normalizer, normalize_basic, normalize_many

CASES = {
    "es": [("¿Qué tal? ¡Él dijo «sí»!", "qué tal él dijo sí"),
           ("Ñandú, PINGÜINO; acción.", "ñandú pingüino acción"),
           ("El ex-presidente (risas) habló", "el ex presidente habló")],
    "fr": [("L'homme qu’il a vu", "l' homme qu' il a vu"),
           ("Aujourd'hui, c'est « quelqu'un » !", "aujourd'hui c' est quelqu'un"),
           ("JUSQU'À l'été, Noël", "jusqu' à l' été noël"),
           ("Il a dit 'non'", "il a dit non")],
    "de": [("Die STRASSE, die Straße: Grüße!", "die strasse die straße grüße"),
           ("Geht's? ÄRGER über Öl", "geht's ärger über öl"),
           ("E-Mail [Lärm] bitte", "e mail bitte")],
    "it": [("Un po' dell'anno", "un po' dell' anno"),
           ("L'Italia è bella; E' vero.", "l' italia è bella è vero"),
           ("Perché? Città, più", "perché città più")],
    "nl": [("'s Avonds gaat 't goed", "'s avonds gaat 't goed"),
           ("Zo'n ideeën, café!", "zo'n ideeën café"),
           ("Hij zei: 'ja'.", "hij zei ja")],
    "pl": [("Łódź: ŻÓŁW idzie źle.", "łódź żółw idzie źle"),
           ("Zażółć gęślą jaźń!", "zażółć gęślą jaźń"),
           ("20,5% (śmiech) tak", "20 5 tak")],
    "pt": [("A AÇÃO do São Paulo", "a ação do são paulo"),
           ("Copo d'água; pão-de-ló.", "copo d'água pão de ló"),
           ("Ele disse: «não»", "ele disse não")],
}


@pytest.mark.parametrize("code", BASIC_LANGUAGES)
def test_each_language_keeps_its_letters_and_drops_punctuation(code):
    normalize = get_normalizer("basic", language=code)
    for raw, expected in CASES[code]:
        assert normalize(raw) == expected, raw


@pytest.mark.parametrize("code", BASIC_LANGUAGES)
def test_the_name_and_the_language_argument_give_the_same_normalizer(code):
    assert f"basic-{code}" in NORMALIZERS
    assert get_normalizer(f"basic-{code}") is get_normalizer("basic", language=code)


@pytest.mark.parametrize("code", BASIC_LANGUAGES)
def test_decomposed_accents_and_typographic_apostrophes_make_no_difference(code):
    normalize = get_normalizer(f"basic-{code}")
    for raw, _ in CASES[code]:
        assert normalize(unicodedata.normalize("NFD", raw)) == normalize(raw)
        assert normalize(raw.replace("'", "\u2019")) == normalize(raw)


def test_the_general_basic_normalizer_splits_what_the_language_one_keeps():
    # why the language normalizers exist: the general one breaks words at apostrophes
    assert normalize_basic("aujourd'hui") == "aujourd hui"
    assert get_normalizer("basic-fr")("aujourd'hui") == "aujourd'hui"


def test_english_and_no_language_keep_the_normalizers_they_had():
    for name in ("whisper", "basic", "none"):
        assert get_normalizer(name, language="en") is get_normalizer(name)
    assert get_normalizer("none", language="pl")("  a,  b ") == "a, b"


def test_a_language_without_a_normalizer_or_an_english_only_one_is_refused():
    with pytest.raises(ValueError, match="language 'xx' has no basic normalizer"):
        get_normalizer("basic", language="xx")
    with pytest.raises(ValueError, match="'whisper' is for English text"):
        get_normalizer("whisper", language="fr")
    with pytest.raises(ValueError, match="does not match language"):
        get_normalizer("basic-fr", language="es")


def test_language_normalizers_survive_pickling_and_the_worker_pool():
    normalize = get_normalizer("basic-fr")
    assert pickle.loads(pickle.dumps(normalize))("L'été") == "l' été"
    texts = ["L'été", "C'est ça"] * 3
    assert normalize_many(texts, "basic-fr", workers=2, threshold=1) == [normalize(t) for t in texts]
