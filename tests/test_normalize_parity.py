"""The fast normalizers against transformers' on 20,000 generated strings and the shared VoxPopuli text.

Parity is the contract of ``asraudit.text.whisper_english`` (see its
docstring for why per-token work is exact); these tests are the proof on
strings built to hit every rule, alone and run into each other.
"""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import asraudit.text.basic_normalizer as basic_normalizer
import asraudit.text.whisper_english as whisper_english
from asraudit.text.spelling import english_spelling_mapping
from asraudit.text.normalize import (
    get_normalizer,
    normalize_many,
    reference_normalizer,
    strip_format_characters,
)
from normalizer_strings import HANDMADE, generated, perturbed
from unicodedata import category as unicodedata_category
from unicodedata import combining as unicodedata_combining
from unicodedata import decomposition as unicodedata_decomposition

english = pytest.importorskip("transformers.models.whisper.english_normalizer")

CORPUS = list(dict.fromkeys(HANDMADE + generated(20_000, seed=15)))

# The Whisper normalizer's per-string path: Python, and C where the extension is built (the default class then).
WHISPER_CLASSES = [
    pytest.param(whisper_english.PythonEnglishNormalizer, id="python"),
    pytest.param(whisper_english.EnglishNormalizer, id="compiled" if whisper_english.COMPILED else "default-python"),
]
compiled_only = pytest.mark.skipif(not whisper_english.COMPILED, reason="asraudit.text._whisper_fast is not built")


_REFERENCE: dict[str, dict[str, str]] = {}  # transformers' answers, per normalizer: string -> normalized


def _transformers(name: str):
    """transformers' normalizer ``name``, each string's answer kept: it is the reference, deterministic, and the
    slowest part of this file, and several tests ask it about the same 20,000 strings."""
    inner = english.EnglishTextNormalizer(english_spelling_mapping()) if name == "whisper" else english.BasicTextNormalizer()
    known = _REFERENCE.setdefault(name, {})

    def theirs(s: str) -> str:
        if s not in known:
            # asraudit removes format characters first (the one documented departure), then collapses spaces.
            known[s] = " ".join(inner(strip_format_characters(s)).split())
        return known[s]

    return theirs


def _mismatches(name: str, texts: list[str], ours=None) -> list[tuple[str, str, str]]:
    ours = ours or get_normalizer(name)
    theirs = _transformers(name)
    return [(s, ours(s), theirs(s)) for s in texts if ours(s) != theirs(s)]


def test_generated_corpus_is_large_and_distinct():
    assert len(CORPUS) >= 19_000


@pytest.mark.parametrize("name", ["whisper", "basic"])
def test_fast_normalizer_matches_transformers_on_generated_strings(name):
    bad = _mismatches(name, CORPUS)
    assert not bad, bad[:5]


@pytest.mark.parametrize("cls", WHISPER_CLASSES)
def test_each_whisper_path_and_its_tokens_match_transformers(cls):
    """The Python and the compiled per-string path, each on its own fresh tables: the string, and ``tokens``
    (the split of the string) on cold and on warm tables."""
    theirs = _transformers("whisper")
    expected = [theirs(s) for s in CORPUS]
    spelling = english_spelling_mapping()
    ours, tokens = cls(spelling), cls(spelling)
    texts = [strip_format_characters(s) for s in CORPUS]
    for _ in range(2):  # cold, then warm
        assert [s for s, g, e in zip(CORPUS, map(ours, texts), expected) if g != e] == []
        got = list(map(tokens.tokens, texts))
        assert [s for s, g, e in zip(CORPUS, got, expected) if g != tuple(e.split())] == []


@pytest.mark.parametrize("cls", WHISPER_CLASSES)
def test_whisper_normalizer_matches_transformers_with_tiny_caches(monkeypatch, cls):
    """The per-token tables are replaced when full; results must not depend on what they hold."""
    monkeypatch.setattr(whisper_english, "_CACHE_LIMIT", 7)
    fresh = cls(english_spelling_mapping())
    tables = fresh._tables
    bad = _mismatches("whisper", CORPUS[:3000], ours=lambda s: fresh(strip_format_characters(s)))
    assert not bad, bad[:5]
    assert fresh._tables is not tables and len(fresh._tables[0]) <= 7 + 40  # replaced, not grown
    theirs = _transformers("whisper")
    assert [s for s in CORPUS[:3000] if fresh.tokens(strip_format_characters(s)) != tuple(theirs(s).split())] == []


