"""The basic normalizer, fast and identical to transformers' ``BasicTextNormalizer``.

Where the optional C extension ``asraudit.text._basic_fast`` is built (``COMPILED``), ``BasicNormalizer``
is that module's ``normalize``: each string in one or a few C passes, characters' properties asked of this
Python's ``str`` and ``unicodedata`` once each and kept (``_basic_fast.c`` says why each shortcut is exact).
Without a compiler it is ``PythonBasicNormalizer``, the pure-Python path below; tests check both against
transformers on the same strings.

transformers lowercases, removes bracketed spans, applies NFKC, turns every
mark, symbol and punctuation character (category M*, S*, P*) into a space in
a Python loop over the characters, lowercases again and collapses
whitespace.  The pure-Python path (``PythonBasicNormalizer``):

- ASCII text (most text) stays in CPython's C string methods: bracketed spans, then one 256-byte
  table that lowercases and turns symbols and whitespace into spaces (for
  ASCII, lowercasing before and after the symbol step is one step), then
  runs of spaces halved until none is left: a string holds a few short
  runs, so that is two or three C passes, cheaper than splitting it into
  words and joining them.
- Other text is lowercased and its bracketed spans removed as a whole, then
  split at whitespace, and each *distinct token* goes through NFKC, the
  symbol table, the second lowercase and the collapse once (``_Tokens``);
  the string is its tokens' results joined by spaces, empty ones left out.
  Text repeats its tokens, so most strings cost one split, one dictionary
  lookup per token and one join, instead of several passes over every
  character (NFKC's check alone costs about as much as all of that).
- Except a string of over ``_LONG`` characters (a sentence with a few
  accented letters): there the per-token lookups cost more than transformers'
  steps done on the whole string in C (NFKC, ``symbols.remove_symbols``'s
  table, lowercase, split and join), which it gets.  Both paths are exact;
  the length only chooses the faster one (measured on VoxPopuli text and
  the rule-pool strings of ``benchmarks/normalizer_speed.py``).

Why the token path is exact: every step after the brackets works within
whitespace-separated tokens.  NFKC never composes or reorders across a
whitespace character (each is a starter, and none is one of the two
characters of any canonical decomposition, the only pairs composition
joins: a test checks both over all of Unicode), and it maps
whitespace to whitespace; the symbol step decides per character and keeps
whitespace; ``str.lower`` looks at neighbours only for the Greek final
sigma, through cased and case-ignorable characters, and whitespace is
neither; the collapse treats the whitespace inside a token's result (NFKC
can produce some: "¨" is a space and a combining mark) as the joining
spaces.  So normalizing token by token and joining with single spaces
gives transformers' output with its whitespace collapsed.
"""

from __future__ import annotations

from asraudit.text.symbols import remove_bracketed, remove_symbols

try:
    from asraudit.text import _basic_fast
except ImportError:  # not built (no C compiler at install): the pure-Python path
    _basic_fast = None

COMPILED = _basic_fast is not None

# transformers' symbol rule for ASCII, with capitals lowercased and whitespace (\t\n\v\f\r and
# the separators \x1c-\x1f, all whitespace to str.split) mapped to a space.
_ASCII = bytes(
    32 if chr(c).isspace() or chr(c) in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
    else (c + 32 if 65 <= c <= 90 else c)
    for c in range(128)
) + bytes(range(128, 256))

_LONG = 100  # characters; a longer string is normalized whole (see the module docstring)
_CACHE_LIMIT = 400_000  # distinct tokens kept; the table is replaced when full


def _token(token: str) -> str:
    """One whitespace-free, lowercased token through NFKC, the symbol step, lowercase and the collapse."""
    return " ".join(remove_symbols(token).lower().split())


class _Tokens(dict):
    """Token -> its normalized text, computed the first time a token is looked up."""

    def __missing__(self, token: str) -> str:
        out = self[token] = _token(token)
        return out


class PythonBasicNormalizer:
    """Callable: raw string -> transformers' ``BasicTextNormalizer()`` output with single spaces, no edge spaces."""

    asraudit_normalizer = True  # one of asraudit's own: ``normalize.normalizer_argument`` takes it as it is

    def __init__(self) -> None:
        self._tokens = _Tokens()

    def __call__(self, s: str) -> str:
        if s.isascii():
            if "[" in s or "<" in s or "(" in s:
                s = remove_bracketed(s)
            s = s.encode("ascii").translate(_ASCII).decode("ascii")
            while "  " in s:
                s = s.replace("  ", " ")
            return s.strip(" ")
        s = s.lower()
        if "[" in s or "<" in s or "(" in s:
            s = remove_bracketed(s)
        if len(s) > _LONG:
            return " ".join(remove_symbols(s).lower().split())
        tokens = self._tokens
        if len(tokens) >= _CACHE_LIMIT:  # replaced whole, so a call in another thread keeps its table
            tokens = self._tokens = _Tokens()
        return " ".join(filter(None, map(tokens.__getitem__, s.split())))


if _basic_fast is not None:

    class BasicNormalizer:
        """``PythonBasicNormalizer``'s output, computed in C (``_basic_fast.normalize``); keeps no state."""

        __slots__ = ()
        asraudit_normalizer = True  # one of asraudit's own: ``normalize.normalizer_argument`` takes it as it is
        __call__ = staticmethod(_basic_fast.normalize)

else:
    BasicNormalizer = PythonBasicNormalizer  # type: ignore[misc]
