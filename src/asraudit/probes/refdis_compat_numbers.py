"""Which strings ``text2num``'s English ``alpha2digit`` can change: the ones with a number word in them.

``--compat hume`` passes every normalized string through ``alpha2digit`` as
the release does, and that call is a third of its normalizing time, while
after the Whisper normalizer (which writes numbers as digits already) fewer
than one string in ten still holds a word ``alpha2digit`` reads as a number
(about 1,800 of 29,000 at leaderboard scale, eight of which it changes).

``alpha2digit`` only starts a number at a token its English interpreter
reads as one: a cardinal or ordinal word, "o", "nought", "hundred" ...
"billion" (trailing "s" stripped first), or a hyphenated group of them.
"and", "point" and the other linking words only continue a number already
started.  So a string in which no run of letters is such a word (with or
without its trailing "s") comes back unchanged, and the call is skipped.
The runs are cut at every non-letter, so they are never longer than the
interpreter's tokens or their hyphenated parts; the test compares the
filtered and unfiltered calls on real and noisy strings, and on number-like
words outside the list (a text2num that learned "trillion" would fail it).

``tokens_may_hold_number`` asks the same of a string given as its words: a
string's letter runs are its words' (a space is no letter), and words repeat,
so each distinct word is read once and a string's answer is two set
operations in C instead of a regex scan and a loop over its runs.
"""

from __future__ import annotations

import re

NUMBER_WORDS = frozenset("""
    zero o nought one first oneth two second three third four fourth five fifth six sixth seven seventh
    eight eighth nine ninth ten tenth eleven eleventh twelve twelfth thirteen thirteenth fourteen fourteenth
    fifteen fifteenth sixteen sixteenth seventeen seventeenth eighteen eighteenth nineteen nineteenth
    twenty twentieth thirty thirtieth fourty forty fortieth fourtieth fifty fiftieth sixty sixteeth
    seventy seventieth eighty eightieth ninety ninetieth hundred hundredth thousand thousandth
    million millionth billion billionth
""".split())

_LETTER_RUN = re.compile(r"[a-z]+")


def may_hold_number(text: str) -> bool:
    """False only when no run of letters in ``text`` is a number word, so ``alpha2digit`` returns it as is."""
    for word in _LETTER_RUN.findall(text.lower()):
        if word in NUMBER_WORDS or word.rstrip("s") in NUMBER_WORDS:
            return True
    return False


_WORDS_LIMIT = 400_000  # distinct words remembered; forgotten all at once when full
# (words read, words holding a number word), replaced as a pair when full: a caller holding the old pair
# answers from it consistently.
_known: tuple[set[str], set[str]] = (set(), set())


def tokens_may_hold_number(words: tuple[str, ...]) -> bool:
    """``may_hold_number(" ".join(words))`` for words without whitespace, each distinct word read once."""
    global _known
    seen, holding = _known
    if not seen.issuperset(words):
        if len(seen) >= _WORDS_LIMIT:
            seen, holding = _known = (set(), set())
        for w in words:
            if w not in seen:
                # A word of ASCII letters only is its one run: the test without the regex scan.
                if (w.lower().rstrip("s") in NUMBER_WORDS) if w.isalpha() and w.isascii() else may_hold_number(w):
                    holding.add(w)  # before ``seen``: a word seen is always answered
                seen.add(w)
    return not holding.isdisjoint(words)
