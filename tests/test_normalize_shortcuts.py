"""The normalizers' shortcuts against the plain computation they stand for.

Each shortcut (the UTF-8 table path of the symbol steps, the span table keyed
by words, the skipped number ``postprocess``) is exact by an argument in its
docstring; these tests check the argument on strings built to break it.
"""

from __future__ import annotations

import random
import re
import sys
import unicodedata

import pytest

import asraudit.text.symbols as symbols
import asraudit.text.whisper_english as whisper_english
from asraudit.text.normalize import _FORMAT_CHARACTERS, python_strip_format_characters, strip_format_characters
from asraudit.text.spelling import english_spelling_mapping
from normalizer_strings import HANDMADE, generated

# Characters that stress the UTF-8 path: ASCII symbols and whitespace, Latin letters with
# diacritics, combining marks, letters NFKD/NFKC rewrite, 2-, 3- and 4-byte characters,
# category-Cf characters, a lone surrogate, and letters kept whole (ø, ß).
ASCII_POOL = list("aZ09 .,$%'\"-_()[]<>\t\n\x1c\x7f")
OTHER_POOL = ["£", "€", "¢", "é", "ü", "ø", "ß", "Æ", "\u0301", "\u0308", "ﬁ", "Ⅻ", "①", "ℌ", "½", "²", "Σ", "σ", "日", "한", "Я",
    "\u00a0", "\u2009", "\u3000", "\u200b", "\ufeff", "🙂", "𝔘", "\ud800", "«", "—", "♪", "™",
]


