"""English number words for the digits-versus-words convention families.

"21" and "twenty-one" are the same sound, so which one a transcript uses is a
convention.  To pair a reference "21" with a hypothesis "twenty one" the probe
needs the *value* of each rendering: both become the key ``21`` and align as
one token.  This module holds the word lists, the regular expressions that
find number words in raw text, and the parsers that turn a matched phrase back
into its value.

Only readings that sound exactly like the digits are accepted: "nineteen
ninety-nine" for 1999, never "one thousand nine hundred ninety-nine" (which
is a different string of words, and would make the arms acoustically
different).  A phrase that belongs to a longer number ("one hundred and
twenty-one") is not a match for the 11-99 family: the neighbouring number
words are checked by look-arounds, so the phrase is read as a whole or not
at all.
"""

from __future__ import annotations

UNITS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
         "seventeen", "eighteen", "nineteen")
TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
ORDINAL_UNITS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh",
                 "eighth", "ninth")
ORDINAL_TEENS = ("tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth",
                 "sixteenth", "seventeenth", "eighteenth", "nineteenth")
ORDINAL_TENS = ("twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth", "seventieth",
                "eightieth", "ninetieth")

_VALUE = {w: i + 1 for i, w in enumerate(UNITS)}
_VALUE.update({w: 10 + i for i, w in enumerate(TEENS)})
_VALUE.update({w: 20 + 10 * i for i, w in enumerate(TENS)})
_ORDINAL_VALUE = {w: i + 1 for i, w in enumerate(ORDINAL_UNITS)}
_ORDINAL_VALUE.update({w: 10 + i for i, w in enumerate(ORDINAL_TEENS)})
_ORDINAL_VALUE.update({w: 20 + 10 * i for i, w in enumerate(ORDINAL_TENS)})


def _alt(words) -> str:
    # Longest first: regex alternation takes the first branch that matches.
    return "(?:" + "|".join(sorted(words, key=len, reverse=True)) + ")"


# A separator inside a number phrase: a hyphen or spaces ("twenty-one", "twenty one").
SEP = r"(?:\s*-\s*|\s+)"
_U, _T, _D = _alt(UNITS), _alt(TEENS), _alt(TENS)
_OU, _OT, _OD = _alt(ORDINAL_UNITS), _alt(ORDINAL_TEENS), _alt(ORDINAL_TENS)
_SCALE = _alt(("hundred", "thousand", "million", "billion", "trillion"))
_SMALL_WORDS = UNITS + TEENS + TENS + ORDINAL_UNITS + ORDINAL_TEENS + ORDINAL_TENS
# Any word that would make the phrase part of a longer number.
_NUMBER_WORD = _alt(_SMALL_WORDS + ("hundred", "thousand", "million", "billion", "trillion",
                                    "zero", "oh"))
# Words that change the value of a cardinal when they follow it.  Scale words
# other than "hundred" are allowed: "21 million" is "twenty-one million".
_CHANGES_CARDINAL = _alt(_SMALL_WORDS + ("hundred", "point", "oh", "zero"))

# Not preceded by a number word ("thirty two") nor by "hundred and" ("one
# hundred and twenty-one"); variable-width look-behind needs the `regex` module.
_NOT_AFTER_NUMBER = rf"(?<![\w-])(?<!\b{_NUMBER_WORD}{SEP})(?<!\b{_SCALE}\s+and\s+)"
_CARDINAL_END = rf"(?![\w-])(?!{SEP}{_CHANGES_CARDINAL}\b)"
_YEAR_END = rf"(?![\w-])(?!{SEP}{_NUMBER_WORD}\b)"
_TWO_DIGITS = rf"(?:{_D}(?:{SEP}{_U})?|{_T})"

