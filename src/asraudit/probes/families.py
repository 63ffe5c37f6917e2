"""Convention families: spellings that sound the same, loaded from TOML or JSON.

A *family* is two or more *arms*, each a way of writing the same spoken words
("Mr" / "Mister", "21" / "twenty-one", "T.V." / "T. V." / "TV").  Which arm a
transcript uses carries no information about the audio, so a model that
follows the reference's arm is following the benchmark's house style.

Families are data, not code: the curated English catalogue ships as
``probes/data/conventions_en.toml`` and users add their own files with the
same schema (TOML or JSON, see the README).  A family declares its arms in one
of three ways:

``forms``
    Literal rows, one entry per arm (a string or a list of alternatives):
    ``[["Mr", "Mr."], "Mister"]``.  Matched case-insensitively unless
    ``case_sensitive = true``; spaces match any whitespace; optional
    ``suffixes`` are appended to every form (colour -> colours, coloured).
``patterns``
    Regular-expression rows (the ``regex`` module's syntax), for arms that
    need context ("Dr" only before a capitalised name).  A named group
    ``key`` (and ``key2``, ...) says which words were spoken, so that
    "organisation" and "organization" pair up; without one, the row is the key.
``generate``
    A built-in generator for sets too large to list: ``cardinal`` and
    ``ordinal`` (digits vs words, ``range``), ``year`` (four digits vs words
    read in pairs) and ``initialism`` (``letters``: dotted, spaced, solid).

Every match carries a *key* naming the spoken words it stands for, so the
probe only pairs a reference rendering with a hypothesis rendering of the
same words: "21" pairs with "twenty-one", never with "twenty-two".

``exclude`` lists regexes; a match whose whole text fits one is dropped (the
generic -ise/-ize rule uses it for "advise", "surprise", "size", ...).
``not_after`` and ``not_before`` are regexes for the text just before and
just after a match that rule it out, on every arm alike (a number word right
after "ciento" is part of a longer number; digits followed by ",5" are a
decimal), so the rows stay plain literals (write groups in them as (?:...),
so the named key groups of a pattern row keep their numbers).

``match`` and ``no_match`` are examples: each ``match`` text must hold an
occurrence of the family and each ``no_match`` text none.  They are checked
whenever the family is loaded, so a family file whose own examples fail is
refused with the example named; the built-in catalogues give both for every
family.
Families in one ``pool`` are also scored together, arm by arm position, so the
positions must mean the same thing in each (the pool names them).
"""

from __future__ import annotations

import json
import os
import tomllib
import unicodedata
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Sequence

import regex

from asraudit.data.rows import decode_text, duplicate_key, not_a_file
from asraudit.errors import InputError
from asraudit.probes.family_matchers import (
    Matcher,
    compile_pattern,
    generated_matchers,
    literal_matchers,
    pattern_matchers,
    strings,
)
from asraudit.probes.user_regex import runaway, time_limit
from asraudit.text.basic_language_codes import language_code

# One built-in catalogue per language (ISO 639-1 code); a corpus's ``language`` picks one.
LANGUAGES = ("en", "es", "fr", "de", "it", "nl", "pl", "pt")
BUILTIN = {code: f"conventions_{code}.toml" for code in LANGUAGES}
BUILTIN_LABEL = "built-in:"  # the source of a built-in catalogue's families: "built-in:en"
# The classes of the built-in catalogues.  A user's family may name its own (``class`` groups agreement, and a
# catalogue of forms of address may call its class "address"); any name but OVERALL.
CLASSES = ("spelling", "initialism", "number", "lexical", "honorific", "spacing")
OVERALL = "all"  # rendering agreement's row of every class (or family) together
GENERATORS = ("cardinal", "ordinal", "year", "initialism")
_GENERATOR_ARMS = {
    "cardinal": ("digits", "words"),
    "ordinal": ("digits", "words"),
    "year": ("digits", "words"),
    "initialism": ("dotted", "spaced", "solid"),
}


