"""The bilingual lexicon of the translation probe: which words in another language render an English span.

The translation probe asks whether content a transcript dropped (or
invented) shows up when the same model renders the clip in another language.
That needs, per span, a way to recognise its rendering in the other
language, written by hand: a machine translation of the span would carry
its own errors into the measurement.  A lexicon entry is the English span,
regular expressions for its renderings, the English words that would yield
the same renderings from elsewhere in the sentence (``clash``), and examples
that must and must not match, checked at every load so an edited pattern
cannot silently stop matching.

Matching is on folded text: the target language's basic normalizer (lower
case, no punctuation), then accents removed, because a small model's
rendering often drops them ("senora presidenta") and the accent carries no
content here.  Patterns match whole words only.
"""

from __future__ import annotations

import tomllib
import unicodedata
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Callable, Sequence

import regex

from asraudit.data.rows import decode_text
from asraudit.errors import InputError
from asraudit.probes.user_regex import runaway, time_limit
from asraudit.text.basic_language_codes import language_code
from asraudit.text.basic_languages import BASIC_LANGUAGES
from asraudit.text.normalize import get_normalizer

BUILTIN = {"es": "translation_es.toml"}
LEXICON_SCHEMA = 1
_KEYS = {"schema", "source", "target", "span"}
_SPAN_KEYS = {"en", "patterns", "clash", "match", "no_match"}


def fold(text: str, target: str) -> str:
    """``text`` as patterns see it: the target language's basic normalizer, then accents removed."""
    normalized = get_normalizer("basic", target if target in BASIC_LANGUAGES else None)(text)
    decomposed = unicodedata.normalize("NFD", normalized)
    return "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")


@dataclass(frozen=True)
class LexiconEntry:
    """One English span and the ways to recognise its rendering in the target language."""

    en: str                              # the span as spoken (raw; normalized by the caller's normalizer)
    patterns: tuple[str, ...]            # regular expressions over folded target-language text
    clash: tuple[str, ...] = ()          # English words that yield a pattern from elsewhere in the sentence
    match: tuple[str, ...] = ()          # renderings that must match
    no_match: tuple[str, ...] = ()       # sentences that must not
    compiled: tuple = field(default=(), compare=False, repr=False)

    def found_in(self, folded: str, label: str | None = None) -> bool:
        """Whether any pattern matches ``folded`` (text already passed through ``fold``) as whole words.

        Each pattern searches under a time limit (``user_regex``): one that backtracks without end is an
        InputError naming the span, the pattern and ``label`` (the lexicon), not a run that never ends."""
        limit = time_limit(folded)
        for source, pattern in zip(self.patterns, self.compiled):
            try:
                if pattern.search(folded, timeout=limit):
                    return True
            except TimeoutError:
                raise runaway(f"span {self.en!r}", source, folded, label) from None
        return False


@dataclass(frozen=True)
class Lexicon:
    source: str                          # the language the spans are spoken in
    target: str                          # the language renderings are read in
    entries: tuple[LexiconEntry, ...]
    label: str                           # built-in:es, or the file it came from

    def keyed(self, normalize: Callable[[str], str]) -> dict[tuple[str, ...], LexiconEntry]:
        """Entries by their span's normalized words (the probe looks spans up by the words it compares).

        An entry whose span the normalizer reads as no words (``"--"``, ``"..."``, a filler such as ``"uh"`` that
        the Whisper normalizer drops) is refused: no span the probe compares is empty, so it was never looked up,
        and was passed over without a word.  So is a ``clash`` of no words, which was never looked for: a sentence
        holding the words the user meant was read as checkable."""
        out: dict[tuple[str, ...], LexiconEntry] = {}
        number: dict[tuple[str, ...], int] = {}
        for n, entry in enumerate(self.entries, start=1):
            key = tuple(normalize(entry.en).split())
            if not key:
                raise InputError(f"span #{n} ({entry.en!r}) is no words once normalized, and the probe looks a span "
                                 "up by its normalized words, so this entry would never be used: give the span's "
                                 "spoken words in en", self.label)
            for clash in entry.clash:
                if not normalize(clash).split():
                    raise InputError(f"span #{n} ({entry.en!r}): clash {clash!r} is no words once normalized, and "
                                     "a clash is looked for by its normalized words in the rest of the sentence, so "
                                     "it would never be found: give the English words it stands for", self.label)
            if key in out:  # only the first entry's patterns were read: a rendering by the second's counted absent
                first = out[key]
                raise InputError(f"span #{n} ({entry.en!r}) is span #{number[key]} ({first.en!r}) again once "
                                 f"normalized ({' '.join(key)!r}), and a span is read by one entry, so its patterns "
                                 "would never be tried: merge the two into one [[span]]", self.label)
            out[key], number[key] = entry, n
        return out

    def found(self, entry: LexiconEntry, rendering: str) -> bool:
        """Whether the raw ``rendering`` holds one of ``entry``'s renderings."""
        return entry.found_in(fold(rendering, self.target), self.label)