def _strings(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = ["", "é", "\u0301", "\u0301a", "a\u0301", "日本語のテキスト", "Привет мир", "\ud800", "🙂" * 40,
           "mostly ascii text with one é in it", "x" * 200 + "é", "é" * 3 + "x" * 20]
    for _ in range(n):
        length = rng.choice([1, 3, 10, 40, 150])
        ascii_share = rng.choice([0.0, 0.5, 0.9, 0.97, 1.0])
        out.append("".join(rng.choice(ASCII_POOL) if rng.random() < ascii_share else rng.choice(OTHER_POOL)
                           for _ in range(length)))
    return out


def test_utf8_table_path_equals_str_translate():
    """Both sides of the non-ASCII share threshold, and text that is all ASCII but one character."""
    for s in _strings(4000, seed=7):
        nfkd, nfkc = unicodedata.normalize("NFKD", s), unicodedata.normalize("NFKC", s)
        assert symbols.remove_symbols_and_diacritics(s) == nfkd.translate(symbols._ENGLISH), repr(s)
        assert symbols.remove_symbols(s) == nfkc.translate(symbols._BASIC), repr(s)


def test_both_branches_of_the_threshold_are_taken():
    """The test above is only a proof if it reaches both the bytes path and the str.translate path."""
    calls = {"bytes": 0, "str": 0}
    sub = symbols._NON_ASCII.sub

    class Counting:
        def sub(self, *args):
            calls["bytes"] += 1
            return sub(*args)

    original = symbols._NON_ASCII
    symbols._NON_ASCII = Counting()
    try:
        texts = [unicodedata.normalize("NFKC", s) for s in _strings(500, seed=8) if not s.isascii()]
        for s in texts:
            symbols.remove_symbols(s)
    finally:
        symbols._NON_ASCII = original
    calls["str"] = len(texts) - calls["bytes"]
    assert calls["bytes"] > 50 and calls["str"] > 50, calls


def test_a_normalizer_gives_every_string_what_a_fresh_one_gives():
    """Strings whose number spans differ only in punctuation share the span table keyed by words;
    the order strings come in must never change an output."""
    spelling = english_spelling_mapping()
    pieces = ["20", "20,", "20.", "$20", "twenty", "twenty,", "one", "one,", "1st", "1st.", "and", "a half",
              "5 th", "5, th", "£3.5", "£3.5,", "oh", "oh,", "point", "point,", "dollars", "dollars.", "the"]
    rng = random.Random(3)
    texts = [" ".join(rng.choice(pieces) for _ in range(rng.randint(1, 6))) for _ in range(600)]
    texts += HANDMADE + generated(300, seed=4)
    shared = whisper_english.EnglishNormalizer(spelling)
    together = [shared(s) for s in texts]
    fresh = whisper_english.EnglishNormalizer(spelling)
    alone = []
    for s in texts:
        fresh._tables, fresh._runs, fresh._spans, fresh._span_words = whisper_english._empty_tables(), {}, {}, {}
        alone.append(fresh(s))
    assert together == alone
    assert len(shared._span_words) < len(shared._spans)  # the words table did merge spans here


def test_postprocess_is_skipped_only_where_it_changes_nothing():
    numbers = whisper_english._number_normalizer()
    shared = whisper_english.EnglishNormalizer(english_spelling_mapping())
    for s in HANDMADE + generated(3000, seed=5):
        shared(s)
    skipped = 0
    for run in shared._runs:
        text = " ".join(w for w in numbers.process_words(list(run)) if w is not None)
        if not ("1" in text or "$" in text or "£" in text or "€" in text):
            skipped += 1
            assert numbers.postprocess(text) == text, run
    assert skipped > 100


def _port_rules(t: str) -> str:
    """The three rules of the port's ``preprocess``, written as the port writes them."""
    t = re.sub(r"([a-z])([0-9])", r"\1 \2", t)
    t = re.sub(r"([0-9])([a-z])", r"\1 \2", t)
    return re.sub(r"([0-9])\s+(st|nd|rd|th|s)\b", r"\1\2", t)


def test_number_preprocess_equals_the_ports():
    """The lookaround forms of the preprocess rules against the port's, on strings dense in
    letter/digit boundaries and digit-space-suffix joins ("5 th", "5  s1", "st5 nd"), and the whole
    preprocess on such strings as the span step hands it (words joined by single spaces)."""
    numbers = whisper_english._number_normalizer()
    shared = whisper_english.EnglishNormalizer(english_spelling_mapping())
    rng = random.Random(6)
    pieces = ["5", "12", "a", "st", "nd", "rd", "th", "s", "x", " ", "  ", "\t", "\u00a0", "-", "th5", "5th"]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(5000)]
    assert sum(_port_rules(t) != t for t in texts) > 1000  # the rules fire often here
    for t in texts:
        # (the port's preprocess keeps no whitespace-only segment: such a string becomes "")
        assert shared._preprocess(t) == (_port_rules(t) if t.strip() else ""), repr(t)
        words = " ".join(t.split())
        if words and "half" not in words:  # "half" goes to the port's preprocess itself
            assert shared._preprocess(words) == numbers.preprocess(words), repr(words)


@pytest.mark.parametrize("strip_format_characters", [python_strip_format_characters, strip_format_characters],
                         ids=["python", "in-use"])
def test_format_characters_are_removed_as_the_per_character_table_removes_them(strip_format_characters):
    """The regular-expression path of strip_format_characters (and the compiled one, where built: "in-use")
    against the plain per-character table, on every format character of Unicode (astral ones included) mixed
    with letters, emoji, whitespace and a lone surrogate."""
    others = list("aé日🙂𝔘\u00a0\t\n\x1c\x85\ud800 ")
    # every Cf character of this Python's Unicode database, BMP and beyond
    pool = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]
    assert any(ord(c) > 0xFFFF for c in pool)
    for c in pool:
        assert strip_format_characters("a" + c + "é") == "aé", hex(ord(c))
    rng = random.Random(9)
    for _ in range(5000):
        s = "".join(rng.choice(pool if rng.random() < 0.3 else others) for _ in range(rng.randint(1, 12)))
        assert strip_format_characters(s) == s.translate(_FORMAT_CHARACTERS), repr(s)


def _split_of_call(normalizer, texts):
    return [tuple(normalizer(s).split()) for s in texts]


def _tokens_texts() -> list[str]:
    pieces = ["20", "20.", "$20", "twenty", "twenty percent", "one", "one one", "1st", "and", "a half", "um", "-",
              "the", "colour", "won't", "mr.", "it's been", "[noise]", "(laughs)", "dollars", "5%", "u.s."]
    rng = random.Random(21)
    texts = [" ".join(rng.choice(pieces) for _ in range(rng.randint(0, 7))) for _ in range(1500)]
    return texts + HANDMADE + generated(4000, seed=22)


