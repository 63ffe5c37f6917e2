"""Character-level steps of the Whisper normalizers, as ``str.translate`` tables.

transformers' ``remove_symbols_and_diacritics`` and ``remove_symbols`` look
up the Unicode category of every character of every string in a Python
loop.  The decision depends on the character alone, so it is made once per
distinct character and kept in a table that ``str.translate`` applies in C:
the same output, computed per character instead of per occurrence.

The rules (transformers ``models/whisper/english_normalizer.py``):

- English (after NFKD): a kept symbol stays; a letter in
  ``ADDITIONAL_DIACRITICS`` becomes its ASCII spelling; a nonspacing mark
  (Mn) is dropped; any other mark, symbol or punctuation (M*, S*, P*)
  becomes a space; everything else stays.
- Basic (after NFKC): marks, symbols and punctuation become a space.
"""

from __future__ import annotations

import re
import unicodedata

# Letters NFKD leaves whole, spelled out as the Whisper normalizer spells them.
ADDITIONAL_DIACRITICS = {
    "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "ß": "ss", "ẞ": "SS",
    "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "th", "ł": "l", "Ł": "L",
}

# Symbols the English normalizer keeps for its number step ("$20", "5%", "3.5").
NUMERIC_SYMBOLS = ".%$¢€£"

# Whole bracketed spans, removed before anything else by both normalizers.
BRACKETS = re.compile(r"[<\[][^>\]]*[>\]]")
PARENTHESES = re.compile(r"\(([^)]+?)\)")

# transformers' ``\s+'`` (a space before an apostrophe joins it to the word before), with a lookbehind
# that lets a match start only where a whitespace run starts.  The leftmost match of ``\s+'`` always
# starts there, so the matches (and the output of ``sub``) are the same; but the plain pattern tries
# again from every character of a run that no apostrophe ends, each try reading to the run's end:
# 100,000 spaces took 8.7 s, a time that grows with the square of the run (fault case 111).
SPACE_BEFORE_APOSTROPHE = re.compile(r"(?<!\s)\s+'")


def remove_bracketed(s: str) -> str:
    """``s`` without ``[...]``/``<...>`` and then ``(...)`` spans (a no-op, and cheap, when it has none).

    Each pattern is applied only up to the last closing character (``]`` or ``>``, then ``)``): no match
    can end after it, so the output is the same, and the regular expression is never left at an opening
    character with no closing one after it, from which it reads to the end of the string and fails, once
    per such opening character (a run of 100,000 ``[`` took minutes; fault case 111)."""
    if "[" in s or "<" in s:
        end = max(s.rfind("]"), s.rfind(">")) + 1
        if end:
            s = BRACKETS.sub("", s[:end]) + s[end:]
    if "(" in s:
        end = s.rfind(")") + 1
        if end:
            s = PARENTHESES.sub("", s[:end]) + s[end:]
    return s


def _english_rule(char: str) -> str:
    if char in NUMERIC_SYMBOLS:
        return char
    if char in ADDITIONAL_DIACRITICS:
        return ADDITIONAL_DIACRITICS[char]
    category = unicodedata.category(char)
    if category == "Mn":
        return ""
    return " " if category[0] in "MSP" else char


def _basic_rule(char: str) -> str:
    return " " if unicodedata.category(char)[0] in "MSP" else char


class _Table(dict):
    """A translate table that decides each character the first time it is seen."""

    def __init__(self, rule):
        super().__init__()
        self.rule = rule
        for code in range(128):  # ASCII decided up front: most text never misses
            self[code] = rule(chr(code))

    def __missing__(self, code: int) -> str:
        out = self[code] = self.rule(chr(code))
        return out


_ENGLISH = _Table(_english_rule)
_BASIC = _Table(_basic_rule)
# ASCII text goes through bytes.translate (a 256-byte table, several times faster than
# str.translate); every ASCII character maps to exactly one ASCII character under both rules.
_ENGLISH_ASCII = bytes(ord(_english_rule(chr(c))) if c < 128 else c for c in range(256))
_BASIC_ASCII = bytes(ord(_basic_rule(chr(c))) if c < 128 else c for c in range(256))


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _english_char(m: re.Match) -> str:
    return _ENGLISH[ord(m.group())]


def _basic_char(m: re.Match) -> str:
    return _BASIC[ord(m.group())]


def _translate(s: str, table: _Table, ascii_table: bytes, one_char) -> str:
    """``s.translate(table)`` for text that is mostly ASCII, ~2x faster.

    ``str.translate`` looks every character of a non-ASCII string up in the
    dict.  In UTF-8 a byte below 0x80 is exactly an ASCII character (the
    bytes of a multi-byte character are all 0x80 or above, which the 256-byte
    table leaves alone), so the ASCII characters go through
    ``bytes.translate`` and only the others through the dict, one call each.
    Text with many non-ASCII characters (a Cyrillic sentence) keeps
    ``str.translate``, which is faster there."""
    data = s.encode("utf-8", "surrogatepass")
    if (len(data) - len(s)) * 8 > len(s):  # roughly more than 1 character in 16 is not ASCII
        return s.translate(table)
    return _NON_ASCII.sub(one_char, data.translate(ascii_table).decode("utf-8", "surrogatepass"))


def remove_symbols_and_diacritics(s: str) -> str:
    """transformers' ``remove_symbols_and_diacritics(s, keep=".%$¢€£")``, table-driven."""
    if s.isascii():  # NFKD leaves ASCII unchanged
        return s.encode("ascii").translate(_ENGLISH_ASCII).decode("ascii")
    return _translate(unicodedata.normalize("NFKD", s), _ENGLISH, _ENGLISH_ASCII, _english_char)


def remove_symbols(s: str) -> str:
    """transformers' ``remove_symbols(s)`` (NFKC, then M/S/P to a space), table-driven."""
    if s.isascii():
        return s.encode("ascii").translate(_BASIC_ASCII).decode("ascii")
    return _translate(unicodedata.normalize("NFKC", s), _BASIC, _BASIC_ASCII, _basic_char)
