"""Text for the terminal: one line, with what a user's file may hold escaped.

Every error, warning and status line, and every table cell, goes through ``one_line``; it sits at the package
root (with ``errors.py`` and ``display_paths.py``) because every layer prints such lines: the job grid's status
lines and the progress bar as much as the commands and the report's tables.
"""

from __future__ import annotations

import sys
from typing import TextIO


# Unicode's format characters (category Cf) but the two joiners (U+200C, U+200D), which Persian, Indic scripts and
# emoji need to be drawn right: the bidirectional controls (U+202E turns the rest of a line around, so a clip id
# can make an error line read otherwise than it says), invisible ones (U+200B, U+2060, U+FEFF, the soft hyphen: two
# ids that differ only by them look the same) and the tag characters.  Ranges as of Unicode 15 (a test checks them
# against the running Python's unicodedata).
_FORMAT = ((0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891),
           (0x8E2, 0x8E2), (0x180E, 0x180E), (0x200B, 0x200B), (0x200E, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064),
           (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
           (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F))
# Characters that end or break a terminal line, start a terminal's escape sequence, or change how the rest of the
# line is shown, written as escapes: a clip id, a model name or a transcript read from a file may hold a newline,
# a carriage return (which draws over the start of the line), ESC ("\x1b[2J" clears the screen when printed), a
# right-to-left override or a lone surrogate (a UTF-8 terminal cannot take it), and each table row, warning and
# error must stay the one line of plain text it promises.
_LINE_BREAKING = {c: repr(chr(c))[1:-1] for c in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029,
                                                   *(c for low, high in _FORMAT for c in range(low, high + 1)),
                                                   *range(0xD800, 0xE000)) if c != 0x09}


def one_line(text: str) -> str:
    """``text`` with every control character, line separator and format character (but the joiners) escaped
    (``\\n``, ``\\x1b``, ``\\u2028``, ``\\u202e``)."""
    return text.translate(_LINE_BREAKING)


def warn(message: str, file: TextIO | None = None) -> None:
    """One warning line, ``asraudit: warning: MESSAGE``, on standard error (of the moment of the call): every
    warning goes through here, so what a message quotes from the user's files (a clip id, a model name, a file
    name, a plug-in's own exception) is escaped as the error lines are."""
    print(f"asraudit: warning: {one_line(message)}", file=file if file is not None else sys.stderr)


def note(message: str, file: TextIO | None = None) -> None:
    """One status line, ``asraudit: MESSAGE`` (jobs run, a stage begun), on standard error, escaped as ``warn``."""
    print(f"asraudit: {one_line(message)}", file=file if file is not None else sys.stderr)