def test_tokens_are_the_split_of_the_normalized_string(monkeypatch):
    """``tokens`` builds the words from per-token and per-span pieces instead of joining and splitting: the
    same words as ``tuple(normalizer(s).split())``, whether the tables are cold, warm or cleared between
    strings, and each of its branches (pieces, number spans, a piece the symbol rules read, first-seen
    tokens, brackets and cross-token apostrophes) is taken.  The Python path (the compiled one below)."""
    spelling = english_spelling_mapping()
    cls = whisper_english.PythonEnglishNormalizer
    texts = _tokens_texts()
    plain = _split_of_call(cls(spelling), texts)
    cold = cls(spelling)
    assert [cold.tokens(s) for s in texts] == plain  # first sight of each token inside tokens
    assert [cold.tokens(s) for s in texts] == plain  # every table warm
    fallbacks, spans = [], []
    original_call, original_span = cls.__call__, cls._span_final
    monkeypatch.setattr(cls, "__call__", lambda self, s: fallbacks.append(s) or original_call(self, s))
    monkeypatch.setattr(cls, "_span_final", lambda self, *a: spans.append(original_span(self, *a)) or spans[-1])
    warm = [cold.tokens(s) for s in texts]
    assert warm == plain
    # warm tables: only brackets, cross-token apostrophes, "half" and the final symbol rules take __call__
    assert len(fallbacks) > 500 and len(texts) - len(fallbacks) > 1500
    assert any("(" in s for s in fallbacks) and any("%" in s or "$" in s or "." in s for s in fallbacks)
    assert sum(s is not None for s in spans) > 300 and None in spans  # number spans put in, and refused
    monkeypatch.setattr(cls, "__call__", original_call)
    monkeypatch.setattr(cls, "_span_final", original_span)
    monkeypatch.setattr(whisper_english, "_CACHE_LIMIT", 5)
    tiny = cls(spelling)
    assert [tiny.tokens(s) for s in texts] == plain


@pytest.mark.skipif(not whisper_english.COMPILED, reason="asraudit.text._whisper_fast is not built")
def test_compiled_tokens_are_the_split_of_the_normalized_string(monkeypatch):
    """The same for the compiled path, which calls back into Python for what it does not do itself: on cold
    tables it learns tokens and number spans, takes the string-level steps for cross-token apostrophes
    and the "half" path; on warm tables it learns nothing and reads the span memos itself."""
    from collections import Counter

    spelling = english_spelling_mapping()
    cls = whisper_english.EnglishNormalizer
    texts = _tokens_texts()
    plain = _split_of_call(whisper_english.PythonEnglishNormalizer(spelling), texts)
    assert _split_of_call(cls(spelling), texts) == plain
    calls: Counter = Counter()

    def counted(name):
        original = getattr(cls, name)
        return lambda self, *a: calls.update([name]) or original(self, *a)

    for name in ("_learn", "_prepare", "_half", "_span", "_span_final"):
        monkeypatch.setattr(cls, name, counted(name))
    cold = cls(spelling)
    assert [cold.tokens(s) for s in texts] == plain
    assert all(calls[name] > 100 for name in ("_learn", "_prepare", "_half", "_span_final")), calls
    assert calls["_span"] > 100  # a piece the symbol rules read: the string is built from the spans' strings
    calls.clear()
    assert [cold.tokens(s) for s in texts] == plain  # warm
    assert calls["_learn"] == calls["_span"] == calls["_span_final"] == 0 and calls["_prepare"] > 100, calls
    monkeypatch.setattr(whisper_english, "_CACHE_LIMIT", 5)
    tiny = cls(spelling)
    assert [tiny.tokens(s) for s in texts] == plain
    assert [tiny(s) for s in texts] == [" ".join(w) for w in plain]