@dataclass(frozen=True)
class Family:
    """A convention family, compiled and ready to scan raw text."""

    name: str
    cls: str
    arms: tuple[str, ...]
    matchers: tuple[Matcher, ...]
    pool: str | None = None
    note: str = ""
    source: str = ""
    exclude: tuple[regex.Pattern, ...] = ()

    def find(self, text: str) -> list[tuple[int, int, int, str]]:
        """Every (start, end, arm, key) of this family in ``text``, overlaps included.

        The patterns of a user's file search under a time limit (``user_regex``): one that backtracks without
        end is an InputError naming the family, its file and the text, not a run that never ends.  The built-in
        catalogues' patterns, tested on long texts, search without one (a limit costs about 5 µs a search)."""
        if not self.source.startswith(BUILTIN_LABEL):
            return self._find_in_time(text)
        found = []
        for m in self.matchers:
            for hit in m.pattern.finditer(text):
                if hit.end() == hit.start():
                    continue
                if any(ex.fullmatch(hit.group()) for ex in self.exclude):
                    continue
                key = m.key_of(hit)
                if key is not None:
                    found.append((hit.start(), hit.end(), m.arm, key))
        return found

    def _find_in_time(self, text: str) -> list[tuple[int, int, int, str]]:
        """``find`` with every search under ``user_regex.time_limit``."""
        limit = time_limit(text)
        found = []
        for m in self.matchers:
            pattern = m.pattern
            try:
                for hit in m.pattern.finditer(text, timeout=limit):
                    if hit.end() == hit.start():
                        continue
                    excluded = False
                    for pattern in self.exclude:
                        if pattern.fullmatch(hit.group(), timeout=limit) is not None:
                            excluded = True
                            break
                    pattern = m.pattern
                    if excluded:
                        continue
                    key = m.key_of(hit)
                    if key is not None:
                        found.append((hit.start(), hit.end(), m.arm, key))
            except TimeoutError:
                raise runaway(f"family {self.name!r}", pattern.pattern, text, self.source) from None
        self._refuse_two_arms(text, found)
        return found

    def _refuse_two_arms(self, text: str, found: list[tuple[int, int, int, str]]) -> None:
        """One span matched by two arms (a pattern row of each that takes the same words: ``colou?r`` beside
        ``colour``) was always counted as the arm listed first, whatever the text wrote; literal forms under two
        arms are refused when read, patterns only show it on a text."""
        arm_at: dict[tuple[int, int], int] = {}
        for start, end, arm, _ in found:
            first = arm_at.setdefault((start, end), arm)
            if first != arm:
                shown = text if len(text) <= 60 else text[:57] + "..."
                low, high = sorted((first, arm))
                raise InputError(f"family {self.name!r}: {text[start:end]!r} in {shown!r} is matched by arm "
                                 f"{self.arms[low]!r} and by arm {self.arms[high]!r}, so it would always count as "
                                 f"{self.arms[low]!r}: arms must not overlap; narrow their patterns", self.source)


@dataclass(frozen=True)
class Pool:
    """Families scored together by arm position; ``arms`` names the positions."""

    name: str
    arms: tuple[str, ...]


@dataclass(frozen=True)
class Rejected:
    """A family considered and left out because its arms do not sound the same."""

    name: str
    arms: tuple[str, ...]
    reason: str


@dataclass
class Catalogue:
    """The families a probe run uses, with the pools and the rejections."""

    families: list[Family]
    pools: dict[str, Pool] = field(default_factory=dict)
    rejected: list[Rejected] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    def family(self, name: str) -> Family:
        for fam in self.families:
            if fam.name == name:
                return fam
        raise KeyError(f"no convention family {name!r}")

    def pooled(self, pool: str) -> list[Family]:
        return [f for f in self.families if f.pool == pool]


# --------------------------------------------------------------------------
# Loading


