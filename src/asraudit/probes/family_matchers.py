"""Matchers: a family's rows (literal forms, regex patterns, or a generator) compiled into regexes.

``probes.families`` validates a family table and calls one of
:func:`literal_matchers`, :func:`pattern_matchers` or
:func:`generated_matchers`; each matcher knows its arm and how to read the
occurrence's key (the words, independent of the arm) from a match.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import regex

from asraudit.errors import InputError
from asraudit.probes import numbers
from asraudit.probes.literal_regex import literal_key, literal_patterns


@dataclass(frozen=True)
class Matcher:
    """One compiled pattern of one arm, and how to read the key from a match."""

    arm: int
    pattern: regex.Pattern
    key_of: Callable[[regex.Match], str | None]  # None: not an occurrence after all


def strings(value, where: str, what: str, label: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{where}: '{what}' must be a string or a list of strings", label)
    return list(value)


def _row(row, arms: tuple[str, ...], where: str, what: str, label: str, i: int) -> list[list[str]]:
    if not isinstance(row, list) or len(row) != len(arms):
        raise InputError(f"{where}: {what} row {i} must list one entry per arm ({len(arms)}: "
                         f"{', '.join(arms)}), got {row!r}", label)
    cells = [strings(cell, where, f"{what} row {i}", label) for cell in row]
    if any(not cell for cell in cells):
        raise InputError(f"{where}: {what} row {i} has an arm without any form", label)
    return cells


def compile_pattern(source: str, flags: int, where: str, label: str) -> regex.Pattern:
    try:
        pattern = regex.compile(source, flags)
    except regex.error as exc:
        raise InputError(f"{where}: bad regular expression {source!r}: {exc}", label) from None
    if pattern.fullmatch(""):  # "" or "x*": an arm it "renders" holds no text, so the family matched nothing
        raise InputError(f"{where}: regular expression {source!r} matches the empty string: an arm's pattern must "
                         "match the words of its rendering", label)
    return pattern


def literal_matchers(rows, arms, suffixes, case_sensitive, where, label) -> list[Matcher]:
    suffixes = strings(suffixes, where, "suffixes", label) or [""]
    flags = 0 if case_sensitive else regex.IGNORECASE
    per_arm: list[dict[str, str]] = [{} for _ in arms]
    owner: dict[str, int] = {}
    for i, row in enumerate(rows, start=1):
        for arm, cell in enumerate(_row(row, arms, where, "forms", label, i)):
            for form in cell:
                if not form.strip():  # an arm of nothing but "" stopped the loading with "no literals to match"
                    raise InputError(f"{where}: forms row {i} has an empty form {form!r} under arm {arms[arm]!r}: a "
                                     "form is the words of its rendering", label)
                for suffix in suffixes:
                    text = literal_key(form + suffix, case_sensitive)
                    if owner.get(text, arm) != arm:
                        raise InputError(f"{where}: {form + suffix!r} is listed under two arms "
                                         f"({arms[owner[text]]!r} and {arms[arm]!r}); arms must not overlap", label)
                    owner[text] = arm
                    per_arm[arm].setdefault(text, f"{i}:{suffix}")
    matchers = []
    for arm, keys in enumerate(per_arm):
        for source in literal_patterns(list(keys)):
            matchers.append(Matcher(arm, regex.compile(source, flags),
                                    _lookup(keys, case_sensitive)))
    return matchers


def _lookup(keys: dict[str, str], case_sensitive: bool) -> Callable[[regex.Match], str | None]:
    def key_of(m: regex.Match) -> str | None:
        return keys.get(literal_key(m.group(), case_sensitive))

    return key_of


def pattern_matchers(rows, arms, flags, where, label) -> list[Matcher]:
    matchers = []
    for i, row in enumerate(rows, start=1):
        for arm, cell in enumerate(_row(row, arms, where, "patterns", label, i)):
            for source in cell:
                pattern = compile_pattern(source, flags, where, label)
                matchers.append(Matcher(arm, pattern, _group_key(pattern, str(i))))
    return matchers


# A number as a key group holds it: digit groups parted by a point, a comma, a space, a no-break or a
# narrow no-break space (French and SI thousands), or an apostrophe (Swiss thousands).
_NUMBER = regex.compile(r"\d+(?:[.,'\u0020\u00a0\u202f]\d+)*")
_PARTS = regex.compile(r"(\d+)|[^\d]")


def _number_value(text: str) -> str:
    """A number's digits as one key whatever its house style: the thousands separators dropped and the decimal
    mark written ".": "1,000", "1.000", "1 000" and "1000" are 1000; "1.5" and "1,5" are 1.5, never 15.

    The last separator is the decimal mark when the digits after it are not three, or when it is not the one
    that parts the groups before it ("1.000,50", "1,000.50"); otherwise every separator parts thousands (a
    point or comma before exactly three digits is read as thousands, as "1.000" is in most of Europe)."""
    groups = [m.group(1) for m in _PARTS.finditer(text) if m.group(1)]
    seps = [m.group() for m in _PARTS.finditer(text) if not m.group(1)]
    if not seps:
        return text
    last = seps[-1]
    decimal = last not in " \u00a0\u202f'" and (len(groups[-1]) != 3 or any(s != last for s in seps[:-1]))
    if decimal:
        return "".join(groups[:-1]) + "." + groups[-1]
    return "".join(groups)


def _normal_key(text: str) -> str:
    """The words of a key group, letter case and punctuation aside; a number by its value (``_number_value``),
    so that "€1.5 million" and "15 million euros" are two amounts, not one."""
    out = []
    pos = 0
    for m in _NUMBER.finditer(text):
        out.append("".join(ch for ch in text[pos:m.start()].casefold() if ch.isalnum()))
        out.append(_number_value(m.group()))
        pos = m.end()
    out.append("".join(ch for ch in text[pos:].casefold() if ch.isalnum()))
    return "".join(out)


def _group_key(pattern: regex.Pattern, row_key: str) -> Callable[[regex.Match], str | None]:
    """Key from the named groups ``key``, ``key2``, ... (in pattern order), else the row."""
    groups = sorted((idx, name) for name, idx in pattern.groupindex.items() if name.startswith("key"))
    if not groups:
        return lambda m: row_key

    def key_of(m: regex.Match) -> str | None:
        return row_key + ":" + "".join(_normal_key(m.group(idx) or "") for idx, _ in groups)

    return key_of


# --------------------------------------------------------------------------
# Generators


def generated_matchers(gen: str, raw: dict, where: str, label: str) -> list[Matcher]:
    flags = regex.IGNORECASE
    if gen == "initialism":
        return _initialisms(strings(raw.get("letters"), where, "letters", label), where, label)
    lo, hi = _range(raw.get("range"), gen, where, label)

    def in_range(parse: Callable[[str], int | None]) -> Callable[[regex.Match], str | None]:
        def key_of(m: regex.Match) -> str | None:
            value = parse(m.group())
            return str(value) if value is not None and lo <= value <= hi else None
        return key_of

    digits, words = {
        "cardinal": ((numbers.CARDINAL_DIGITS_RE, numbers.parse_digits),
                     (numbers.CARDINAL_WORDS_RE, numbers.parse_cardinal)),
        "ordinal": ((numbers.ORDINAL_DIGITS_RE, numbers.parse_digits),
                    (numbers.ORDINAL_WORDS_RE, numbers.parse_ordinal)),
        "year": ((numbers.YEAR_DIGITS_RE, numbers.parse_digits),
                 (numbers.YEAR_WORDS_RE, numbers.parse_year)),
    }[gen]
    return [Matcher(0, regex.compile(digits[0], flags), in_range(digits[1])),
            Matcher(1, regex.compile(words[0], flags), in_range(words[1]))]


def _range(value, gen: str, where: str, label: str) -> tuple[int, int]:
    limits = {"cardinal": (1, 99), "ordinal": (1, 99), "year": (1100, 2099)}[gen]
    if value is None:
        return limits
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            or not limits[0] <= value[0] <= value[1] <= limits[1]):
        raise InputError(f"{where}: 'range' must be [low, high] within {list(limits)} for {gen!r}", label)
    return value[0], value[1]


def _initialisms(letters: list[str], where: str, label: str) -> list[Matcher]:
    """Three arms per initialism: dotted "T.V.", spaced "T. V.", solid "TV".

    Case-sensitive, so the solid "US" never matches the pronoun "us"; a plural
    "s" is part of the match ("MEPs", "M.E.P.s") and of the key.  In a text
    without any lower-case letter (LibriSpeech's raw transcripts, CTC output)
    every word is upper-case, so a solid "US" or "WHO" there is as likely the
    pronoun: the solid arm is switched off for such texts.
    """
    bad = [w for w in letters if not (w.isalpha() and w.isupper() and len(w) >= 2)]
    if not letters or bad:
        raise InputError(f"{where}: 'letters' must list upper-case initialisms of two or more "
                         f"letters, got {bad or letters}", label)
    dotted = [".".join(w) + "." for w in letters]
    spaced = [". ".join(w) + "." for w in letters]
    arms = []
    for forms in (dotted, spaced, list(letters)):
        alternation = "|".join(regex.escape(f).replace(r"\ ", r"\s+")
                               for f in sorted(forms, key=len, reverse=True))
        arms.append(rf"(?<![\w.])(?:{alternation})s?(?!\w)")

    def key_of(m: regex.Match) -> str | None:
        return "".join(ch for ch in m.group() if ch.isalpha())

    def solid_key_of(m: regex.Match) -> str | None:
        if not any(ch.islower() for ch in m.string):
            return None
        return key_of(m)

    return [Matcher(arm, regex.compile(src), solid_key_of if arm == 2 else key_of)
            for arm, src in enumerate(arms)]
