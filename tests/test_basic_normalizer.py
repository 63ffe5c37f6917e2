"""The facts of Unicode that make the basic normalizer's shortcuts exact, checked on this Python.

``text/basic_normalizer.py``'s docstring argues that NFKC and ``str.lower``
never look across a whitespace character (the pure-Python token path), and
``text/_basic_fast.c``'s comment that NFKC can be cut before every
"segment" and that ``str.lower`` is per character but for U+03A3 (the
compiled path); if a future Unicode version broke one, these tests fail
before any output could differ.  Parity with transformers itself is tested
in ``test_normalize_parity.py``, for both paths.
"""

from __future__ import annotations

import sys
import unicodedata

import pytest

from asraudit.text.basic_normalizer import _ASCII, COMPILED, BasicNormalizer, PythonBasicNormalizer

PATHS = [pytest.param(PythonBasicNormalizer, id="python"),
         pytest.param(BasicNormalizer, id="compiled",
                      marks=pytest.mark.skipif(not COMPILED, reason="asraudit.text._basic_fast is not built"))]

WHITESPACE = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]


def test_nfkc_never_joins_or_reorders_across_whitespace():
    assert len(WHITESPACE) > 20  # \t..\r, \x1c-\x1f, space, \x85, \xa0, \u2000-\u200a, \u3000, ...
    for w in WHITESPACE:
        assert unicodedata.combining(w) == 0, repr(w)  # a starter: nothing is reordered across it
        assert unicodedata.normalize("NFKC", w).isspace(), repr(w)
    # Composition only joins the characters of a canonical decomposition of two (a singleton, such as
    # U+2000 -> U+2002, never recomposes): no whitespace character is one of the two in any.
    parts = set()
    for code in range(sys.maxunicode + 1):
        decomposition = unicodedata.decomposition(chr(code)).split()
        if len(decomposition) > 1 and not decomposition[0].startswith("<"):
            parts.update(chr(int(x, 16)) for x in decomposition)
    assert not parts & set(WHITESPACE)


def test_lowercase_context_stops_at_whitespace():
    """Final sigma is the one context rule of str.lower; whitespace is neither cased nor case-ignorable."""
    for w in WHITESPACE:
        assert ("xΣ" + w + "y").lower() == "xς" + w + "y", repr(w)
        assert ("x" + w + "Σ").lower() == "x" + w + "σ", repr(w)


def test_ascii_table_is_the_symbol_rule_lowercased():
    for code in range(128):
        char = chr(code)
        expected = " " if char.isspace() or unicodedata.category(char)[0] in "MSP" else char.lower()
        assert chr(_ASCII[code]) == expected, repr(char)
    assert _ASCII[128:] == bytes(range(128, 256))


def test_every_second_character_of_a_composition_is_a_mark_a_non_starter_or_a_hangul_jamo():
    """What ``_basic_fast.c`` cuts NFKC at: a character whose NFKD starts with a starter that is not a mark nor
    a Hangul vowel or trailing jamo never composes with what comes before it.  Composition only joins the two
    characters of a canonical decomposition of two (Hangul's are algorithmic: vowels U+1161-U+1175 and
    trailing consonants U+11A8-U+11C2 after a syllable or a leading consonant)."""
    seconds = set()
    for code in range(sys.maxunicode + 1):
        decomposition = unicodedata.decomposition(chr(code)).split()
        if len(decomposition) == 2 and not decomposition[0].startswith("<"):
            seconds.add(chr(int(decomposition[1], 16)))
    assert len(seconds) > 50
    odd = [c for c in seconds if unicodedata.combining(c) == 0 and unicodedata.category(c)[0] != "M"
           and not ("\u1161" <= c <= "\u1175" or "\u11a8" <= c <= "\u11c2")]
    assert odd == []
    assert unicodedata.normalize("NFC", "\u1100\u1161\u11a8") == "\uac01"  # the Hangul ranges are the right ones


def test_lowercase_is_per_character_but_for_capital_sigma():
    """``str.lower`` of a string is its characters' lowercases joined, except U+03A3 (the final sigma rule),
    which ``_basic_fast.c`` leaves to ``str.lower`` on the whole string."""
    contexts = [("x", "x"), ("x", ""), ("", "x"), ("\u0391'", "\u0301"), ("", "")]
    for code in range(sys.maxunicode + 1):
        c = chr(code)
        if c == "\u03a3":
            continue
        low = c.lower()
        for before, after in contexts:
            assert (before + c + after).lower() == before.lower() + low + after.lower(), hex(code)
    assert "x\u03a3".lower() != "x" + "\u03a3".lower()


@pytest.mark.parametrize("make", PATHS)
def test_examples(make):
    basic = make()
    assert basic("Hello,  World! [noise] (laughs) ok") == "hello world ok"
    assert basic("ΣΟΦΟΣ, Café ¨x ﬁne\u00a0Ⅻ") == "σοφος café x fine xii"
    assert basic("—") == ""
    assert basic(" \t\x1c ") == ""
    assert basic("İSTANBUL e\u0301 \u0301a (x) [y> ⑴") == "i stanbul é a 1"
    assert basic("") == ""


def test_the_compiled_path_is_used_when_built():
    if not COMPILED:
        pytest.skip("asraudit.text._basic_fast is not built")
    from asraudit.text import _basic_fast

    assert BasicNormalizer.__call__ is _basic_fast.normalize
    with pytest.raises(TypeError, match="a normalizer takes a str, got None"):
        BasicNormalizer()(None)
    with pytest.raises(TypeError, match="a normalizer takes a str, got 3"):
        _basic_fast.normalize_list(["a", 3])
    assert _basic_fast.normalize_list([]) == []
    assert _basic_fast.normalize_text("hel\u200blo A\u00adB") == "hello ab"
    assert _basic_fast.normalize("hel\u200blo") == "hel\u200blo"  # transformers keeps format characters
