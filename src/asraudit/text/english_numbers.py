"""Whisper's English number normalizer, rewritten for speed, output-identical to the maintained port.

The Whisper English normalizer turns spelled numbers into digits with a
state machine over words (``whisper_normalizer.english.EnglishNumberNormalizer``,
the same machine as transformers').  That implementation runs two regular
expressions and up to a dozen set lookups per word inside a generator over a
sliding window, and builds a ``Fraction`` for every written number.  This
module computes the same outputs with:

- one dict lookup per word, giving the word's kind and value (every number
  word, its plural and ordinal forms, the prefixers, suffixers and specials
  are precomputed in ``_TABLE``);
- ``str.isdecimal`` for written numbers instead of ``^\\d+(\\.\\d+)?$``
  (``\\d`` is exactly the characters ``isdecimal`` accepts) and ``int``
  instead of ``Fraction`` (a written ``a.b`` is an integer iff its decimals
  are all zeros);
- the neighbour words' tests (``next`` a number?) made only in the
  branches that read them;
- a list for the output, not a generator.

Everything ``Fraction`` decides beyond that (a concatenated value such as
"2.5" or "1.2.3" times a multiplier) still goes through ``Fraction``, so
odd inputs behave as in the port.  Parity with the port is tested on
generated word sequences (``tests/test_english_numbers.py``).

The state, for readers of the port: ``value`` is None, an ``int`` (a number
still open to arithmetic: "twenty" then "one" is 21) or a ``str`` (digits
written side by side: "nineteen eighty" is "1980"; decimals "2.5"); ``prefix``
is a sign or currency symbol waiting for the next output.
"""

from __future__ import annotations

import re
from fractions import Fraction

# Word kinds (the order of the port's branches does not matter: the kinds are disjoint).
_ZERO, _ONE, _ONE_SUFFIXED, _TEN, _TEN_SUFFIXED, _MULTIPLIER, _MULTIPLIER_SUFFIXED = range(7)
_SIGN, _CURRENCY, _PER, _PERCENT, _AND, _REPEAT, _POINT = range(7, 14)

_UNITS = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
          "seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_SCALES = "hundred thousand million billion trillion quadrillion quintillion sextillion septillion octillion " \
          "nonillion decillion".split()
# Ordinals that are not the cardinal plus "th".
_IRREGULAR_ORDINALS = {"one": "first", "two": "second", "three": "third", "five": "fifth", "twelve": "twelfth"}


def _build_table() -> dict[str, tuple[int, object, str]]:
    """word -> (kind, number or symbol, suffix)."""
    table: dict[str, tuple[int, object, str]] = {}
    for word in ("o", "oh", "zero"):
        table[word] = (_ZERO, 0, "")
    table["zeroth"] = (_ONE_SUFFIXED, 0, "th")
    for number, word in enumerate(_UNITS, start=1):
        table[word] = (_ONE, number, "")
        table["sixes" if word == "six" else word + "s"] = (_ONE_SUFFIXED, number, "s")
        if word in _IRREGULAR_ORDINALS:
            ordinal = _IRREGULAR_ORDINALS[word]
        else:  # "eighth", and the port's "nineth" (not "ninth")
            ordinal = word + ("h" if word[-1] == "t" else "th")
        table[ordinal] = (_ONE_SUFFIXED, number, ordinal[-2:])
    for number, word in enumerate(_TENS, start=2):
        stem = word[:-1]  # "twent"
        table[word] = (_TEN, number * 10, "")
        table[stem + "ies"] = (_TEN_SUFFIXED, number * 10, "s")
        table[stem + "ieth"] = (_TEN_SUFFIXED, number * 10, "th")
    for power, word in zip([2, *range(3, 34, 3)], _SCALES):
        table[word] = (_MULTIPLIER, 10**power, "")
        table[word + "s"] = (_MULTIPLIER_SUFFIXED, 10**power, "s")
        table[word + "th"] = (_MULTIPLIER_SUFFIXED, 10**power, "th")
    for word, sign in (("minus", "-"), ("negative", "-"), ("plus", "+"), ("positive", "+")):
        table[word] = (_SIGN, sign, "")
    for word, symbol in (("pound", "£"), ("euro", "€"), ("dollar", "$"), ("cent", "¢")):
        table[word] = table[word + "s"] = (_CURRENCY, symbol, "")
    table["per"] = (_PER, "%", "")
    table["percent"] = (_PERCENT, "%", "")
    table["and"] = (_AND, None, "")
    table["double"] = (_REPEAT, 2, "")
    table["triple"] = (_REPEAT, 3, "")
    table["point"] = (_POINT, None, "")
    return table