def load_catalogue(sources: str | Path | Sequence[str | Path] = "en") -> Catalogue:
    """Load and merge catalogues: ``"en"`` is the built-in English one, anything
    else a TOML or JSON file.  A family name may appear only once overall."""
    if isinstance(sources, (str, Path)):
        sources = [sources]
    merged = Catalogue(families=[])
    read: set[str] = set()
    for src in sources:
        data, label = _read(src)
        # One catalogue named twice (`--families en --families en`, a file under two spellings) stopped on its
        # first family, "family 'mister' is defined twice", as if two catalogues clashed (case 313).
        key = label if label.startswith(BUILTIN_LABEL) else os.path.realpath(label)
        if key in read:
            raise InputError("this catalogue is given twice: name it once", label)
        read.add(key)
        _merge(merged, data, label)
    if not merged.families:
        raise InputError("the catalogue defines no families", ", ".join(merged.sources))
    return merged


def _read(src: str | Path) -> tuple[dict, str]:
    code = language_code(str(src))  # a language code in any case ("FR"), as everywhere asraudit takes one
    if code in BUILTIN:
        name = BUILTIN[code]
        text = resources.files("asraudit.probes").joinpath("data", name).read_text(encoding="utf-8")
        label = f"{BUILTIN_LABEL}{code}"
        return _parse(text, ".toml", label), label
    path = Path(src)
    if not path.is_file():  # a folder or /dev/null was "no such family file", though it is there (case 313)
        raise InputError(not_a_file(path, "family file"), path)
    text = decode_text(path.read_bytes(), path)  # BOM dropped, a bad byte named by its line
    if not unicodedata.is_normalized("NFC", text):  # forms saved decomposed: the scanned text is composed
        text = unicodedata.normalize("NFC", text)
    return _parse(text, path.suffix.lower(), str(path)), str(path)


def _parse(text: str, suffix: str, label: str) -> dict:
    if suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"broken JSON: {exc.msg}", label, exc.lineno) from None
        except ValueError:  # an integer longer than Python converts
            raise InputError("broken JSON: a number of more digits than Python reads", label) from None
        except RecursionError:
            raise InputError("broken JSON: arrays or objects nested deeper than Python reads", label) from None
        twice = duplicate_key(text)
        if twice is not None:  # the last value was kept without a word: a second "family" list dropped the first
            raise InputError(f"key {twice!r} is given twice in one object, and a JSON reader keeps only the last "
                             "value, without a word (a TOML file refuses it too): merge the two, or remove one", label)
    elif suffix == ".toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"broken TOML: {exc}", label) from None
        except RecursionError:  # arrays within arrays, thousands deep: a traceback
            raise InputError("broken TOML: arrays or tables nested deeper than Python reads", label) from None
    else:
        raise InputError(f"family files must be .toml or .json, not {suffix!r}", label)
    if not isinstance(data, dict):
        raise InputError("a family file holds a table/object with a 'family' list", label)
    return data


CATALOGUE_SCHEMA = 1  # the layout of family files (and of the shipped catalogues, which say so)


