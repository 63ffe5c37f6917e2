"""Compile many literal spellings into one fast regular expression.

A spelling family lists hundreds of literal strings (every stem times every
suffix: colour, colours, coloured, colourful, ...).  A flat alternation makes
the regex engine try each string at each position of each transcript; a
prefix tree (trie) shares the common prefixes, so a failing position costs one
character comparison instead of hundreds.

Spaces inside a literal match any run of whitespace ("per  cent"), and each
literal gets a word boundary only on a side where it begins or ends with a
word character: "%" must match right after a digit ("20%"), "anyone" must not
match inside "manyone".
"""

from __future__ import annotations

import regex

_END = ""  # trie key marking the end of a literal


def _trie(words: list[str]) -> dict:
    root: dict = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[_END] = {}
    return root


def _atom(ch: str) -> str:
    return r"\s+" if ch == " " else regex.escape(ch)


def _trie_pattern(node: dict) -> str:
    """Regex for every literal below ``node``, longest alternative first."""
    branches = []
    optional = False
    for ch in sorted(node, reverse=True):  # "" (the end marker) sorts last
        if ch == _END:
            optional = True
            continue
        branches.append(_atom(ch) + _trie_pattern(node[ch]))
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if optional:
        # Greedy "?" tries the longer literal first, as leftmost-longest wants.
        body = "(?:" + body + ")?"
    return body


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def literal_patterns(literals: list[str]) -> list[str]:
    """Regex sources that together match any of ``literals``.

    Literals are grouped by whether they begin and end with a word character,
    so each group gets exactly the boundaries it needs; one source per group,
    because an alternation of groups would let a shorter literal of an earlier
    group win over a longer one of a later group ("Mr" over "Mr.").  The caller
    resolves overlaps leftmost-longest across sources.
    """
    groups: dict[tuple[bool, bool], list[str]] = {}
    for lit in dict.fromkeys(" ".join(lit.split()) for lit in literals if lit.strip()):
        groups.setdefault((_is_word_char(lit[0]), _is_word_char(lit[-1])), []).append(lit)
    if not groups:
        raise ValueError("no literals to match")
    sources = []
    for (word_start, word_end), lits in sorted(groups.items()):
        before = r"(?<!\w)" if word_start else ""
        after = r"(?!\w)" if word_end else ""
        sources.append(f"{before}(?:{_trie_pattern(_trie(lits))}){after}")
    return sources


def literal_key(text: str, case_sensitive: bool) -> str:
    """The dictionary key of a matched literal: whitespace collapsed, lower-cased
    unless the family is case-sensitive.

    ``lower`` rather than ``casefold``: casefolding turns "ß" into "ss", which
    would make the German "Straße" and the Swiss "Strasse" one literal (and
    the regex's case-insensitive match, which folds simply, would then never
    find "Straße")."""
    text = " ".join(text.split())
    return text if case_sensitive else text.lower()