def _strings(raw: dict, key: str, where: str, label: str, required: bool = False) -> tuple[str, ...]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InputError(f"{where}: {key} must be a list of non-empty strings", label)
    if required and not value:
        raise InputError(f"{where}: needs at least one of {key}", label)
    return tuple(value)


# What of a pattern's source is not a letter to match: an escape (``\w``, ``\p{Lu}``, ``\N{...}``, ``\x41``), an
# inline flag group (``(?i)``, ``(?i:``), a group's name (``(?P<Key>``, ``(?<Key>``, ``(?P=Key)``).
_NOT_LETTERS = regex.compile(r"\\(?:[pPN]\{[^}]*\}|x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)"
                             r"|\(\?[a-zA-Z]*[:)]|\(\?P?<[A-Za-z_]\w*>|\(\?P=[^)]*\)", regex.DOTALL)
_IGNORE_CASE = regex.compile(r"\(\?[a-zA-Z]*i[a-zA-Z]*[:)]")


def _never_folded(pattern: str, target: str) -> str | None:
    """What of ``pattern`` folded text never holds, in words (a letter upper-case outside ``(?i)`` or with an
    accent or tilde: ``fold`` lower-cases the rendering and drops its accents; punctuation it drops), or None.
    A pattern written as the language is ("está bien", "Señor", "peut-être") could never match: the renderings
    that held it were counted as not holding the span, and only the pattern its examples tried was known to work.

    Only what every match must hold is read (``_mandatory``): a branch of an alternation (``(está|esta)``), a part
    made optional (``¿?``, ``(¿)?``), a character class (``[áa]``) or a negative lookaround may hold such a
    character and the pattern still match."""
    core = _mandatory(pattern)
    letters = _NOT_LETTERS.sub(" ", _without_classes(core))
    ignore_case = _IGNORE_CASE.search(pattern) is not None
    for ch in letters:
        if not ch.isalpha():
            continue
        folded = fold(ch, target)
        if folded == ch or (ignore_case and folded == fold(ch.lower(), target) == ch.lower()):
            continue
        return f"{ch!r}, which a rendering never does once folded (lower case, accents removed: {fold(ch, target)!r})"
    return _dead_punctuation(core, target)


_ESCAPE = regex.compile(r"\\(?:[pPN]\{[^}]*\}|x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", regex.DOTALL)
_ANY_QUANTIFIER = regex.compile(r"(?:[?*+]|\{\d*,?\d*\})[?+]?")
# Groups whose content every match holds: capturing, (?:...), atomic (?>...), named, a positive lookahead or
# lookbehind, scoped flags (?i:...).  Every other kind (a negative lookaround, a comment, inline flags alone, a
# backreference, a branch reset, a conditional) is passed over.
_HELD_GROUP = regex.compile(r"\((?!\?)|\(\?(?::|>|=|<=|P?<[A-Za-z_]\w*>|[a-zA-Z]*-?[a-zA-Z]*:)")


def _class_end(pattern: str, i: int) -> int:
    """Where the character class opening at ``pattern[i]`` (``[``) ends (after its ``]``); a POSIX class
    (``[[:punct:]]``) inside it does not end it."""
    j = i + 1 + (pattern[i + 1:i + 2] == "^")
    j += pattern[j:j + 1] == "]"
    while j < len(pattern) and pattern[j] != "]":
        posix = regex.match(r"\[:\^?\w+:\]", pattern[j:])
        j += posix.end() if posix else 2 if pattern[j] == "\\" else 1
    return j + 1


