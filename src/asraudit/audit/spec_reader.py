"""Typed reads from the tables of an audit spec, and the generic map from a table onto a probe's Params.

Every probe keeps its knobs in one frozen dataclass (``MinerParams``,
``MaskedParams``...).  A spec table is read onto that dataclass field by
field, from the field's annotation (bool, int, float, str, a tuple of
names, a path) and its ``metadata`` (``range``, ``minimum``, ``choices``),
so a knob added to a probe is settable from the spec the day it is added,
and an unknown key is still an error naming the spec and the key.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path, PurePath
from typing import Any

from asraudit.arguments import bare_annotation, flag, names, number, path as path_argument, plain, whole_number
from asraudit.errors import InputError


class SpecError(InputError):
    """A spec that cannot be run; names the spec file and the entry."""


class Section:
    """Typed reads from one table of the spec; every error names the table and key."""

    def __init__(self, data: Any, where: str, source: str, base: Path):
        if not isinstance(data, dict):
            raise SpecError(f"{where} must be a table", source)
        self.data, self.where, self.source, self.base = data, where, source, base
        self.used: set[str] = set()

    def fail(self, message: str) -> SpecError:
        return SpecError(f"{self.where}: {message}", self.source)

    def get(self, key: str, types: type | tuple, default: Any = None) -> Any:
        self.used.add(key)
        if key not in self.data:
            return default
        value = plain(self.data[key])  # np.True_ from a DataFrame's cell is True
        if isinstance(value, PurePath) and str in (types if isinstance(types, tuple) else (types,)):
            value = str(value)  # a dict spec built in Python holds paths as pathlib objects
        if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
            raise self.fail(f"{key} must be {_type_names(types)}, got {value!r}")
        if not isinstance(value, types):
            raise self.fail(f"{key} must be {_type_names(types)}, got {value!r}")
        return value

    def _checked(self, key: str, check, default: Any, *args) -> Any:
        """The value at ``key`` through one of ``asraudit.arguments``' checks (the Python API's too), its
        complaint naming this table; ``default`` when the key is absent."""
        self.used.add(key)
        if key not in self.data:
            return default
        try:
            return check(self.data[key], key, *args)
        except InputError as exc:
            raise self.fail(exc.message) from None

    def number(self, key: str, default: float | None, lo: float | None = None, hi: float | None = None
               ) -> float | None:
        # TOML's nan is refused there: it passes every range comparison, and then every threshold
        return self._checked(key, number, default, lo, hi)

    def integer(self, key: str, default: int | None, minimum: int = 0) -> int | None:
        return self._checked(key, whole_number, default, minimum)

    def flag(self, key: str, default: bool | None = None) -> bool | None:
        return self._checked(key, flag, default)

    def choice(self, key: str, choices: tuple[str, ...], default: str) -> str:
        value = self.get(key, str, default)
        if value not in choices:
            raise self.fail(f"{key} must be one of {', '.join(choices)}, got {value!r}")
        return value

    def strings(self, key: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
        value = self.get(key, list, list(default))
        if not all(isinstance(v, str) and v.strip() for v in value):
            raise self.fail(f"{key} must be a list of names")
        return tuple(value)

    def path(self, key: str, must_exist: bool = True, kind: str = "file") -> Path | None:
        value = self.get(key, str)
        if value is None:
            return None
        if not value.strip():  # Path("") is the folder the spec is in: out = "" wrote the audit there
            raise self.fail(f"{key} is an empty path: name a {kind if key != 'out' else 'folder'}")
        if "\x00" in value:  # TOML writes it "\u0000"; no file name holds one, and os calls raise ValueError on it
            raise self.fail(f"{key}: a path cannot hold a NUL character (\\u0000), got {value!r}")
        path = Path(value).expanduser()
        path = path if path.is_absolute() else (self.base / path)
        if must_exist and not (path.is_file() if kind == "file" else path.exists()):
            raise self.fail(f"{key}: no such {kind}: {path}")
        return path

    def done(self) -> None:
        extra = sorted(set(self.data) - self.used)
        if extra:
            raise self.fail(f"unknown key(s) {', '.join(extra)}")


def _type_names(types) -> str:
    types = types if isinstance(types, tuple) else (types,)
    names = {int: "an integer", float: "a number", str: "a string", bool: "true or false", list: "a list",
             dict: "a table"}
    return " or ".join(names.get(t, t.__name__) for t in types)




def read_params(s: Section, cls: type, given: dict[str, Any] | None = None):
    """``cls`` (a Params dataclass) from the table ``s``: each field read by its annotation and metadata.

    ``given`` holds fields the caller already read (a value with a special form); the dataclass's
    ``validate()``, if any, runs last and its complaint names the table."""
    values: dict[str, Any] = dict(given or {})
    s.used |= set(values)
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if f.name in values or not f.init:
            continue
        if f.name not in s.data:
            continue  # the dataclass's default: one set of defaults, in the probe
        kind, _ = bare_annotation(hints[f.name])
        meta = f.metadata
        default = f.default if f.default is not dataclasses.MISSING else None
        if kind is bool:
            value = s.flag(f.name)
        elif kind is int:
            value = s.integer(f.name, default, minimum=meta.get("minimum", 0))
        elif kind is float:
            lo, hi = meta.get("range", (None, None))
            value = s.number(f.name, default, lo, hi)
        elif kind is str:
            value = s.choice(f.name, meta["choices"], default) if "choices" in meta else s.get(f.name, str)
        elif kind is Path:
            value = s.path(f.name)
        elif typing.get_origin(kind) is tuple:
            value = s.strings(f.name)
        else:  # pragma: no cover - a Params field of a type the spec cannot spell
            raise TypeError(f"{cls.__name__}.{f.name}: no spec reader for {kind!r}")
        values[f.name] = value
    params = cls(**values)
    if hasattr(params, "validate"):
        try:
            params.validate()
        except InputError as exc:
            raise s.fail(_as_spec_keys(exc.message, {f.name for f in dataclasses.fields(cls)})) from None
    return params


def recheck_params(params: Any) -> Any:
    """A Params dataclass built or changed in Python (``dataclasses.replace``), checked field by field by the rules
    :func:`read_params` reads a spec table with (annotation, ``minimum``, ``range``, ``choices``; an int's
    minimum 0 where none is given), then its ``validate()``: the same value is refused in a spec file and in an
    ``AuditSpec`` given to ``run_audit``.  Returns the params with a numpy scalar as its Python value and a path
    given as a str as a ``Path`` (a copy; the caller's object is unchanged)."""
    hints = typing.get_type_hints(type(params))
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(params):
        if not f.init:
            continue
        kind, optional = bare_annotation(hints[f.name])
        given = getattr(params, f.name)
        value = plain(given)
        if value is None and optional:
            continue
        meta = f.metadata
        if kind is bool:
            value = flag(value, f.name)
        elif kind is int:
            value = whole_number(value, f.name, meta.get("minimum", 0))
        elif kind is float:
            lo, hi = meta.get("range", (None, None))
            value = number(value, f.name, lo, hi)
        elif kind is str:
            if not isinstance(value, str):
                raise InputError(f"{f.name} must be a string, got {value!r:.60}")
            if "choices" in meta and value not in meta["choices"]:
                raise InputError(f"{f.name} must be one of {', '.join(meta['choices'])}, got {value!r}")
        elif kind is Path:
            value = path_argument(value, f.name)
        elif typing.get_origin(kind) is tuple and typing.get_args(kind)[0] is str:
            value = tuple(names(value, f.name, "strings"))
        if value is not given and (type(value) is not type(given) or value != given):
            changes[f.name] = value
    checked = dataclasses.replace(params, **changes) if changes else params
    if hasattr(checked, "validate"):
        try:
            checked.validate()
        except InputError as exc:
            raise InputError(_as_spec_keys(exc.message, {f.name for f in dataclasses.fields(params)})) from None
    return checked


def _as_spec_keys(message: str, keys: set[str]) -> str:
    """A Params complaint in the spec's words: validation shared with the CLI names its flags
    (``--min-run-len``); in a spec the same knob is the key ``min_run_len``."""
    def key(match: re.Match) -> str:
        name = match.group(1).replace("-", "_")
        return name if name in keys else match.group(0)
    return re.sub(r"--([a-z][a-z0-9-]*)", key, message)