def _merge(cat: Catalogue, data: dict, label: str) -> None:
    cat.sources.append(label)
    unknown = set(data) - {"schema", "language", "pool", "family", "rejected", "description"}
    if unknown:
        raise InputError(f"unknown top-level key(s) {sorted(unknown)}; expected pool, family, rejected", label)
    if data.get("schema", CATALOGUE_SCHEMA) != CATALOGUE_SCHEMA:  # a later layout may mean other things by the keys
        raise InputError(f"schema {data['schema']!r}: this asraudit reads family files of schema {CATALOGUE_SCHEMA}",
                         label)
    for i, raw in enumerate(_list(data.get("pool", []), "pool", label), start=1):
        where = f"pool #{i}"
        name = _str(raw, "name", where, label)
        arms = _labels(raw.get("arms"), where, label)
        if name in cat.pools and cat.pools[name].arms != arms:
            raise InputError(f"{where} ({name!r}) is defined twice with different arms", label)
        cat.pools[name] = Pool(name, arms)
    names = {f.name for f in cat.families}
    for i, raw in enumerate(_list(data.get("family", []), "family", label), start=1):
        fam = build_family(raw, f"family #{i}", label)
        if fam.name in names:
            raise InputError(f"family {fam.name!r} is defined twice", label)
        names.add(fam.name)
        cat.families.append(fam)
    for i, raw in enumerate(_list(data.get("rejected", []), "rejected", label), start=1):
        where = f"rejected #{i}"
        cat.rejected.append(Rejected(_str(raw, "name", where, label),
                                     _labels(raw.get("arms", []), where, label, minimum=0),
                                     _str(raw, "reason", where, label)))
    for fam in cat.families:
        if fam.pool is None:
            continue
        pool = cat.pools.get(fam.pool)
        if pool is None:
            cat.pools[fam.pool] = pool = Pool(fam.pool, fam.arms)
        if len(pool.arms) != len(fam.arms):
            raise InputError(
                f"family {fam.name!r} has {len(fam.arms)} arms but pool {fam.pool!r} has "
                f"{len(pool.arms)} ({', '.join(pool.arms)}): pooling is by arm position", fam.source)
        moved = _moved_arm(fam.arms, pool.arms)
        if moved is not None:  # its "words" clips were pooled as the pool's "digits": a wrong pooled switch rate
            raise InputError(
                f"family {fam.name!r} has arms {list(fam.arms)}, the arms of pool {fam.pool!r} "
                f"({', '.join(pool.arms)}) in another order: pooling is by arm position, so its {moved[0]!r} clips would be "
                f"pooled as the pool's {moved[1]!r}: list the family's arms in the pool's order", fam.source)


def _moved_arm(arms: Sequence[str], order: Sequence[str]) -> tuple[str, str] | None:
    """The first of ``arms`` that is one of ``order``'s names, letter case aside, at another position, with the
    name of ``order`` at its position; None when every shared name keeps its position."""
    places = {name.casefold(): i for i, name in enumerate(order)}
    for i, name in enumerate(arms):
        j = places.get(name.casefold())
        if j is not None and j != i:
            return name, order[i]
    return None


def _list(value, what: str, label: str) -> list[dict]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise InputError(f"'{what}' must be a list of tables/objects", label)
    return value


