"""The facts of Unicode that make ``text/basic_normalizer.py``'s token path exact, checked on this Python.

The module's docstring argues that NFKC and ``str.lower`` never look across
a whitespace character; if a future Unicode version broke that, these tests
fail before any output could differ.  Parity with transformers itself is
tested in ``test_normalize_parity.py``.
"""

from __future__ import annotations

import sys
import unicodedata

from asraudit.text.basic_normalizer import _ASCII, BasicNormalizer

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


def test_examples():
    basic = BasicNormalizer()
    assert basic("Hello,  World! [noise] (laughs) ok") == "hello world ok"
    assert basic("ΣΟΦΟΣ, Café ¨x ﬁne\u00a0Ⅻ") == "σοφος café x fine xii"
    assert basic("—") == ""
    assert basic(" \t\x1c ") == ""