def test_basic_normalizer_matches_transformers_with_a_tiny_token_table(monkeypatch):
    """The token table is replaced when full; results must not depend on what it holds."""
    monkeypatch.setattr(basic_normalizer, "_CACHE_LIMIT", 7)
    fresh = basic_normalizer.PythonBasicNormalizer()
    bad = _mismatches("basic", CORPUS[:3000], ours=lambda s: fresh(strip_format_characters(s)))
    assert not bad, bad[:5]


def _compiled():
    if not basic_normalizer.COMPILED:
        pytest.skip("asraudit.text._basic_fast is not built (no C compiler at install): the pure-Python path "
                    "is the one in use, and is tested")
    return basic_normalizer._basic_fast


# The basic normalizer's two paths, each as the benchmark and normalize_basic use it, and the compiled batch
# entry: every one is checked against transformers on the same strings.
def _python_path():
    python = basic_normalizer.PythonBasicNormalizer()
    return lambda s: python(strip_format_characters(s))


def _compiled_path():
    fast = _compiled()
    return lambda s: fast.normalize(strip_format_characters(s))


def _compiled_text():
    return _compiled().normalize_text


BASIC_PATHS = [pytest.param(_python_path, id="python"), pytest.param(_compiled_path, id="compiled"),
               pytest.param(_compiled_text, id="compiled-normalize_text")]


@pytest.mark.parametrize("path", BASIC_PATHS)
def test_both_basic_paths_match_transformers_on_generated_strings(path):
    bad = _mismatches("basic", CORPUS, ours=path())
    assert not bad, bad[:5]


def test_compiled_basic_list_matches_transformers():
    fast = _compiled()
    theirs = _transformers("basic")
    assert fast.normalize_list(CORPUS) == [theirs(s) for s in CORPUS]


# Characters each shortcut of the two paths turns on: brackets, every kind of whitespace, combining marks
# (alone, stacked, after a letter, at the start), Greek capital sigma where it is final and where it is not,
# U+0130 (lowercase "i" + U+0307), lone surrogates, Hangul jamo that compose, characters NFKC expands
# (ligatures, fullwidth, U+FDFA's 18), ones NFKC makes capital (U+210C, U+1D2C), format characters.
_WHITESPACE = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
_SPECIAL = (list("<>[]()<[(") + _WHITESPACE + ["\u0301", "\u0308", "\u0307", "\u0345", "\u0327", "\u031b",
            "\u0323", "\u0338", "\u0b3e", "\u0bbe", "\u0f73", "\u3099", "\uff9e", "\u03a3", "\u03c3", "\u03c2",
            "\u0391", "\u03f9", "\U0001d6ba", "\u0130", "I", "\u0131", "\ud800", "\udfff", "\u1100", "\u1161",
            "\u11a8", "\uac00", "\ufb01", "\uff26", "\u210c", "\u1d2c", "\ufdfa", "\u2474", "\u200b", "\u00ad",
            "\ufeff", "'", "\u01c5", "\u1e9e", "\u00a8", "\u00bd", "\u2122", "\u2126", "\u212a", "\u0149", "A", "e",
            "o", "x", "\u00e9", "\u00c9"])
# Pairs that compose although the second is a starter (an Oriya, Tamil, Sinhala or Myanmar vowel sign; Hangul).
_COMPOSING = ["\u0b47\u0b3e", "\u0b92\u0bd7", "\u0dd9\u0dcf", "\u1025\u102e", "\u1100\u1161", "\uac00\u11a8",
              "\u1100\u1161\u11a8", "e\u0301", "\u03a3\u0301"]
_TEXTS = st.lists(st.one_of(st.sampled_from(_SPECIAL + _COMPOSING), st.characters(blacklist_categories=()),
                            st.characters(max_codepoint=0x24f)), max_size=30).map("".join)


@pytest.mark.parametrize("path", BASIC_PATHS)
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_TEXTS)
def test_both_basic_paths_match_transformers_on_generated_unicode(path, text):
    theirs = _transformers("basic")
    assert path()(text) == theirs(text)


