"""Text normalizers: Whisper English, basic (language-independent), basic for one language, and none.

The Whisper English normalizer is what the paper, the Open ASR Leaderboard and
published WERs use.  It is the hot spot of every text probe, so asraudit runs
its own implementation (``whisper_english.py``: each distinct token is
normalized once, see there for why that is exact) whose output is identical
to transformers' ``EnglishTextNormalizer``; tests prove parity on tens of
thousands of generated and real strings.  ``reference_normalizer`` keeps the
slow path (the ``whisper-normalizer`` package's port, as transformers does
it) for those tests and the benchmark.  ``normalize_many`` spreads a large
corpus over the CPU cores, except where the compiled normalizers are built:
shipping strings to workers costs more than they take to normalize.

Unicode format characters (category Cf: zero-width space U+200B, zero-width
(non-)joiner U+200C/U+200D, word joiner U+2060, BOM U+FEFF, soft hyphen
U+00AD, bidi marks, ...) are removed before any normalizer runs.  They are
invisible, carry no word, and the Whisper normalizer keeps them, so
"hel\u200blo" would be a substitution for "hello".  This is the one place
asraudit departs from transformers' EnglishTextNormalizer; on text without
format characters the output is identical.

``basic-es``, ``basic-fr``, ... (``text/basic_languages.py``) are the basic
normalizer made for one language: its letters, diacritics and word-internal
apostrophes kept, French and Italian elisions split off;
``get_normalizer("basic", language="fr")`` is the same as ``"basic-fr"``.

Normalization erases spellings that sound alike (Mr/Mister, 20/twenty).  The
rendering-convention probe needs those, so callers keep the raw text next to
the normalized one; nothing in asraudit stores normalized text only.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Sequence

from asraudit.errors import InputError
from asraudit.text.basic_language_codes import BASIC_LANGUAGES, LANGUAGE_NORMALIZERS, language_code
from asraudit.text import basic_normalizer, whisper_english
from asraudit.text.basic_normalizer import BasicNormalizer
from asraudit.text.spelling import spelling_table
from asraudit.text.whisper_english import EnglishNormalizer

if TYPE_CHECKING:
    import multiprocessing.context

Normalizer = Callable[[str], str]

NORMALIZERS = ("whisper", "basic", "none", "leaderboard")  # leaderboard: text/leaderboard_english.py


class _FormatCharacters(dict):
    """A translate table deleting category-Cf characters, deciding each code point when first seen
    (scanning all of Unicode up front cost a second at every start)."""

    def __missing__(self, code: int) -> str | None:
        out = self[code] = None if unicodedata.category(chr(code)) == "Cf" else chr(code)
        return out


_FORMAT_CHARACTERS = _FormatCharacters()


@lru_cache(maxsize=1)
def _format_or_astral() -> re.Pattern:
    """A character class of the format characters of the Basic Multilingual Plane and of every character
    beyond it (those are decided one by one, by ``_FORMAT_CHARACTERS``).

    ``str.translate`` looks every character up in the table, ~50 ns each; this class is one bitmap
    test per character in C, and calls Python only where it matches (a format character, an emoji).
    Astral ranges stay one range: ``re`` tests each range of a class beyond the BMP in turn.  Built on
    first use from this Python's Unicode database (~20 ms)."""
    ranges: list[list[int]] = []
    for code in range(0x80, 0x10000):
        if unicodedata.category(chr(code)) == "Cf":
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1][1] = code
            else:
                ranges.append([code, code])
    bmp = "".join(f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges)
    return re.compile(f"[{bmp}\\U00010000-\\U0010ffff]")


_STRIP_FORMAT = basic_normalizer._basic_fast.strip_format if basic_normalizer.COMPILED else None


def _format_character(match: re.Match) -> str:
    return _FORMAT_CHARACTERS[ord(match.group())] or ""


def strip_format_characters(text: str) -> str:
    """``text`` without Unicode format characters (category Cf; see the module docstring)."""
    if _STRIP_FORMAT is not None:  # in C, from the compiled basic normalizer's character table
        return _STRIP_FORMAT(text)
    return python_strip_format_characters(text)


def python_strip_format_characters(text: str) -> str:
    """``strip_format_characters`` in Python (the path without the compiled module, and its tests' peer)."""
    # No Cf character is ASCII or printable (Cf is "Other"), and both tests run in C.
    try:
        return text if text.isascii() or text.isprintable() else _format_or_astral().sub(_format_character, text)
    except AttributeError:  # free until raised: the normalizers' hot path pays nothing for the check
        raise not_text(text) from None


def not_text(value: object) -> TypeError:
    """What a normalizer says when given something other than a str (None, a pandas NaN, a number)."""
    return TypeError(f"a normalizer takes a str, got {value!r}")