_TABLE = _build_table()
_UNIT_VALUES = {w: v for w, (k, v, _) in _TABLE.items() if k == _ONE}
_UNIT_WORDS = frozenset(_UNIT_VALUES)
_TEN_WORDS = frozenset(w for w, (k, _, _) in _TABLE.items() if k == _TEN)
_MULTIPLIER_WORDS = frozenset(w for w, (k, _, _) in _TABLE.items() if k == _MULTIPLIER)
_ZERO_WORDS = frozenset(w for w, (k, _, _) in _TABLE.items() if k == _ZERO)
_DIGIT_WORDS = _UNIT_WORDS | _TEN_WORDS | _ZERO_WORDS  # what may follow "point"
_SYMBOLS = frozenset("-+£€$¢")  # a written number's leading sign or currency
_WRITTEN = re.compile(r"\d+(?:\.\d+)?\n?")  # the port's ^\d+(\.\d+)?$ ($: the end, or before a final newline)


def _written(word: str):
    """A written number's value as the port stores it (an int, or the word where it is a fraction), else None.

    The port tests ``^\\d+(\\.\\d+)?$`` and reads ``Fraction(word)``; ``\\d`` is what ``isdecimal``
    accepts and ``int`` reads those digits, so a plain or ``a.b`` word is decided here without either.

    A number of more digits than Python reads (4,300: a model caught in a loop of digits) has no value: the
    port's ``Fraction`` fails there and it asserts, transformers' raises ValueError, and a whole score stopped on
    one hypothesis.  Such a word is left as written (None), which is what either would print had it a value."""
    if word.isdecimal():
        try:
            return int(word)
        except ValueError:
            return None
    head, dot, tail = word.partition(".")
    if dot and head.isdecimal() and tail.isdecimal():
        try:
            return int(head) if int(tail) == 0 else word
        except ValueError:
            return None
    if word[-1:] == "\n" and _WRITTEN.fullmatch(word):  # as rare as it is odd: "5\n"
        f = Fraction(word)
        return f.numerator if f.denominator == 1 else word
    return None


def _is_written(word) -> bool:
    """The port's ``next_is_numeric``: ``word`` (no sign or currency stripped) is a written number."""
    if word is None:
        return False
    if word.isdecimal():
        return True
    head, dot, tail = word.partition(".")
    if dot and head.isdecimal() and tail.isdecimal():
        return True
    return word[-1:] == "\n" and _WRITTEN.fullmatch(word) is not None


def _scaled(value, multiplier: int):
    """``value * multiplier`` as an int where that is a whole number (``value`` an int or a str), else None."""
    if value.__class__ is str and value.isdecimal():
        try:
            return int(value) * multiplier
        except ValueError:  # too many digits for int(): Fraction fails the same way
            return None
    try:
        f = Fraction(value)
    except ValueError:
        return None
    p = f * multiplier
    return p.numerator if p.denominator == 1 else None


# preprocess: "and a half" and the three letter/digit rules, written with lookarounds so that the
# replacement is a plain string (the same matches: letters and digits are disjoint classes).
# \band\s+a\s+half\b, written to start with its literal "and" (searched for at C speed; a pattern that starts
# with \b is tried at every position) and to test the word boundary before it looking back.
_AND_A_HALF = re.compile(r"and(?<=\band)\s+a\s+half\b")
_LETTER_DIGIT = re.compile(r"(?<=[a-z])(?=[0-9])")
_DIGIT_LETTER = re.compile(r"(?<=[0-9])(?=[a-z])")
_NUMBER_SUFFIX = re.compile(r"(?<=[0-9])\s+(?=(?:st|nd|rd|th|s)\b)")
# postprocess
_CENTS_AFTER = re.compile(r"([€£$])([0-9]+) (?:and )?¢([0-9]{1,2})\b")
_ONLY_CENTS = re.compile(r"[€£$]0.([0-9]{1,2})\b")
_ONE_DIGIT = re.compile(r"\b1(?=s?\b)")  # the port's \b1(s?)\b -> one\1: the "s" stays where it is