_FORMAT = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata_category(chr(c)) == "Cf"]


@settings(max_examples=1500, deadline=None)
@given(text=st.lists(st.one_of(st.sampled_from(_FORMAT), st.sampled_from(_SPECIAL),
                               st.characters(blacklist_categories=())), max_size=30).map("".join))
def test_compiled_strip_format_matches_the_python_one(text):
    from asraudit.text.normalize import python_strip_format_characters

    fast = _compiled()
    assert fast.strip_format(text) == python_strip_format_characters(text)
    assert fast.normalize_text(text) == fast.normalize(python_strip_format_characters(text))


def test_compiled_strip_format_removes_every_format_character():
    fast = _compiled()
    assert len(_FORMAT) > 150  # U+00AD, U+200B-U+200F, U+2060-U+2064, U+FEFF, U+E0001, tags, ...
    text = "a".join(_FORMAT)
    assert fast.strip_format(text) == "a" * (len(_FORMAT) - 1)
    assert fast.strip_format(text + "é") == "a" * (len(_FORMAT) - 1) + "é"
    plain = "plain é text"
    assert fast.strip_format(plain) is plain and fast.strip_format("ascii") == "ascii"
    with pytest.raises(TypeError, match="a normalizer takes a str, got None"):
        fast.strip_format(None)


def _canonical_pairs() -> list[str]:
    """Every canonical decomposition of two whose second character is a starter, and Hangul's compositions."""
    pairs = []
    for code in range(sys.maxunicode + 1):
        parts = unicodedata_decomposition(chr(code)).split()
        if len(parts) == 2 and not parts[0].startswith("<") and unicodedata_combining(chr(int(parts[1], 16))) == 0:
            pairs.append(chr(int(parts[0], 16)) + chr(int(parts[1], 16)))
    return pairs + ["\u1100\u1161", "\u1112\u1175", "\uac00\u11a8", "\ud7a3\u11a8", "\u1100\u1161\u11c2"]


@pytest.mark.parametrize("path", BASIC_PATHS)
def test_both_basic_paths_match_transformers_where_a_starter_composes(path):
    """The compiled path cuts NFKC before characters that compose with nothing before them; these pairs are
    the ones whose second character is a starter all the same."""
    pairs = _canonical_pairs()
    assert len(pairs) > 15
    texts = [t for p in pairs for t in (p, f"x{p}y", f"{p}{p[0]} {p[1]}", f"{p[0]}\u0301{p[1]}", f"({p[0]}){p[1]}")]
    bad = _mismatches("basic", texts, ours=path())
    assert not bad, bad[:5]


def test_compiled_basic_matches_transformers_past_its_piece_table():
    """More distinct letter-and-marks pieces than the compiled path's table holds (4,096 slots, each keeping
    the last piece hashed to it): results must not depend on what it holds."""
    fast = _compiled()
    theirs = _transformers("basic")
    letters = [chr(c) for c in range(0x41, 0x250) if unicodedata_category(chr(c))[0] == "L"]
    marks = [chr(c) for c in range(0x300, 0x370)]
    texts = [" ".join(f"{a}{m}{n}" for m, n in zip(marks, reversed(marks))) + f" {a}" for a in letters]
    texts += [f"{a}{marks[i % len(marks)]}{b}{marks[(3 * i) % len(marks)]}" for i, (a, b)
              in enumerate(zip(letters, reversed(letters)))]
    assert len(texts) > 700 and sum(len(t) for t in texts) > 20_000
    for _ in range(2):  # the second time through, the table holds what the first left
        assert [fast.normalize(t) for t in texts] == [theirs(t) for t in texts]


def test_reference_path_matches_transformers():
    bad = _mismatches("whisper", CORPUS[:2000], ours=reference_normalizer("whisper"))
    assert not bad, bad[:5]


def _shared_texts(folder) -> list[str]:
    texts = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            texts += [row["text"], row["pred_text"]]
    return list(dict.fromkeys(texts))


@pytest.mark.parametrize("name", ["whisper", "basic"])
def test_fast_normalizer_matches_transformers_on_voxpopuli(shared_predictions, name):
    real = _shared_texts(shared_predictions)
    texts = real + perturbed(real, 3000, seed=15)
    bad = _mismatches(name, texts)
    assert not bad, bad[:5]