def comparable(text: str) -> str:
    """``text`` in the form two raw texts are compared in: whitespace collapsed, and composed (NFC), since "café"
    written with one code point or with "e" and a combining accent is the same text (a file saved on a Mac, or by
    another tool, decomposes it)."""
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return " ".join(text.split())


def _identity(text: str) -> str:
    """The ``none`` normalizer: drops format characters, composes (NFC) and collapses whitespace, so that
    tokenization is stable and no invisible difference is counted as an error."""
    return comparable(strip_format_characters(text))


# The basic normalizer of each language with a convention catalogue ("basic-es", "basic-fr", ...).
NORMALIZERS = NORMALIZERS + LANGUAGE_NORMALIZERS


class _WithoutFormatCharacters:
    """A language's basic normalizer after the format characters are removed (a plain object: picklable)."""

    asraudit_normalizer = True  # one of asraudit's own: ``normalize.normalizer_argument`` takes it as it is

    def __init__(self, language: str):
        # Local: basic_languages compiles its patterns with ``regex`` at import; English runs never need it.
        from asraudit.text.basic_languages import language_basic_normalizer

        self.language = language
        self.inner = language_basic_normalizer(language)

    def __call__(self, text: str) -> str:
        return self.inner(strip_format_characters(text))

    def __reduce__(self):
        return (_language_normalizer, (self.language,))


@lru_cache(maxsize=None)
def _language_normalizer(language: str) -> Normalizer:
    return _WithoutFormatCharacters(language)


def _language_code(language: object) -> str:
    """``get_normalizer``'s ``language``: an ISO 639-1 code of a basic normalizer (or "en"), in any case ("FR" is
    "fr": language codes are case-insensitive); anything else is refused naming the argument."""
    choices = f"en, {', '.join(BASIC_LANGUAGES)}"
    if not isinstance(language, str):
        raise InputError(f"language is an ISO 639-1 code (a str), one of {choices}, got {language!r}")
    code = language_code(language)
    if code != "en" and code not in BASIC_LANGUAGES:
        raise InputError(f"language {language!r} has no basic normalizer: choose one of {choices}")
    return code


def _for_language(name: str, language: object) -> Normalizer:
    """``name`` for ``language``: "basic" (or "basic-xx") becomes that language's basic normalizer; the
    Whisper normalizer is English only; "none" is the same in every language."""
    code = None if language is None else _language_code(language)
    if name.startswith("basic-"):
        named = name[len("basic-"):]
        if named != "en" and named not in BASIC_LANGUAGES:
            raise InputError(f"unknown normalizer {name!r}; choose one of {', '.join(NORMALIZERS)}")
        if code not in (None, named):
            raise InputError(f"normalizer {name} does not match language {language!r}: give one of them, or "
                             f"basic with language={code!r}")
        name, code = "basic", named
    if code in (None, "en"):
        return get_normalizer(name)
    if name == "none":
        return _identity
    if name == "basic":
        return _language_normalizer(code)
    if name in NORMALIZERS:
        raise InputError(f"normalizer {name!r} is for English text; for language {language!r} use "
                         f"basic (basic-{code}) or none")
    raise InputError(f"unknown normalizer {name!r}; choose one of {', '.join(NORMALIZERS)}")


@lru_cache(maxsize=None)
def _reference_english() -> Normalizer:
    from whisper_normalizer.english import EnglishTextNormalizer

    normalizer = EnglishTextNormalizer()
    # The port adds four replacers that openai/whisper and transformers do not
    # have; "cause" -> "because" rewrites a real word ("a good cause"), which
    # broke parity on VoxPopuli references.  Drop them to match the original.
    for extra in (r"\bkinda\b", r"\bsorta\b", r"\bdunno\b", r"\bcause\b"):
        normalizer.replacers.pop(extra, None)
    return normalizer


@lru_cache(maxsize=None)
def _reference_basic() -> Normalizer:
    from whisper_normalizer.basic import BasicTextNormalizer

    return BasicTextNormalizer()


@lru_cache(maxsize=None)
def _fast_english() -> Normalizer:
    return EnglishNormalizer(spelling_table())


def _collapsed(name: str, inner: Normalizer) -> Normalizer:
    def normalize(text: str) -> str:
        return " ".join(inner(strip_format_characters(text)).split())

    normalize.__name__ = f"normalize_{name}"
    normalize.asraudit_normalizer = True  # type: ignore[attr-defined]
    return normalize