def _join_cents(m: re.Match) -> str:
    return f"{m.group(1)}{m.group(2)}.{int(m.group(3)):02d}"


def _cents(m: re.Match) -> str:
    return f"¢{int(m.group(1))}"


class EnglishNumberNormalizer:
    """Spelled numbers to digits, as Whisper's English normalizer does it (see the module docstring).

    ``process_words(words)`` returns the output words as a list, ``preprocess`` and ``postprocess`` are the
    string steps before and after it, ``words`` the words the state machine reads (anything else passes
    through unchanged), and calling the object runs all three."""

    words = frozenset(_TABLE)

    def __call__(self, s: str) -> str:
        return self.postprocess(" ".join(self.process_words(self.preprocess(s).split())))

    def process_words(self, words: list[str]) -> list[str]:
        out: list[str] = []
        append = out.append
        table = _TABLE
        value = None  # None, an int, or a str (see the module docstring)
        prefix = None
        skip = False
        last = len(words) - 1
        prev = None
        for i, current in enumerate(words):
            if skip:
                skip = False
                prev = current
                continue
            entry = table.get(current)
            if entry is None:
                first = current[0]  # an empty word raises IndexError, as in the port
                number = _written(current[1:] if first in _SYMBOLS else current)
                if number is None:  # any other word: passes through
                    if value is not None:
                        append(str(value) if prefix is None else prefix + str(value))
                        value = prefix = None
                    append(current if prefix is None else prefix + current)
                    prefix = None
                elif value is not None and value.__class__ is str and value[-1:] == ".":
                    value += current  # decimals after "point", or an address "192.168.0.1" (sign and all)
                else:
                    if value is not None:
                        append(str(value) if prefix is None else prefix + str(value))
                        prefix = None
                    if first in _SYMBOLS:
                        prefix = first
                    value = number
                prev = current
                continue

            kind, number, suffix = entry
            if kind == _ONE:
                if value is None:
                    value = number
                elif value.__class__ is str or prev in _UNIT_WORDS:
                    if prev in _TEN_WORDS and number < 10:  # "twenty" wrote a 0: the unit replaces it
                        value = value[:-1] + str(number)
                    else:
                        value = str(value) + str(number)
                elif value % (10 if number < 10 else 100) == 0:
                    value += number
                else:
                    value = str(value) + str(number)
            elif kind == _TEN:
                if value is None:
                    value = number
                elif value.__class__ is str:
                    value += str(number)
                elif value % 100 == 0:
                    value += number
                else:
                    value = str(value) + str(number)
            elif kind == _MULTIPLIER:
                if value is None:
                    value = number
                elif value.__class__ is str or value == 0:
                    scaled = _scaled(value, number)
                    if scaled is None:
                        append(str(value) if prefix is None else prefix + str(value))
                        prefix = None
                        value = number
                    else:
                        value = scaled
                else:
                    value = value - value % 1000 + value % 1000 * number
            elif kind == _ZERO:
                value = (str(value) if value else "") + "0"
            elif kind == _ONE_SUFFIXED:
                if value is None:
                    text = str(number) + suffix
                elif value.__class__ is str or prev in _UNIT_WORDS:
                    if prev in _TEN_WORDS and number < 10:
                        text = value[:-1] + str(number) + suffix
                    else:
                        text = str(value) + str(number) + suffix
                elif value % (10 if number < 10 else 100) == 0:
                    text = str(value + number) + suffix
                else:
                    text = str(value) + str(number) + suffix
                append(text if prefix is None else prefix + text)
                value = prefix = None
            elif kind == _TEN_SUFFIXED:
                if value is None:
                    text = str(number) + suffix
                elif value.__class__ is str:
                    text = value + str(number) + suffix
                elif value % 100 == 0:
                    text = str(value + number) + suffix
                else:
                    text = str(value) + str(number) + suffix
                append(text if prefix is None else prefix + text)
                value = prefix = None
            elif kind == _MULTIPLIER_SUFFIXED:
                if value is None:
                    text = str(number) + suffix
                elif value.__class__ is str:
                    scaled = _scaled(value, number)
                    if scaled is None:
                        append(value if prefix is None else prefix + value)
                        prefix = None
                        text = str(number) + suffix
                    else:
                        text = str(scaled) + suffix
                else:
                    text = str(value - value % 1000 + value % 1000 * number) + suffix
                append(text if prefix is None else prefix + text)
                value = prefix = None
            elif kind == _CURRENCY:  # a symbol before the number just ended ("5 dollars" -> "$5")
                if value is None:
                    append(current if prefix is None else prefix + current)
                else:
                    append(number + str(value))
                    value = None
                prefix = None
            elif kind == _PERCENT:
                if value is None:
                    append(current if prefix is None else prefix + current)
                else:
                    text = str(value) + "%"
                    append(text if prefix is None else prefix + text)
                    value = None
                prefix = None
            elif kind == _PER:
                if value is None:
                    append(current if prefix is None else prefix + current)
                    prefix = None
                elif i < last and words[i + 1] == "cent":
                    text = str(value) + "%"
                    append(text if prefix is None else prefix + text)
                    value = prefix = None
                    skip = True
                else:
                    append(str(value) if prefix is None else prefix + str(value))
                    append(current)
                    value = prefix = None
            else:  # a sign, or a special ("and", "double", "triple", "point"): they read the next word
                following = words[i + 1] if i < last else None
                numeric_next = following in table or _is_written(following)
                if kind == _SIGN:
                    if value is not None:
                        append(str(value) if prefix is None else prefix + str(value))
                        value = prefix = None
                    if numeric_next:
                        prefix = number
                    else:
                        append(current if prefix is None else prefix + current)
                        prefix = None
                elif not numeric_next or (kind == _AND and prev not in _MULTIPLIER_WORDS) or (
                        kind == _REPEAT and following not in _UNIT_WORDS and following not in _ZERO_WORDS):
                    # not before a number ("and" after "hundred" and the like is dropped)
                    if value is not None:
                        append(str(value) if prefix is None else prefix + str(value))
                        value = prefix = None
                    append(current if prefix is None else prefix + current)
                    prefix = None
                elif kind == _REPEAT:
                    value = (str(value) if value else "") + str(_UNIT_VALUES.get(following, 0)) * number
                    skip = True
                elif kind == _POINT and (following in _DIGIT_WORDS or _is_written(following)):
                    value = (str(value) if value else "") + "."
                # else: "and" after a multiplier, or "point" before another number word: dropped
            prev = current
        if value is not None:
            append(str(value) if prefix is None else prefix + str(value))
        return out

    def preprocess(self, s: str) -> str:
        if "half" in s:  # "<number> and a half" -> "<number> point five"
            pieces = _AND_A_HALF.split(s)
            kept = []
            for i, piece in enumerate(pieces):
                if piece.isspace() or not piece:
                    continue
                kept.append(piece)
                if i < len(pieces) - 1:
                    last = piece.rsplit(None, 1)[-1]
                    kept.append("point five" if last in _DIGIT_WORDS or last in _MULTIPLIER_WORDS else "and a half")
            s = " ".join(kept)
        elif not s or s.isspace():
            return ""
        if not ("0" in s or "1" in s or "2" in s or "3" in s or "4" in s or "5" in s or "6" in s or "7" in s
                or "8" in s or "9" in s):  # the rules below need an ASCII digit; ten `in` tests beat a search
            return s
        return _NUMBER_SUFFIX.sub("", _DIGIT_LETTER.sub(" ", _LETTER_DIGIT.sub(" ", s)))

    def postprocess(self, s: str) -> str:
        if "$" in s or "£" in s or "€" in s:
            if "¢" in s:
                s = _CENTS_AFTER.sub(_join_cents, s)
            if "0" in s:
                s = _ONLY_CENTS.sub(_cents, s)
        if "1" in s:
            s = _ONE_DIGIT.sub("one", s)
        return s