@pytest.mark.parametrize("cls", WHISPER_CLASSES)
def test_each_whisper_path_matches_transformers_on_voxpopuli(shared_predictions, cls):
    real = _shared_texts(shared_predictions)
    texts = real + perturbed(real, 3000, seed=16)
    ours = cls(english_spelling_mapping())
    bad = _mismatches("whisper", texts, ours=lambda s: ours(strip_format_characters(s)))
    assert not bad, bad[:5]
    theirs = _transformers("whisper")
    assert [s for s in texts if ours.tokens(strip_format_characters(s)) != tuple(theirs(s).split())] == []


@pytest.mark.parametrize("name", ["whisper", "basic", "none"])
def test_normalize_many_equals_one_at_a_time(name, monkeypatch):
    import asraudit.text.normalize as normalize

    texts = CORPUS[:2500]
    one = get_normalizer(name)
    expected = [one(s) for s in texts]
    assert normalize_many(texts, name, workers=1) == expected
    assert normalize_many(texts, name, workers=2, threshold=100) == expected  # a compiled one stays here
    monkeypatch.setattr(normalize, "in_one_process", lambda name: False)
    assert normalize_many(texts, name, workers=2, threshold=100) == expected  # through the process pool


def test_normalize_many_of_nothing():
    assert normalize_many([], "whisper", workers=2, threshold=0) == []


@pytest.mark.parametrize("cls", WHISPER_CLASSES)
def test_one_normalizer_shared_by_threads_with_tiny_caches(monkeypatch, cls):
    """Tables are replaced, never cleared in place, so a call in another thread never loses a token."""
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(whisper_english, "_CACHE_LIMIT", 5)
    shared = cls(english_spelling_mapping())
    texts = CORPUS[:1500]
    expected = [get_normalizer("whisper")(s) for s in texts]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda s: shared(strip_format_characters(s)), texts * 2))
        words = list(pool.map(lambda s: shared.tokens(strip_format_characters(s)), texts * 2))
    assert got == expected * 2
    assert words == [tuple(e.split()) for e in expected] * 2


@pytest.mark.parametrize("cls", WHISPER_CLASSES)
def test_a_whisper_normalizer_pickles_and_copies_with_its_tables(cls):
    import copy
    import pickle

    ours = cls(english_spelling_mapping())
    texts = [strip_format_characters(s) for s in CORPUS[:300]]
    expected = list(map(ours, texts))
    for twin in (pickle.loads(pickle.dumps(ours)), copy.deepcopy(ours)):
        assert type(twin) is cls and len(twin._tables[0]) == len(ours._tables[0]) > 100
        assert list(map(twin, texts)) == expected and [twin.tokens(s) for s in texts] == [tuple(e.split()) for e in expected]


def test_the_default_whisper_normalizer_is_the_compiled_one_where_built():
    import importlib.util

    built = importlib.util.find_spec("asraudit.text._whisper_fast") is not None
    assert whisper_english.COMPILED == built
    assert issubclass(whisper_english.PythonEnglishNormalizer, whisper_english.EnglishNormalizer)
    core = whisper_english.EnglishNormalizer.__mro__[1]
    assert (core.__module__ == "asraudit.text._whisper_fast") == built
    from asraudit.text.normalize import _fast_english

    assert type(_fast_english()) is whisper_english.EnglishNormalizer  # what get_normalizer("whisper") runs


@compiled_only
def test_compiled_bracket_removal_equals_the_regular_expressions():
    """The C form of ``remove_bracketed`` (used inside the compiled path) against ``symbols.remove_bracketed``,
    on strings dense in nested, unclosed, empty and mismatched brackets, with non-ASCII text around them."""
    import random

    from asraudit.text import _whisper_fast
    from asraudit.text.symbols import remove_bracketed

    rng = random.Random(17)
    pieces = list("[]<>()()") + ["a", "bc", " ", "\t", "é", "日", "🙂", "'", "(x)", "[noise]", "<unk>", "()", "[]", "))", "(("]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 14))) for _ in range(30_000)]
    texts += [s for s in CORPUS if "(" in s or "[" in s or "<" in s]
    assert sum(remove_bracketed(s) != s for s in texts) > 10_000
    bad = [s for s in texts if _whisper_fast.remove_bracketed(s) != remove_bracketed(s)]
    assert bad == []
    # the result is a canonical str: a removed non-ASCII character leaves an ASCII string
    assert _whisper_fast.remove_bracketed("a[é]b") == "ab" and _whisper_fast.remove_bracketed("a[é]b").isascii()


