"""The Whisper English normalizer, fast and identical to transformers' ``EnglishTextNormalizer``.

transformers runs ~64 regular-expression passes over every whole string and
a Python loop over its characters.  Almost all of that work is local to one
whitespace-separated token, and text repeats its tokens (Zipf), so this
implementation splits the lowercased string once and computes each
distinct token's result once (``_Tokens``).  Why that is exact, rule by rule
(``s`` is the lowercased string, a *token* a maximal run of non-whitespace):

- Every pattern of the ignore list, the replacers (except the six
  "perfect tense" ones, which contain a space), the digit-comma and the
  period rule matches no whitespace, and its assertions (``\\b``,
  ``[^0-9]``, ``$``) see a whitespace neighbour exactly as they see the
  string's edge (``\\s``, ``str.isspace`` and "not a word character" agree
  on every code point).  So applying the cascade token by token and joining
  with spaces equals applying it to ``s``, up to the amount of whitespace,
  which every later step ignores.  The symbol step decides per character,
  and NFKD never reorders across whitespace (a starter).
- Two rules reach across tokens: ``\\s+'`` (joins an apostrophe to the
  previous word) and the perfect-tense replacers ("'d been").  A string
  where either could fire (whitespace or an ignored word before an
  apostrophe, or one of the literal texts) gets the ignore list and the
  apostrophe join on the whole string first, exactly as transformers does
  (the ignore list removes whole words only, so applying it again per token
  changes nothing); if a perfect-tense text is then present, the replacers
  up to the perfect-tense ones run on the whole string too, in order, and
  the token path goes on from there: per token, the ignore list and the
  whole-word replacers find nothing left to change (no replacement is an
  ignored or a replaced word; a test checks), the perfect-tense ones cannot
  match inside a token, and the rest is token-local as above.
- The number normalizer is a state machine over words.  A word that is not
  a number word and has no digit ("inert") leaves it empty and is output
  unchanged, and as a neighbour it reads like the start or end of the list.
  So each maximal run of non-inert words is processed on its own (memoized
  per run), and its ``postprocess`` matches stay inside the run (they need
  digits, which inert words lack).  Its ``preprocess`` splits letters from
  digits and joins "5 th"; it runs on the whole string when a digit or the
  word "half" is present, and is the identity otherwise.
- Spelling is a per-word map; the last two symbol rules are applied to the
  whole string when it holds one of their symbols.

The number state machine is asraudit's own rewrite of the maintained
port's (``text/english_numbers.py``: the same outputs, one table lookup per
word; tested against ``whisper_normalizer.english.EnglishNumberNormalizer``
call by call); parity of the whole normalizer with transformers is tested
on tens of thousands of strings.

Where the optional C extension ``asraudit.text._whisper_fast`` is built
(``COMPILED``), it is ``EnglishNormalizer``'s base class and does the
per-string path of ``__call__`` and ``tokens``: lowercasing, brackets,
the split, one lookup per token (the fifth table), the inert test, the
join or the words, the memoized number spans and the last symbol rules,
and the number step's walk over words, kinds and runs
(``_numbers_and_spelling``).  It reads the tables this module fills and
calls back into it for a token seen for the first time (``_learn``), a
number span not memoized yet, a word or run not seen yet (``_kind``,
``_run``), cross-token apostrophes (``_prepare``) and "half" (``_half``).
``PythonEnglishNormalizer`` keeps the Python path (``_call_py``,
``_tokens_py``; the whole class without the extension), and the tests
check both against transformers.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from itertools import chain

from asraudit.text.english_numbers import EnglishNumberNormalizer
from asraudit.text.symbols import SPACE_BEFORE_APOSTROPHE, remove_bracketed, remove_symbols_and_diacritics

try:  # the per-string path in C (``_whisper_fast.c``), optional: without it the Python methods below run
    from asraudit.text import _whisper_fast
except ImportError:  # pragma: no cover - depends on the build
    _whisper_fast = None

COMPILED = _whisper_fast is not None

IGNORE = re.compile(r"\b(hmm|mm|mhm|mmm|uh|um)\b")

# (pattern, replacement) in transformers' order; each pattern's literal text
# is the cheap test for whether it can match at all.
_REPLACERS = [
    *((rf"\b{w}\b", r) for w, r in [
        ("won't", "will not"), ("can't", "can not"), ("let's", "let us"), ("ain't", "aint"),
        ("y'all", "you all"), ("wanna", "want to"), ("gotta", "got to"), ("gonna", "going to"),
        ("i'ma", "i am going to"), ("imma", "i am going to"), ("woulda", "would have"),
        ("coulda", "could have"), ("shoulda", "should have"), ("ma'am", "madam"),
        ("mr", "mister "), ("mrs", "missus "), ("st", "saint "), ("dr", "doctor "), ("prof", "professor "),
        ("capt", "captain "), ("gov", "governor "), ("ald", "alderman "), ("gen", "general "),
        ("sen", "senator "), ("rep", "representative "), ("pres", "president "), ("rev", "reverend "),
        ("hon", "honorable "), ("asst", "assistant "), ("assoc", "associate "), ("lt", "lieutenant "),
        ("col", "colonel "), ("jr", "junior "), ("sr", "senior "), ("esq", "esquire "),
    ]),
    *((rf"{w}\b", r) for w, r in [
        ("'d been", " had been"), ("'s been", " has been"), ("'d gone", " had gone"),
        ("'s gone", " has gone"), ("'d done", " had done"), ("'s got", " has got"),
        ("n't", " not"), ("'re", " are"), ("'s", " is"), ("'d", " would"), ("'ll", " will"),
        ("'t", " not"), ("'ve", " have"), ("'m", " am"),
    ]),
]
REPLACERS = [(re.compile(p), r, p.replace(r"\b", "")) for p, r in _REPLACERS]
# The replacers split by whether their text has an apostrophe (those without are all whole-word ones, "mr",
# "gonna").  No replacement holds an apostrophe or a run of word characters that is the text of one without, so
# a string with no apostrophe needs none of the first kind, and one none of whose word-character runs is such a
# text needs none of the second (``\bmr\b`` matches exactly where "mr" is a whole run); a test checks.
APOSTROPHE_REPLACERS = [r for r in REPLACERS if "'" in r[2]]
PLAIN_REPLACERS = [r for r in REPLACERS if "'" not in r[2]]
PLAIN_KEYS = frozenset(literal for _, _, literal in PLAIN_REPLACERS)
WORD_RUN = re.compile(r"\w+")
# The replacers up to the last one that reaches across a space (the perfect tense): run on the whole string
# where a perfect-tense text occurs (``_prepare``).
STRING_REPLACERS = REPLACERS[:max(i for i, (_, _, literal) in enumerate(REPLACERS) if " " in literal) + 1]
# A plain word, maybe followed by punctuation that the symbol step turns into spaces and no
# other rule reads.  Only the whole-word replacers can touch it, and the ignore list.
PLAIN_TOKEN = re.compile(r"([a-z]+)[,;:!?\"]*\.?")  # a lone final "." is a space too
WHOLE_WORD = {p[2:-2]: r for p, r in _REPLACERS if p.startswith(r"\b") and "'" not in p}
IGNORED = frozenset({"hmm", "mm", "mhm", "mmm", "uh", "um"})
DIGIT_COMMA = re.compile(r"(\d),(\d)")
PERIOD = re.compile(r"\.([^0-9]|$)")
LEADING_SYMBOL = re.compile(r"[.$¢€£]([^0-9])")
TRAILING_PERCENT = re.compile(r"([^0-9])%")
DIGIT = re.compile(r"\d")
# Where a string-level rule could fire: whitespace or an ignored word before an
# apostrophe (\s+' joins them), or a perfect-tense replacer's text (it spans a space).
# Written to start with the apostrophe: a pattern that starts with a literal is searched for that
# character first (C speed), one that starts with an alternation is tried at every position (~30x slower).
CROSS_TOKEN = re.compile(r"'(?:(?<=\s')|(?<=(?:mm|uh|um)')|(?<=mhm')|[sd] (?:been|gone|done|got))")
PERFECT_TENSE = re.compile(r"'[sd] (?:been|gone|done|got)")
# A word the "and a half" rule (\band\s+a\s+half\b) can end on: "half", "half$", not "behalf" or "halfway".
HALF_WORD = re.compile(r"half\b")

_CACHE_LIMIT = 400_000  # distinct tokens (or number runs) kept; cleared when full


def _final_symbol(s: str) -> bool:
    """Whether ``s`` holds a character the last two symbol rules (``_symbols``) read."""
    return "." in s or "$" in s or "%" in s or "£" in s or "€" in s or "¢" in s


def _final_words(spelled: str) -> tuple[str, ...] | None:
    """A token's (or number span's) output as words, or None where the last symbol rules could read it.

    Interned: every string built from the token gets the same word objects, whose hashes are computed once
    (the miner aligns and looks up the words of tens of thousands of strings)."""
    return None if _final_symbol(spelled) else tuple(map(sys.intern, spelled.split()))


def _word_cascade(s: str, ignore: bool = True) -> str:
    """The steps before the number normalizer that need no cross-token context, on ``s``."""
    plain = PLAIN_TOKEN.fullmatch(s) if ignore else None
    if plain:  # the cascade's result on such a token, without running its ~50 tests
        word = plain.group(1)
        return "" if word in IGNORED else WHOLE_WORD.get(word, word)
    if ignore and ("mm" in s or "uh" in s or "um" in s or "mhm" in s):
        s = IGNORE.sub("", s)
    if PLAIN_KEYS.isdisjoint(WORD_RUN.findall(s)):
        replacers = APOSTROPHE_REPLACERS if "'" in s else ()
    else:
        replacers = REPLACERS if "'" in s else PLAIN_REPLACERS
    for pattern, replacement, literal in replacers:
        if literal in s:
            s = pattern.sub(replacement, s)
    if "," in s:
        s = DIGIT_COMMA.sub(r"\1\2", s)
    if "." in s:
        s = PERIOD.sub(r" \1", s)
    return remove_symbols_and_diacritics(s)


@lru_cache(maxsize=1)
def _number_normalizer():
    return EnglishNumberNormalizer()


NON_INERT_RUN = re.compile(rb"[\x01\x02]+")  # over a string of word kinds

# Token codes: what a token's words are to the number normalizer.
INERT, SELF, ACTIVE, EMPTY, DIGITS, SUFFIX, HALF = 0, 1, 2, 3, 4, 5, 6
SUFFIX_WORD = re.compile(r"(?:st|nd|rd|th|s)\b")  # what the number preprocess joins to a digit before it
NOT_INERT = re.compile(rb"[^\x00]+")  # over a string of token codes


def _inert(codes: bytes) -> bool:
    """Whether a string of these token codes is its tokens' final spellings joined (see ``EnglishNormalizer``)."""
    return (ACTIVE not in codes and DIGITS not in codes and HALF not in codes
            # find, not `in`: bytes.__contains__ tries its argument as an int first and
            # raises and clears a TypeError for a bytes one, twice the cost
            and (SELF not in codes or (EMPTY not in codes and codes.find(b"\x01\x01") < 0)))