def _group_end(pattern: str, i: int) -> int:
    """Where the group opening at ``pattern[i]`` (``(``) ends (after its ``)``)."""
    depth, j = 0, i
    while j < len(pattern):
        c = pattern[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            j = _class_end(pattern, j)
            continue
        depth += c == "("
        depth -= c == ")"
        j += 1
        if depth == 0:
            return j
    return len(pattern)


def _mandatory(pattern: str) -> str:
    """The parts of ``pattern`` every match holds, in order, their quantifiers left out: atoms a quantifier makes
    optional (``?``, ``*``, ``{0,n}``) and groups that are not held (``_HELD_GROUP``) or hold an alternation are
    passed over, a held group's own parts taken; nothing when the pattern is itself an alternation (any branch
    may be the one that matches)."""
    pieces, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "|":
            return ""
        if c == "\\":
            escape = _ESCAPE.match(pattern, i)
            end = escape.end() if escape else n
        elif c == "[":
            end = _class_end(pattern, i)
        elif c == "(":
            end = _group_end(pattern, i)
        else:
            end = i + 1
        quantifier = _ANY_QUANTIFIER.match(pattern, end)
        if not _OPTIONAL.match(pattern, end):
            if c == "(":
                held = _HELD_GROUP.match(pattern, i)
                pieces.append(_mandatory(pattern[held.end():end - 1]) if held else "")
            else:
                pieces.append(pattern[i:end])
        i = quantifier.end() if quantifier else end
    return "".join(pieces)


def _without_classes(pattern: str) -> str:
    """``pattern`` with each character class a space: any one member may be the one that matches."""
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] == "\\":
            out.append(pattern[i:i + 2])
            i += 2
        elif pattern[i] == "[":
            out.append(" ")
            i = _class_end(pattern, i)
        else:
            out.append(pattern[i])
            i += 1
    return "".join(out)


_QUANTIFIER = regex.compile(r"\{\d*,?\d*\}")
_GROUP_SYNTAX = regex.compile(r"\(\?(?:[:=!>|]|<[=!]|P?<[A-Za-z_]\w*>|P=\w+\)|[a-zA-Z-]*[:)]|#[^)]*\))")
_OPTIONAL = regex.compile(r"[?*]|\{0*(?:,\d*)?\}")


def _literal_punctuation(pattern: str):
    """The punctuation ``pattern`` must match literally, outside character classes (escaped, or a character that is
    no syntax where it stands: a ``-`` or ``,`` outside a class or quantifier, a ``¿``), with where it ends; a
    character made optional by the quantifier after it (``,?``) is left out."""
    i, n = 0, len(pattern)
    while i < n:
        c, start = pattern[i], i
        if c == "\\":
            d = pattern[i + 1:i + 2]
            if d in ("p", "P", "N") and pattern[i + 2:i + 3] == "{":
                close = pattern.find("}", i + 3)
                i = close + 1 if close >= 0 else n
                continue
            i += 2
            if not d or d.isalnum() or d.isspace():
                continue
            c = d
        elif c == "[":  # a character class: any of its members may match
            negated = pattern[i + 1:i + 2] == "^"
            j = i + 1 + negated
            j += pattern[j:j + 1] == "]"
            while j < n and pattern[j] != "]":
                posix = regex.match(r"\[:\^?\w+:\]", pattern[j:])  # [[:punct:]]: its "]" does not end the class
                j += posix.end() if posix else 2 if pattern[j] == "\\" else 1
            i = j + 1
            members = None if negated else _class_punctuation(pattern[start + 1:j])
            if members and not _OPTIONAL.match(pattern, i):
                yield members, pattern[start:i]
            continue
        elif c == "{" and (m := _QUANTIFIER.match(pattern, i)):
            i = m.end()
            continue
        elif c == "(" and (m := _GROUP_SYNTAX.match(pattern, i)):
            i = m.end()
            continue
        else:
            i += 1
            if c in ".^$*+?|(){}" or c.isalnum() or c.isspace() or c == "_":
                continue
        if not _OPTIONAL.match(pattern, i):
            yield c, pattern[start:i]


def _class_punctuation(members: str) -> str | None:
    """The characters of a character class's inside (``¿?`` of ``[¿?]``) when each is a punctuation mark given
    literally, or None when any may be more (a letter or digit, an escape such as ``\\w``, a range, a nested set):
    only a class of marks alone can be told dead from its source."""
    chars, k = [], 0
    while k < len(members):
        ch = members[k]
        if ch == "\\":
            ch = members[k + 1:k + 2]
            if not ch or ch.isalnum() or ch.isspace():
                return None
            k += 2
        elif ch == "-" and chars and k + 1 < len(members) or ch == "[" or ch.isalnum() or ch.isspace() or ch == "_":
            return None  # a range, a nested set or POSIX class, a letter, a digit
        else:
            k += 1
        chars.append(ch)
    return "".join(chars) or None


def _dead_punctuation(pattern: str, target: str) -> str | None:
    """Punctuation ``pattern`` matches literally that folding removes (``fold`` drops ".", "?", "¿" and turns "-"
    into a space; it keeps the apostrophe), alone or as a character class of such marks alone (``[¿?]``), in words
    naming it as written (``\\.``, ``-``, ``[¿?]``), or None."""
    for chars, written in _literal_punctuation(pattern):
        folded = {ch: fold(f"a{ch}a", target) for ch in chars}
        if any(ch in folded[ch] for ch in chars):
            continue
        if len(chars) == 1:
            return (f"{written!r}, which a rendering never does once folded (punctuation removed: {chars!r} "
                    f"{'reads as a space' if ' ' in folded[chars] else 'is dropped'})")
        return (f"{written!r}, a class of marks alone, which a rendering never holds once folded (punctuation "
                f"removed: {', '.join(repr(ch) for ch in chars)})")
    return None