@compiled_only
def test_compiled_symbol_rules_equal_the_regular_expressions():
    """The C form of the last two symbol rules and the re-split against the regular expressions, on strings
    dense in the symbols, digits, odd whitespace and non-ASCII letters."""
    import random

    from asraudit.text import _whisper_fast

    def regex_form(s: str) -> str:
        s = whisper_english.TRAILING_PERCENT.sub(r"\1 ", whisper_english.LEADING_SYMBOL.sub(r" \1", s))
        return " ".join(s.split())

    rng = random.Random(19)
    pieces = list(".$¢€£%") * 3 + ["5", "12", "a", "x", " ", "  ", "\t", "\u00a0", "\u3000", "é", "日", "🙂", "%%", ".."]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))) for _ in range(30_000)]
    assert sum(regex_form(s) != " ".join(s.split()) for s in texts) > 10_000
    assert [s for s in texts if _whisper_fast.final_symbols(s) != regex_form(s)] == []
    assert _whisper_fast.final_symbols("€ a").isascii()


def test_the_cross_token_test_fires_where_its_plain_spelling_fires():
    """``CROSS_TOKEN`` is written apostrophe-first for speed; it must fire on exactly the strings the plain
    alternation (whitespace, "mm"/"mhm"/"uh"/"um", or a perfect tense around an apostrophe) fires on."""
    import random
    import re

    plain = re.compile(r"\s'|(?:mm|mhm|uh|um)'|'[sd] (?:been|gone|done|got)")
    rng = random.Random(3)
    pieces = ["'", "'", " ", "\t", "\u3000", "mm", "hmm", "mhm", "uh", "um", "m", "h", "s", "d", "'s been", "'d gone",
              "'s got", "'d done", "been", "x", "a'", "’"]
    texts = CORPUS + ["".join(rng.choices(pieces, k=rng.randint(1, 8))) for _ in range(20_000)]
    assert sum(bool(plain.search(s.lower())) for s in texts) > 2_000  # both outcomes are well represented
    assert [s for s in texts if bool(whisper_english.CROSS_TOKEN.search(s.lower())) != bool(plain.search(s.lower()))] == []


@compiled_only
def test_compiled_number_runs_and_symbols_equal_the_python_methods(monkeypatch):
    """The C ``_numbers_and_spelling`` and ``_symbols`` (number spans, "half") against the Python methods, on
    word lists dense in number words, digits, currencies and spellings, with cold, warm and tiny caches."""
    import random

    spelling = english_spelling_mapping()
    pieces = ["one", "two", "twenty", "hundred", "and", "a", "half", "point", "five", "5", "1st", "$3", "£2",
              "percent", "%", "dollars", "cents", "the", "colour", "oh", "zero", "minus", "1.5", "th", "s", "."]
    rng = random.Random(41)
    lists = [[rng.choice(pieces) for _ in range(rng.randint(0, 9))] for _ in range(6000)]
    strings = [" ".join(words) for words in lists] + ["a. b", "$ 5", "5 %", "x%", "  a  ", "€x"]
    odd = {**spelling, "colour": "co  lour", "the": "", "five": "5\t"}  # values to re-split (_resplit)
    for limit, table in ((None, spelling), (5, spelling), (None, odd)):
        if limit:
            monkeypatch.setattr(whisper_english, "_CACHE_LIMIT", limit)
        ours = whisper_english.EnglishNormalizer(table)
        python = whisper_english.PythonEnglishNormalizer(table)
        assert ours._resplit == python._resplit == (table is odd)
        for _ in range(2):  # cold, then warm
            assert [w for w in lists if ours._numbers_and_spelling(w) != python._numbers_and_spelling(w)] == []
            assert [s for s in strings if ours._symbols(s) != python._symbols(s)] == []
            assert [s for s in strings if ours(s) != python(s) or ours.tokens(s) != python.tokens(s)] == []
    assert sum(python._numbers_and_spelling(w) != w for w in lists) > 2000
