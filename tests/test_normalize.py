"""Normalizers: parity of the Whisper English normalizer with transformers'."""

from __future__ import annotations

import random

import pytest

from asraudit.text.normalize import NORMALIZERS, get_normalizer
from asraudit.text.spelling import english_spelling_mapping
from normalizer_strings import HANDMADE  # the hand-made cases every parity test starts from

NUMBER_WORDS = [
    "one", "two", "three", "eleven", "twenty", "twenty-one", "forty two", "ninety-nine", "a hundred",
    "one hundred and five", "two thousand", "three million", "fifteen hundred", "nineteen eighty-four",
    "zero", "oh", "first", "second", "third", "twenty-first", "hundredth", "a half", "one and a half",
    "double seven", "twos", "sixties", "point five", "minus three",
]
DIGITS = ["1", "20", "21", "1,000", "1.5", "3.14", "1960s", "2nd", "3rd", "21st", "100th", "10,000,000", "007", "1/2", "-3"]
CURRENCY = ["$20", "$20.50", "£3.5 billion", "€100", "20 dollars", "5 cents", "$1 million", "£10 and 50p", "¥300", "20%", "7.5 per cent"]
CONTRACTIONS = ["I've", "won't", "can't", "we'd", "they're", "it's", "y'all", "'em", "o'clock", "ain't", "shouldn't've", "let's", "he'll"]
BRITISH = ["colour", "favourite", "organisation", "realise", "centre", "theatre", "defence", "licence", "travelling", "analyse",
           "programme", "catalogue", "honour", "labour", "neighbourhood", "judgement", "grey", "cheque", "apologise", "behaviour"]
ABBREVIATIONS = ["Mr.", "Mrs", "Dr.", "St.", "Ms.", "Prof.", "Jr.", "Sr.", "vs.", "etc.", "e.g.", "i.e.", "U.S.", "T.V.", "a.m.", "p.m.",
                 "OK", "okay", "Gen.", "Rep.", "Sen.", "Capt."]
HYPHENS = ["e-mail", "life-supporting", "well-known", "twenty-five", "co-operation", "re-elect", "state-of-the-art", "x-ray", "long-term"]
PUNCT = [".", ",", "!", "?", ";", ":", " —", " -", "...", "\"", "'", "(", ")", "[inaudible]", "<noise>", "♪", "«", "»", "&"]
FILLERS = ["um", "uh", "hmm", "mm", "ah", "er", "erm", "uh-huh"]
WORDS = ["the", "Commission", "Parliament", "President", "Madam", "vote", "budget", "people", "euro", "million", "percent", "today",
         "we", "must", "and", "in", "of", "is", "a", "this", "report", "Member", "States", "Café", "naïve", "Zürich", "São", "Paulo",
         "cause", "kinda", "sorta", "dunno", "gonna", "wanna", "gotta"]



def _generated(n: int, seed: int = 1234) -> list[str]:
    rng = random.Random(seed)
    pools = [NUMBER_WORDS, DIGITS, CURRENCY, CONTRACTIONS, BRITISH, ABBREVIATIONS, HYPHENS, FILLERS, WORDS, WORDS]
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(2, 10)):
            word = rng.choice(rng.choice(pools))
            if rng.random() < 0.2:
                word = word.capitalize() if rng.random() < 0.5 else word.upper()
            parts.append(word)
            if rng.random() < 0.25:
                parts.append(rng.choice(PUNCT))
        out.append(" ".join(parts))
    return out


PARITY_STRINGS = HANDMADE + _generated(600)


def test_parity_set_is_large_and_varied():
    assert len(set(PARITY_STRINGS)) >= 500


def test_whisper_normalizer_matches_transformers_on_varied_strings():
    english = pytest.importorskip("transformers.models.whisper.english_normalizer")
    theirs = english.EnglishTextNormalizer(english_spelling_mapping())
    ours = get_normalizer("whisper")
    mismatches = [(s, ours(s), " ".join(theirs(s).split())) for s in PARITY_STRINGS if ours(s) != " ".join(theirs(s).split())]
    assert not mismatches, mismatches[:5]


def test_whisper_normalizer_output_has_no_stray_spaces():
    ours = get_normalizer("whisper")
    for s in PARITY_STRINGS:
        out = ours(s)
        assert out == " ".join(out.split())


def test_basic_normalizer_matches_transformers():
    english = pytest.importorskip("transformers.models.whisper.english_normalizer")
    theirs = english.BasicTextNormalizer()
    ours = get_normalizer("basic")
    for s in PARITY_STRINGS:
        assert ours(s) == " ".join(theirs(s).split())


def test_whisper_normalizer_spells_out_and_standardizes():
    n = get_normalizer("whisper")
    assert n("Mr. Smith's colour TV") == "mister smith is color tv"  # Whisper expands 's to is
    assert n("twenty-one percent") == "21%"
    assert n("I've got $20") == "i have got $20"


def test_none_normalizer_only_collapses_whitespace():
    n = get_normalizer("none")
    assert n("  Mr.  Smith,\tpaid \n") == "Mr. Smith, paid"


def test_unknown_normalizer_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown normalizer 'klingon'"):
        get_normalizer("klingon")


def test_every_listed_normalizer_can_be_built():
    for name in NORMALIZERS:
        assert callable(get_normalizer(name))