def get_normalizer(name: str, language: str | None = None) -> Normalizer:
    """Return the normalizer called ``name`` (one of ``NORMALIZERS``), for ``language`` when given.

    Every returned function maps a raw string to a string of space-separated
    tokens with no leading, trailing or repeated spaces.  The functions are
    plain module-level objects, so they can be sent to worker processes.
    ``language`` (an ISO 639-1 code, in any case; None or "en": English) turns
    "basic" into that language's basic normalizer, the same as the name
    ``basic-<code>``.  A name or code it does not know is an ``InputError``.
    """
    if not isinstance(name, str):
        raise InputError(f"a normalizer is named by a string, one of {', '.join(NORMALIZERS)}, got {name!r}")
    if language is not None or name.startswith("basic-"):
        return _for_language(name, language)
    if name == "none":
        return _identity
    if name == "whisper":
        return normalize_whisper
    if name == "basic":
        return normalize_basic
    if name == "leaderboard":
        return normalize_leaderboard
    raise InputError(f"unknown normalizer {name!r}; choose one of {', '.join(NORMALIZERS)}")


def own_normalizer(value: object) -> bool:
    """Whether ``value`` is one of asraudit's normalizers: what ``get_normalizer`` returns, an instance of a
    normalizer class of ``asraudit.text``, a cache over one, or a function ``normalizer_argument`` checks.  Each
    says so itself (``asraudit_normalizer``); a class is none (called on a text, it would build an object)."""
    return not isinstance(value, type) and getattr(value, "asraudit_normalizer", False) is True


def _called_name(value: object) -> str:
    label = getattr(value, "__qualname__", None) or getattr(value, "__name__", None) or type(value).__qualname__
    return str(label)


def _takes_one_text(value: Callable, name: str) -> None:
    """``value`` can be called with one text.  A function of more arguments (``f(text, language)``) was a
    ``TypeError`` traceback, after the files were read, on the first text it was given."""
    import inspect  # local: the normalizers' import stays light

    try:
        signature = inspect.signature(value)
    except (ValueError, TypeError):  # no signature to read (some built-ins): its first text says
        return
    try:
        signature.bind("text")
    except TypeError:
        raise InputError(f"{name} is called with one text and returns it normalized, but "
                         f"{_called_name(value)}{signature} cannot be called with one argument: "
                         "pass a function of a str to a str") from None


def normalizer_argument(value: object, name: str = "normalizer") -> Normalizer:
    """The normalizer a Python caller means: a name (``get_normalizer``) or a function of a str to a str.

    A function of the caller's own must take one text, and is checked on every text it returns: one that
    returns None or a list of words (``str.split``) failed deep in the aligner as ``'NoneType' object has no
    attribute 'split'``.  asraudit's own normalizers (``own_normalizer``; and their caches) go unwrapped, so
    their fast token paths stay.  Any other callable of asraudit is not a normalizer, and is refused before any
    work: ``get_normalizer`` itself (not called) was applied to each text, as a normalizer's name
    (``unknown normalizer 'the cat sat ...'`` once the files were read), ``load_predictions`` read a text as a
    path, and ``corpus_wer`` was a ``TypeError`` traceback."""
    if isinstance(value, str):
        return get_normalizer(value)
    if not callable(value):
        raise InputError(f"{name} is a normalizer's name ({', '.join(NORMALIZERS)}) or a function of a str to a "
                         f"str, got {value!r}")
    if own_normalizer(value):
        return value
    module = getattr(value, "__module__", None) or type(value).__module__ or ""
    if module == "asraudit" or module.startswith("asraudit."):
        if value is get_normalizer:
            raise InputError(f"{name} is get_normalizer itself, which builds a normalizer from a name: call it "
                             "(get_normalizer('whisper')), or pass the name ('whisper')")
        raise InputError(f"{name} is {module}.{_called_name(value)}, which is not a normalizer: pass a "
                         f"normalizer's name ({', '.join(NORMALIZERS)}), one get_normalizer returns, or a function "
                         "of a str to a str")
    _takes_one_text(value, name)

    def checked(text: str) -> str:
        out = value(text)
        if not isinstance(out, str):
            shown = repr(out) if len(repr(out)) <= 60 else repr(out)[:57] + "..."
            raise InputError(f"{name} returned {shown} for {text!r}: a normalizer returns a str (the words "
                             "joined by spaces)")
        return out

    checked.asraudit_normalizer = True  # type: ignore[attr-defined]  # checked: a cache over it goes unwrapped
    return checked


def normalize_whisper(text: str) -> str:
    """The Whisper English normalizer (transformers' ``EnglishTextNormalizer``), format characters removed."""
    return _fast_english()(strip_format_characters(text))


def _whisper_tokens(text: str) -> tuple[str, ...]:
    """``tuple(normalize_whisper(text).split())`` (``EnglishNormalizer.tokens``)."""
    return _fast_english().tokens(strip_format_characters(text))


# A normalizer's ``tokens`` attribute, where it has one, gives ``tuple(normalizer(text).split())`` without the join
# and the split (``tokens_of``); the miner tokenizes every distinct string of a leaderboard.
normalize_whisper.tokens = _whisper_tokens  # type: ignore[attr-defined]