def test_tokens_share_their_word_objects():
    spelling = english_spelling_mapping()
    normalizer = whisper_english.EnglishNormalizer(spelling)
    texts = ["The colour, of the sea", "the colour of THE sea."]
    for s in texts:
        normalizer(s)  # the tokens' first sight
    a, b = map(normalizer.tokens, texts)
    assert a == b == ("the", "color", "of", "the", "sea")
    assert all(x is y for x, y in zip(a, b)) and a[0] is a[3]


def test_the_whisper_normalizer_and_its_cache_give_the_same_tokens():
    from asraudit.metrics.normalized_cache import NormalizedCache
    from asraudit.text.normalize import get_normalizer, tokens_of

    texts = HANDMADE + generated(500, seed=23) + ["a\u200bb c", "\ufeffThe  end"]
    whisper, basic = get_normalizer("whisper"), get_normalizer("basic")
    for normalizer in (whisper, basic):
        plain = _split_of_call(normalizer, texts)
        assert [tokens_of(normalizer)(s) for s in texts] == plain
        assert [NormalizedCache(normalizer).tokens(s) for s in texts] == plain
    assert tokens_of(whisper) is whisper.tokens and not hasattr(basic, "tokens")


def test_the_spelling_table_read_from_the_package_folder_is_the_resource():
    import json
    from importlib import resources

    from asraudit.text.spelling import spelling_table

    with resources.files("whisper_normalizer").joinpath("normalizers/english.json").open(encoding="utf-8") as fh:
        resource = json.load(fh)
    assert spelling_table() == resource and len(resource) > 1000
    assert list(spelling_table()) == list(resource)


def test_no_replacement_is_a_word_the_string_level_replacers_change():
    """Where a perfect-tense text occurs, the whole-word and perfect-tense replacers run on the whole string
    and the token path then runs the whole cascade per token again; that is exact because no replacement
    holds a word the ignore list or those replacers would change (nor a perfect-tense text)."""
    replacers = whisper_english.STRING_REPLACERS
    assert len(replacers) == 41 and all(" " in literal for _, _, literal in replacers[-6:])
    for _, replacement, _ in replacers:
        again = whisper_english.IGNORE.sub("", replacement)
        for pattern, other, _ in replacers:
            again = pattern.sub(other, again)
        assert again == replacement, replacement


def test_the_replacers_a_token_skips_could_not_have_matched():
    """``_word_cascade`` runs the replacers without an apostrophe only where a word-character run of the token
    is one of their texts, and those with one only where the token has an apostrophe: exact because no
    replacement brings an apostrophe or such a run, and every replacer without an apostrophe is whole-word."""
    assert len(whisper_english.PLAIN_REPLACERS) + len(whisper_english.APOSTROPHE_REPLACERS) == len(whisper_english.REPLACERS)
    for pattern, replacement, literal in whisper_english.REPLACERS:
        assert "'" not in replacement
        assert whisper_english.PLAIN_KEYS.isdisjoint(whisper_english.WORD_RUN.findall(replacement)), replacement
    for pattern, _, literal in whisper_english.PLAIN_REPLACERS:
        assert pattern.pattern == rf"\b{literal}\b" and literal.isalpha()
    rng = random.Random(31)
    pieces = [literal for _, _, literal in whisper_english.REPLACERS] + ["x", "-", "'", ".", "5", "é", "_", "mrs.", "st."]
    tokens = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 4))) for _ in range(20_000)]

    def full(s: str) -> str:  # the cascade with every replacer tried in turn
        if "mm" in s or "uh" in s or "um" in s or "mhm" in s:
            s = whisper_english.IGNORE.sub("", s)
        for pattern, replacement, literal in whisper_english.REPLACERS:
            if literal in s:
                s = pattern.sub(replacement, s)
        if "," in s:
            s = whisper_english.DIGIT_COMMA.sub(r"\1\2", s)
        if "." in s:
            s = whisper_english.PERIOD.sub(r" \1", s)
        return symbols.remove_symbols_and_diacritics(s)

    assert sum(full(t) != t for t in tokens) > 10_000
    # (the plain-token shortcut may leave other whitespace: the words are what is kept)
    assert [t for t in tokens if whisper_english._word_cascade(t).split() != full(t).split()] == []