CARDINAL_WORDS_RE = rf"{_NOT_AFTER_NUMBER}(?:{_D}(?:{SEP}{_U})?|{_T}|{_U}){_CARDINAL_END}"
ORDINAL_WORDS_RE = rf"{_NOT_AFTER_NUMBER}(?:{_D}{SEP}{_OU}|{_OD}|{_OT}|{_OU})(?![\w-])"
YEAR_WORDS_RE = (
    rf"{_NOT_AFTER_NUMBER}(?:"
    rf"{_alt(TEENS[1:] + ('twenty',))}{SEP}(?:hundred|oh{SEP}{_U}|{_TWO_DIGITS})"
    rf"|two{SEP}thousand(?:{SEP}(?:and{SEP})?(?:{_TWO_DIGITS}|{_U}))?"
    rf"){_YEAR_END}"
)

# Digits: not part of a longer number, a decimal, a time or a range.  A number whose thousands are parted by
# a space, a no-break or a narrow no-break space ("21 000", SI and French style) is a longer number too, as
# "21,000" is (the other languages' catalogues say so with ``not_before``).
CARDINAL_DIGITS_RE = r"(?<![\w.,:/-])\d{1,2}(?!\w|[.,:/-]\d|[\u0020\u00a0\u202f]\d{3}(?!\d))"
ORDINAL_DIGITS_RE = r"(?<![\w.,:/-])\d{1,2}(?:st|nd|rd|th)(?!\w)"
YEAR_DIGITS_RE = r"(?<![\w.,:/])(?:1[1-9]\d\d|20\d\d)(?!\w|[.,:]\d)"


def _words(phrase: str) -> list[str]:
    return phrase.lower().replace("-", " ").split()


def _two_digit_value(words: list[str]) -> int | None:
    """Value of a phrase read as one number below 100 ("twenty one" -> 21)."""
    if len(words) == 1:
        return _VALUE.get(words[0])
    if len(words) == 2 and words[0] in TENS and words[1] in UNITS:
        return _VALUE[words[0]] + _VALUE[words[1]]
    return None


def parse_cardinal(phrase: str) -> int | None:
    """Value of a cardinal below 100 written in words, or None."""
    return _two_digit_value(_words(phrase))


def parse_ordinal(phrase: str) -> int | None:
    """Value of an ordinal below 100 written in words ("twenty-first" -> 21), or None."""
    words = _words(phrase)
    if len(words) == 1:
        return _ORDINAL_VALUE.get(words[0])
    if len(words) == 2 and words[0] in TENS and words[1] in ORDINAL_UNITS:
        return _VALUE[words[0]] + _ORDINAL_VALUE[words[1]]
    return None


def parse_year(phrase: str) -> int | None:
    """Value of a year read in pairs ("nineteen oh five", "twenty twenty",
    "two thousand and nine"), or None."""
    words = _words(phrase)
    if words[:2] == ["two", "thousand"]:
        rest = words[2:]
        if rest[:1] == ["and"]:
            rest = rest[1:]
        if not rest:
            return 2000
        tail = _two_digit_value(rest)
        return None if tail is None else 2000 + tail
    if len(words) < 2 or words[0] not in _VALUE or not 11 <= _VALUE[words[0]] <= 20:
        return None
    century = _VALUE[words[0]] * 100
    rest = words[1:]
    if rest == ["hundred"]:
        return century
    if rest[0] == "oh" and len(rest) == 2 and rest[1] in UNITS:
        return century + _VALUE[rest[1]]
    tail = _two_digit_value(rest)
    if tail is None or tail < 10:
        return None
    return century + tail


def parse_digits(text: str) -> int:
    """Value of a digit rendering, ignoring an ordinal suffix ("21st" -> 21)."""
    return int("".join(ch for ch in text if ch.isdigit()))


def cardinal_words(n: int) -> str:
    """The spelling of 1..99 with a hyphen (21 -> "twenty-one"); for tests and examples."""
    if not 1 <= n <= 99:
        raise ValueError(f"cardinal_words covers 1..99, got {n}")
    if n < 10:
        return UNITS[n - 1]
    if n < 20:
        return TEENS[n - 10]
    tens, unit = divmod(n, 10)
    return TENS[tens - 2] + (f"-{UNITS[unit - 1]}" if unit else "")