def _entry(raw: object, where: str, label: str, target: str) -> LexiconEntry:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: a span is a table with en and patterns", label)
    unknown = set(raw) - _SPAN_KEYS
    if unknown:
        raise InputError(f"{where}: unknown key(s) {sorted(unknown)}; expected {sorted(_SPAN_KEYS)}", label)
    en = raw.get("en")
    if not isinstance(en, str) or not en.strip():
        raise InputError(f"{where}: en (the English span) must be a non-empty string", label)
    patterns = _strings(raw, "patterns", where, label, required=True)
    compiled = []
    for p in patterns:
        dead = _never_folded(p, target)
        if dead is not None:
            raise InputError(f"{where} ({en!r}): pattern {p!r} holds {dead}, so it could never match: write the "
                             "pattern as the folded text reads", label)
        try:
            compiled.append(regex.compile(rf"(?<!\w)(?:{p})(?!\w)"))
        except regex.error as exc:
            raise InputError(f"{where} ({en!r}): pattern {p!r} is not a regular expression: {exc}", label) from None
    entry = LexiconEntry(en, patterns, _strings(raw, "clash", where, label), _strings(raw, "match", where, label, True),
                         _strings(raw, "no_match", where, label, True), tuple(compiled))
    for example in entry.match:
        if not entry.found_in(fold(example, target), label):
            raise InputError(f"{where} ({en!r}): its example {example!r} must match and does not", label)
    for example in entry.no_match:
        if entry.found_in(fold(example, target), label):
            raise InputError(f"{where} ({en!r}): its example {example!r} must not match and does", label)
    return entry


def load_lexicon(source: str | Path = "es") -> Lexicon:
    """A built-in lexicon by target language (``"es"``) or a TOML file; its examples are checked."""
    code = language_code(str(source))  # "ES" is "es", as everywhere asraudit takes a language
    if code in BUILTIN:
        text = resources.files("asraudit.probes").joinpath("data", BUILTIN[code]).read_text(encoding="utf-8")
        label = f"built-in:{code}"
    else:
        path = Path(source)
        if not path.is_file():
            raise InputError(f"no such lexicon file (built-in lexicons: {', '.join(BUILTIN)})", path)
        text = decode_text(path.read_bytes(), path)  # BOM dropped, a bad byte named by its line
        label = str(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"broken TOML: {exc}", label) from None
    except RecursionError:  # arrays within arrays, thousands deep: a traceback
        raise InputError("broken TOML: arrays or tables nested deeper than Python reads", label) from None
    unknown = set(data) - _KEYS
    if unknown:
        raise InputError(f"unknown top-level key(s) {sorted(unknown)}; expected {sorted(_KEYS)}", label)
    if data.get("schema", LEXICON_SCHEMA) != LEXICON_SCHEMA:  # a later layout may mean other things by the keys
        raise InputError(f"schema {data['schema']!r}: this asraudit reads lexicons of schema {LEXICON_SCHEMA}", label)
    target, source_language = language_code(data.get("target")), language_code(data.get("source", "en"))
    if not isinstance(target, str) or not target:
        raise InputError("the lexicon needs target = \"<language code>\"", label)
    if not isinstance(source_language, str) or not source_language.strip():
        raise InputError(f"source is the language code of the spans' language (en), got {source_language!r}", label)
    if source_language == target:  # a rendering "in another language" that is the spans' own: every one untranslated
        raise InputError(f"target {target!r} is the spans' own language (source {source_language!r}): the probe "
                         "renders speech in another language than it was spoken in", label)
    spans = data.get("span", [])
    if not isinstance(spans, list) or not spans:
        raise InputError("the lexicon has no [[span]] entries", label)
    entries = tuple(_entry(raw, f"span #{i}", label, target) for i, raw in enumerate(spans, start=1))
    return Lexicon(str(source_language), target, entries, label)


def contains(words: Sequence[str], span: Sequence[str]) -> bool:
    """Whether ``span`` occurs in ``words`` as consecutive words (an empty span occurs nowhere)."""
    n = len(span)
    if n == 0:
        return False
    span = tuple(span)
    return any(tuple(words[i:i + n]) == span for i in range(len(words) - n + 1))
