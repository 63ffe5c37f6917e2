"""A time limit on the regular expressions users write (convention families, translation lexicons).

A pattern whose repeated group has alternatives that can match the same text (``(a|aa)+c``, ``(\\w|\\d)+x``)
backtracks through every way of splitting a run of characters before it gives up: on 60 ``a`` that is about
10^12 tries, so ``asraudit conventions`` over such a reference never ended, without a word.  The ``regex``
module stops a search after a given time; every search with a user's pattern is given one, far above what a
sound pattern takes (the built-in catalogues take at most 0.3 s over a 1-MB text), and running past it is an
:class:`~asraudit.errors.InputError` naming the pattern and the text.
"""

from __future__ import annotations

from pathlib import Path

from asraudit.errors import InputError

# Seconds a search with one pattern may take over one text: a base, and more per character of the text.  A sound
# pattern takes microseconds on a reference; 2 s names a runaway one sooner than the 5 s it was (the suite waited
# those 5 s four times), still about 40 times what the built-in catalogues take over a 1-MB text with its 10 s more.
BASE_SECONDS = 2.0
SECONDS_PER_CHARACTER = 1e-5


def time_limit(text: str) -> float:
    """The seconds one pattern may search ``text`` for."""
    return BASE_SECONDS + SECONDS_PER_CHARACTER * len(text)


def runaway(where: str, pattern: str, text: str, source: str | Path | None) -> InputError:
    """The error for ``pattern`` that did not finish searching ``text`` within :func:`time_limit`."""
    shown = text if len(text) <= 60 else text[:57] + "..."
    return InputError(f"{where}: regular expression {pattern!r} did not finish searching a text of {len(text)} "
                      f"characters ({shown!r}) in {time_limit(text):.0f} s: it backtracks without end (a repeated "
                      "group whose alternatives can match the same characters, as (a|aa)+): rewrite it so that "
                      "each character can be matched one way only", source)