def _empty_tables() -> tuple[dict, dict, dict, dict, dict]:
    """Per-token tables: code, final spelling, words, final words (``_final_words``), and all three of code,
    final spelling and final words in one tuple (the compiled path's one lookup per token)."""
    return {}, {}, {}, {}, {}


class EnglishNormalizer(_whisper_fast.Core if COMPILED else object):
    """Callable: raw string -> Whisper-normalized string (single spaces, no edge spaces).

    Per distinct token it keeps its words after the word-level steps, their
    final spelling, and a code: INERT (no number word, no digit), SELF (one
    number word that, between inert words, comes out as itself: "and",
    "point", "per", "one"), EMPTY (no words left: "um", a dash), DIGITS
    (a digit: the number preprocess must run), SUFFIX (inert, but its first
    word is one the preprocess joins to a preceding number: "th", "s"), HALF
    (the word "half": the preprocess's "and a half" rule works on the whole
    string) or ACTIVE.

    A string of INERT (and SUFFIX) tokens, with SELF ones never next to each
    other, is the joined final spellings.  Otherwise each maximal span of
    non-INERT tokens goes word by word through the number step (memoized per
    span; INERT tokens bound the number normalizer's runs, and the
    preprocess's "5 th" join needs a DIGITS and a SUFFIX token, both in one
    span), and the rest keep their final spellings.  A string with HALF goes
    word by word through ``_finish`` whole.
    """

    asraudit_normalizer = True  # one of asraudit's own: ``normalize.normalizer_argument`` takes it as it is

    def __init__(self, spelling: dict[str, str]):
        numbers = _number_normalizer()
        self._numbers = numbers
        self._number_words = frozenset(numbers.words)
        self._spelling = {k: v for k, v in spelling.items() if k and not any(c.isspace() for c in k)}
        # A value with whitespace would need a final re-split; none has one, but stay exact if so.
        self._resplit = any(not v or " ".join(v.split()) != v for v in self._spelling.values())
        # Per token: code, final spelling, words, final words (``_final_words``), (code, final spelling,
        # final words).  Replaced whole (never cleared in place) when full, so a call in another thread keeps
        # the tables it started with.
        self._tables: tuple[dict[str, int], dict[str, str], dict[str, tuple[str, ...]],
                            dict[str, tuple[str, ...] | None],
                            dict[str, tuple[int, str, tuple[str, ...] | None]]] = _empty_tables()
        self._runs: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._spans: dict[tuple[str, ...], str] = {}
        self._span_finals: dict[tuple[str, ...], tuple[str, ...] | None] = {}
        self._span_words: dict[tuple[bool, str], str] = {}
        self._active: dict[str, int] = {}

    def __getstate__(self) -> dict:
        """The attributes to pickle, those the compiled base keeps outside ``__dict__`` included."""
        state = dict(self.__dict__)
        for name in ("_tables", "_resplit", "_spans", "_span_finals"):
            state[name] = getattr(self, name)
        return state

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    # -- per word -------------------------------------------------------------------------------

    def _kind(self, word: str) -> int:
        """0: inert to the number normalizer; 1: a number word; 2: needs its preprocess (a digit, "half")."""
        kind = self._active.get(word)
        if kind is None:
            # a word of letters only has no digit (\d is category Nd, never a letter's)
            if (not word.isalpha() and DIGIT.search(word)) or (word.startswith("half") and HALF_WORD.match(word)):
                kind = 2
            else:
                kind = 1 if word in self._number_words else 0
            if len(self._active) >= _CACHE_LIMIT:
                self._active.clear()
            self._active[word] = kind
        return kind

    def _learn(self, token: str, tables: tuple[dict, dict, dict, dict, dict]) -> None:
        """Fill the per-token ``tables`` for ``token``."""
        words = tuple(_word_cascade(token).split())
        if len(words) == 1:  # most tokens: the same decisions without the generator expressions below
            word = words[0]
            kind = self._active.get(word)
            if kind is None:
                kind = self._kind(word)
            spelled = self._spelling.get(word, word)
            if kind == 0:  # "half" is kind 2, so HALF is decided below
                code = SUFFIX if SUFFIX_WORD.match(word) else INERT
            elif kind == 2:
                code = HALF if HALF_WORD.match(word) else DIGITS
            else:
                code = SELF if self._run(words) == (spelled,) else ACTIVE
            if "." in spelled or "$" in spelled or "%" in spelled or "£" in spelled or "€" in spelled or "¢" in spelled:
                final = None  # _final_words, inline
            elif self._resplit:
                final = tuple(map(sys.intern, spelled.split()))
            else:  # one word: no spelling value holds whitespace or is empty (_resplit)
                final = (sys.intern(spelled),)
            tables[0][token], tables[1][token], tables[2][token] = code, spelled, words
            tables[3][token] = final
            tables[4][token] = code, spelled, final
            return
        kind = max((self._kind(w) for w in words), default=0)
        spelled = " ".join(self._spelling.get(w, w) for w in words)
        if not words:
            code = EMPTY
        elif any(HALF_WORD.match(w) for w in words):
            code = HALF
        elif kind == 2:
            code = DIGITS
        elif kind == 0:
            code = SUFFIX if SUFFIX_WORD.match(words[0]) else INERT
        elif kind == 1 and len(words) == 1 and self._run(words) == (spelled,):
            code = SELF
        else:
            code = ACTIVE
        tables[0][token], tables[1][token], tables[2][token] = code, spelled, words
        tables[3][token] = final = _final_words(spelled)
        tables[4][token] = code, spelled, final

    def _run(self, run: tuple[str, ...]) -> tuple[str, ...]:
        """A maximal run of non-inert words through the number normalizer, then spelling."""
        out = self._runs.get(run)
        if out is None:
            numbers = self._numbers
            text = " ".join(w for w in numbers.process_words(list(run)) if w is not None)
            # postprocess's three rules need a currency symbol (two) or a "1" (one); most runs have neither.
            if "1" in text or "$" in text or "£" in text or "€" in text:
                text = numbers.postprocess(text)
            out = tuple(self._spelling.get(w, w) for w in text.split())
            if len(self._runs) >= _CACHE_LIMIT:
                self._runs.clear()
            self._runs[run] = out
        return out

    # -- per string -----------------------------------------------------------------------------

    def _prepare(self, s: str) -> str:
        """The string-level steps on lowercased ``s`` that holds a bracket or a cross-token apostrophe: the
        string the token path goes on with (see the module docstring)."""
        if "[" in s or "<" in s or "(" in s:
            s = remove_bracketed(s)
        if "'" in s and CROSS_TOKEN.search(s):
            # The ignore list and the apostrophe join on the whole string; the ignore list
            # removes whole words only, so the token path may apply it again unchanged.
            s = SPACE_BEFORE_APOSTROPHE.sub("'", IGNORE.sub("", s))
            if PERFECT_TENSE.search(s):
                for pattern, replacement, literal in STRING_REPLACERS:
                    if literal in s:
                        s = pattern.sub(replacement, s)
        return s

    def _half(self, tokens, tables: tuple[dict, ...]) -> str:
        """A string with the word "half": its tokens' words through ``_finish`` whole."""
        return self._finish([w for t in tokens for w in tables[2][t]], 2)

    def _call_py(self, text: str) -> str:
        """``__call__`` in Python (the compiled ``Core`` does the same in C, calling back for the rest)."""
        s = text.lower()
        if "[" in s or "<" in s or "(" in s or ("'" in s and CROSS_TOKEN.search(s)):
            s = self._prepare(s)
        tokens = s.split()
        tables = self._tables
        if len(tables[0]) >= _CACHE_LIMIT:  # forget between strings, never while one is in hand
            tables = self._tables = _empty_tables()
        code_of, spelled = tables[0], tables[1]
        try:
            codes = bytes(map(code_of.get, tokens))
        except TypeError:  # a token seen for the first time
            for t in tokens:
                if t not in code_of:
                    self._learn(t, tables)
            codes = bytes(map(code_of.get, tokens))
        if _inert(codes):
            if EMPTY in codes or self._resplit:  # a token with no words (or a spelling to ""): left out
                return self._symbols(" ".join(filter(None, map(spelled.get, tokens))))
            return self._symbols(" ".join(map(spelled.get, tokens)))
        if HALF in codes:
            return self._half(tokens, tables)
        out: list[str] = []
        pos = 0
        for m in NOT_INERT.finditer(codes):
            start, end = m.span()
            out.extend(map(spelled.get, tokens[pos:start]))
            out.append(self._span(tuple(tokens[start:end]), tables))
            pos = end
        out.extend(map(spelled.get, tokens[pos:]))
        return self._symbols(" ".join(filter(None, out)))

    def _tokens_py(self, text: str) -> tuple[str, ...]:
        """``tuple(self(text).split())``, without joining the words and splitting them again.

        A string of tokens seen before, with no bracket and no cross-token apostrophe, is put together from
        each token's final words (and each number span's), the same pieces ``__call__`` joins; where the last
        symbol rules could read one of them (a "." or "%" left in the output), or anything else is unusual,
        the string takes ``__call__``.  The words are shared objects (``_final_words``)."""
        s = text.lower()
        if not ("[" in s or "<" in s or "(" in s or ("'" in s and CROSS_TOKEN.search(s))):
            tokens = s.split()
            tables = self._tables
            final = tables[3]
            try:  # a TypeError: a token seen for the first time (no code), or a piece the symbol rules read
                codes = bytes(map(tables[0].get, tokens))
                if _inert(codes):
                    return tuple(chain.from_iterable(map(final.get, tokens)))
                if HALF not in codes:
                    out: list[str] = []
                    pos = 0
                    for m in NOT_INERT.finditer(codes):
                        start, end = m.span()
                        out.extend(chain.from_iterable(map(final.get, tokens[pos:start])))
                        out.extend(self._span_final(tuple(tokens[start:end]), tables))
                        pos = end
                    out.extend(chain.from_iterable(map(final.get, tokens[pos:])))
                    return tuple(out)
            except TypeError:
                pass
        return tuple(self(text).split())

    def _span_final(self, span: tuple[str, ...], tables: tuple[dict, ...]) -> tuple[str, ...] | None:
        """``_final_words`` of ``_span`` (memoized alongside it)."""
        try:
            return self._span_finals[span]
        except KeyError:
            out = _final_words(self._span(span, tables))
            if len(self._span_finals) >= _CACHE_LIMIT:
                self._span_finals.clear()
            self._span_finals[span] = out
            return out

    def _span(self, span: tuple[str, ...], tables: tuple[dict, ...]) -> str:
        """A maximal span of non-INERT tokens through the number step and spelling (memoized)."""
        out = self._spans.get(span)
        if out is None:
            # The output depends on the span's words only, and many spans differ in their tokens'
            # punctuation alone ("20," and "20"): a second table keyed by the words catches those.
            digits = any(tables[0][t] == DIGITS for t in span)
            text = " ".join([w for t in span for w in tables[2][t]])
            out = self._span_words.get((digits, text))
            if out is None:
                out = " ".join(self._numbers_and_spelling((self._preprocess(text) if digits else text).split()))
                if len(self._span_words) >= _CACHE_LIMIT:
                    self._span_words.clear()
                self._span_words[digits, text] = out
            if len(self._spans) >= _CACHE_LIMIT:
                self._spans.clear()
            self._spans[span] = out
        return out

    def _preprocess(self, s: str) -> str:
        """The number normalizer's ``preprocess`` (``english_numbers``: its "and a half" step only where "half"
        occurs, its digit rules only where a digit does)."""
        return self._numbers.preprocess(s)

    def _finish(self, words: list[str], kind: int) -> str:
        """Numbers (run by run), spelling and the last symbol rules, from the word-level output.

        ``kind`` 2 (a digit or "half" somewhere) runs the number preprocess on the whole string first."""
        if kind == 2:
            words = self._preprocess(" ".join(words)).split()
        return self._symbols(" ".join(self._numbers_and_spelling(words)))

    def _numbers_and_spelling_py(self, words: list[str]) -> list[str]:
        """The number normalizer run by run of non-inert words, and every word's spelling."""
        try:
            kinds = bytes(map(self._active.get, words))
        except TypeError:  # a word seen for the first time
            kinds = bytes(map(self._kind, words))
        spell = self._spelling.get
        out: list[str] = []
        pos = 0
        for m in NON_INERT_RUN.finditer(kinds):
            start, end = m.span()
            out.extend(map(spell, words[pos:start], words[pos:start]))
            out.extend(self._run(tuple(words[start:end])))
            pos = end
        out.extend(map(spell, words[pos:], words[pos:]))
        return out

    def _symbols_py(self, s: str) -> str:
        if "." in s or "$" in s or "%" in s or "£" in s or "€" in s or "¢" in s:  # FINAL_SYMBOLS, 10x faster
            s = TRAILING_PERCENT.sub(r"\1 ", LEADING_SYMBOL.sub(r" \1", s))
            return " ".join(s.split())
        return " ".join(s.split()) if self._resplit else s


if not COMPILED:  # pragma: no cover - depends on the build
    EnglishNormalizer.__call__ = EnglishNormalizer._call_py  # type: ignore[method-assign]
    EnglishNormalizer.tokens = EnglishNormalizer._tokens_py  # type: ignore[attr-defined]
    EnglishNormalizer._numbers_and_spelling = EnglishNormalizer._numbers_and_spelling_py
    EnglishNormalizer._symbols = EnglishNormalizer._symbols_py
else:  # the same steps in C, for the number spans and the "half" path
    EnglishNormalizer._numbers_and_spelling = _whisper_fast.Core._numbers_and_spelling_c
    EnglishNormalizer._symbols = _whisper_fast.Core._symbols_c
    _whisper_fast.configure(globals())


class PythonEnglishNormalizer(EnglishNormalizer):
    """``EnglishNormalizer`` with its per-string path in Python even where the compiled one is built
    (what the parity tests and benchmarks compare the compiled path with)."""

    __call__ = EnglishNormalizer._call_py
    tokens = EnglishNormalizer._tokens_py
    _numbers_and_spelling = EnglishNormalizer._numbers_and_spelling_py
    _symbols = EnglishNormalizer._symbols_py