def _str(raw: dict, key: str, where: str, label: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: '{key}' must be a non-empty string", label)
    return value.strip()


def _labels(value, where: str, label: str, minimum: int = 2) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InputError(f"{where}: 'arms' must be a list of arm names", label)
    if len(value) < minimum:
        raise InputError(f"{where}: a family needs at least {minimum} arms, got {len(value)}", label)
    if len(set(value)) != len(value):
        raise InputError(f"{where}: arm names repeat: {value}", label)
    return tuple(value)


def build_family(raw: dict, where: str = "family", label: str = "<memory>") -> Family:
    """Validate one family table and compile its matchers."""
    name = _str(raw, "name", where, label)
    where = f"{where} ({name!r})"
    allowed = {"name", "class", "arms", "pool", "note", "case_sensitive", "forms", "suffixes",
               "patterns", "generate", "range", "letters", "exclude", "not_after", "not_before",
               "match", "no_match"}
    unknown = set(raw) - allowed
    if unknown:
        raise InputError(f"{where}: unknown key(s) {sorted(unknown)}", label)
    cls = _str(raw, "class", where, label)
    for key, value in (("name", name), ("class", cls)):
        if value == OVERALL:  # its occurrences were added to the overall row a second time: counted twice there
            raise InputError(f"{where}: {key} {OVERALL!r} is the agreement tables' row of every family together, so "
                             f"this family would be counted twice in it: give the {key} another name", label)
    kinds = [k for k in ("forms", "patterns", "generate") if k in raw]
    if len(kinds) != 1:
        raise InputError(f"{where}: give exactly one of 'forms', 'patterns' or 'generate'", label)
    case_sensitive = raw.get("case_sensitive", False)
    if not isinstance(case_sensitive, bool):  # bool("false") is True: a JSON "false" made the family case-sensitive
        raise InputError(f"{where}: 'case_sensitive' must be true or false, got {case_sensitive!r}", label)
    flags = regex.V0 | (0 if case_sensitive else regex.IGNORECASE)
    kind = kinds[0]
    if kind == "generate":
        gen = raw["generate"]
        if gen not in GENERATORS:
            raise InputError(f"{where}: unknown generator {gen!r}; choose one of {', '.join(GENERATORS)}", label)
        arms = _labels(raw.get("arms", list(_GENERATOR_ARMS[gen])), where, label)
        if len(arms) != len(_GENERATOR_ARMS[gen]):
            raise InputError(f"{where}: generator {gen!r} makes {len(_GENERATOR_ARMS[gen])} arms "
                             f"({', '.join(_GENERATOR_ARMS[gen])}), not {len(arms)}", label)
        moved = _moved_arm(arms, _GENERATOR_ARMS[gen])
        if moved is not None:  # ["words", "digits"] labelled every "21" words and every "twenty-one" digits
            raise InputError(f"{where}: arms {list(arms)} name the arms of generator {gen!r} in another order: it "
                             f"makes {', '.join(_GENERATOR_ARMS[gen])}, in that order, so its {moved[1]} renderings "
                             f"would be labelled {moved[0]!r}: give them in the generator's order (other names are "
                             "fine)",
                             label)
        matchers = generated_matchers(gen, raw, where, label)
    else:
        arms = _labels(raw.get("arms"), where, label)
        rows = raw[kind]
        if not isinstance(rows, list) or not rows:
            raise InputError(f"{where}: '{kind}' must be a non-empty list of rows", label)
        if kind == "forms":
            matchers = literal_matchers(rows, arms, raw.get("suffixes", [""]), case_sensitive, where, label)
        else:
            matchers = pattern_matchers(rows, arms, flags, where, label)
    exclude = tuple(compile_pattern(p, flags, where, label) for p in strings(raw.get("exclude", []), where, "exclude", label))
    matchers = _in_context(matchers, raw, where, label)
    pool = raw.get("pool")
    if pool is not None and (not isinstance(pool, str) or not pool):
        raise InputError(f"{where}: 'pool' must be a pool name", label)
    family = Family(name, cls, arms, tuple(matchers), pool, str(raw.get("note", "")).strip(), label, exclude)
    _check_examples(family, raw, where, label)
    return family


def _in_context(matchers: list[Matcher], raw: dict, where: str, label: str) -> list[Matcher]:
    """``matchers`` with the family's ``not_after`` / ``not_before`` look-arounds around each pattern.

    Look-behinds of any width need the ``regex`` module, which every family uses."""
    before = strings(raw.get("not_after", []), where, "not_after", label)
    after = strings(raw.get("not_before", []), where, "not_before", label)
    if not before and not after:
        return matchers
    out = []
    for m in matchers:
        # Each piece is checked on its own first, so a broken one is named, not the combined pattern.
        for piece in before + after:
            compile_pattern(piece, m.pattern.flags, where, label)
        source = "".join(f"(?<!{p})" for p in before) + f"(?:{m.pattern.pattern})" + "".join(
            f"(?!{p})" for p in after)
        out.append(Matcher(m.arm, compile_pattern(source, m.pattern.flags, where, label), m.key_of))
    return out


def _check_examples(family: Family, raw: dict, where: str, label: str) -> None:
    """Refuse the family when one of its own ``match`` examples has no occurrence, or a ``no_match`` one has."""
    for text in strings(raw.get("match", []), where, "match", label):
        if not family.find(text):
            raise InputError(f"{where}: example {text!r} under 'match' has no occurrence of the family", label)
    for text in strings(raw.get("no_match", []), where, "no_match", label):
        found = family.find(text)
        if found:
            start, end = found[0][:2]
            raise InputError(f"{where}: example {text!r} under 'no_match' has an occurrence "
                             f"({text[start:end]!r})", label)