def tokens_of(normalize: Normalizer) -> Callable[[str], tuple[str, ...]]:
    """A function giving ``tuple(normalize(text).split())``: the normalizer's own ``tokens`` where it has one."""
    fast = getattr(normalize, "tokens", None)
    if fast is not None:
        return fast
    return lambda text: tuple(normalize(text).split())


_BASIC = BasicNormalizer()  # its token table fills as text comes (text/basic_normalizer.py)


# The compiled basic normalizer removes the format characters itself, in the same pass.
_BASIC_TEXT = basic_normalizer._basic_fast.normalize_text if basic_normalizer.COMPILED else None


def normalize_basic(text: str) -> str:
    """The basic normalizer (transformers' ``BasicTextNormalizer``), format characters removed."""
    if _BASIC_TEXT is not None:
        return _BASIC_TEXT(text)
    try:
        return _BASIC(text if text.isascii() else strip_format_characters(text))
    except AttributeError:
        if isinstance(text, str):
            raise
        raise not_text(text) from None


def normalize_leaderboard(text: str) -> str:
    """The Open ASR Leaderboard's English normalizer (``leaderboard_english``), format characters removed."""
    from asraudit.text.leaderboard_english import leaderboard_english

    return leaderboard_english()(strip_format_characters(text))


# What get_normalizer returns, marked as asraudit's own (``own_normalizer``): taken unwrapped where a normalizer goes.
for _own in (_identity, normalize_whisper, normalize_basic, normalize_leaderboard):
    _own.asraudit_normalizer = True  # type: ignore[attr-defined]


def reference_normalizer(name: str) -> Normalizer:
    """The slow, string-at-a-time path of ``name`` ("whisper" or "basic"), for parity tests and benchmarks."""
    if name == "whisper":
        return _collapsed(name, _reference_english())
    if name == "basic":
        return _collapsed(name, _reference_basic())
    raise ValueError(f"no reference path for normalizer {name!r}")


# Below this many strings the process pool's start-up (~0.5 s per worker) costs more than it saves.
PARALLEL_THRESHOLD = 20_000
_CHUNK = 5_000


def available_cpus() -> int:
    """CPUs this process may run on (the affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def worker_context() -> multiprocessing.context.BaseContext:
    """How worker processes start: fork where that is safe, else spawn.

    Fork (Linux, only the main thread running, torch not loaded) starts a worker in
    milliseconds and needs no importable main module, so it also works from a script
    without a ``__main__`` guard.  A process holding other threads (torch, Ray) could
    be copied mid-operation, so there workers are spawned instead."""
    import multiprocessing  # local, like the pool: most runs never start a worker

    if sys.platform == "linux" and threading.active_count() == 1 and "torch" not in sys.modules:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _normalize_list(name: str, texts: Sequence[str]) -> list[str]:
    if name == "basic" and basic_normalizer.COMPILED:  # the whole list in C
        return basic_normalizer._basic_fast.normalize_list(texts if isinstance(texts, list) else list(texts))
    normalize = get_normalizer(name)
    return [normalize(t) for t in texts]


def in_one_process(name: str) -> bool:
    """Whether ``normalize_many`` keeps normalizer ``name`` in this process whatever its arguments."""
    return (name == "basic" and basic_normalizer.COMPILED) or (name == "whisper" and whisper_english.COMPILED)


def _normalize_chunk(args: tuple[str, list[str]]) -> list[str]:
    return _normalize_list(*args)


def normalize_many(texts: Sequence[str], name: str = "whisper", workers: int | None = None,
                   threshold: int = PARALLEL_THRESHOLD) -> list[str]:
    """``[get_normalizer(name)(t) for t in texts]``, over ``workers`` processes (default: every CPU)
    when there are at least ``threshold`` texts.

    Workers start as ``worker_context`` says; each builds its own token tables.  The compiled basic
    and Whisper normalizers (``in_one_process``) always run here: sending a string to a worker and back
    costs more than normalizing it (a million strings: 0.38 s here, 1.13 s over two workers for the basic
    one; 500,000 strings, 1.6-1.8 s here, 2.0 s over two workers for the Whisper one).
    """
    get_normalizer(name)  # an unknown name is an error before any work
    workers = available_cpus() if workers is None else workers
    if workers <= 1 or len(texts) < max(threshold, 1) or in_one_process(name):
        return _normalize_list(name, texts)
    from concurrent.futures import ProcessPoolExecutor

    chunks = [(name, list(texts[i : i + _CHUNK])) for i in range(0, len(texts), _CHUNK)]
    with ProcessPoolExecutor(workers, mp_context=worker_context()) as pool:
        return [s for part in pool.map(_normalize_chunk, chunks) for s in part]
