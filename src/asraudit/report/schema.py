"""The JSON Schema of summary.json, generated from the ``Summary`` dataclass's annotations.

Generated, not written: a field added to a row of ``report.rows`` is in the
schema the moment it is in the file.  ``asraudit schema`` prints it; the
audit tests validate every summary they produce against it.  ``from_json``
walks the same annotations the other way: it checks a summary.json against
the schema and rebuilds the typed ``Summary``, so the report reads the same
rows whether it renders a live audit or a file.
"""

from __future__ import annotations

import dataclasses
import math
import re
import sys
import types
import typing
from pathlib import Path
from typing import Any

import jsonschema

from asraudit.data.published import MAX_COUNT
from asraudit.data.paths import is_stream
from asraudit.data.rows import json_document
from asraudit.report.summary import READABLE_VERSIONS, SCHEMA_VERSION, Summary
from asraudit.errors import InputError

SCHEMA_ID = f"urn:asraudit:summary:{SCHEMA_VERSION}"  # a name, not a download location

# Every integer of the layout is a count, a rank, a word position or a setting: at least 0 and at most 2**53 (the
# largest count a release is read with: past it a whole number is no float, and no audit counts that far), unless
# the field's metadata says otherwise (``_ranged``; ``MechanismCurve.sign``, ``MechanismRow.layer``, the seed).
_SCALARS = {str: {"type": "string"}, bool: {"type": "boolean"},
            int: {"type": "integer", "minimum": 0, "maximum": MAX_COUNT}, float: {"type": ["number", "integer"]}}


def _type_schema(annotation, defs: dict[str, Any]) -> dict[str, Any]:
    if annotation is Any:
        return {}
    if annotation in _SCALARS:
        return dict(_SCALARS[annotation])
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        inner = [_type_schema(a, defs) for a in options]
        schema = inner[0] if len(inner) == 1 else {"anyOf": inner}
        return {"anyOf": [schema, {"type": "null"}]} if len(options) < len(args) else schema
    if origin is list:
        return {"type": "array", "items": _type_schema(args[0], defs)}
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": _type_schema(args[0], defs)}
        return {"type": "array", "prefixItems": [_type_schema(a, defs) for a in args],
                "minItems": len(args), "maxItems": len(args)}
    if origin is dict:
        return {"type": "object", "additionalProperties": _type_schema(args[1], defs)}
    if dataclasses.is_dataclass(annotation):
        name = annotation.__name__
        if name not in defs:
            defs[name] = {}  # reserved first, so a dataclass that refers to itself finds its own name
            defs[name] = _object_schema(annotation, defs)
        return {"$ref": f"#/$defs/{name}"}
    raise TypeError(f"no JSON Schema for {annotation!r}")


def _object_schema(cls, defs: dict[str, Any]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    props, required = {}, []
    for f in dataclasses.fields(cls):
        props[f.name] = _type_schema(hints[f.name], defs)
        if "schema" in f.metadata:
            props[f.name] = _ranged(props[f.name], f.metadata["schema"])
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(f.name)
    out: dict[str, Any] = {"type": "object", "properties": props, "required": required,
                           "additionalProperties": False}
    doc = (cls.__doc__ or "").strip()
    if doc and not doc.startswith(f"{cls.__name__}("):
        out["description"] = doc.split("\n\n")[0].replace("\n", " ")
    return out


def _ranged(schema: dict[str, Any], bounds: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with a field's range (its metadata's ``schema``): on a number the number's, on an interval
    (``Bounds``, a ``$ref``) the range of its two bounds; null stays allowed where it was.  A key given as None
    is dropped (``"minimum": None``: an integer that may be negative).  On a mapping (``stage_seconds``) the range
    is its values': merged into the object, it bounded nothing (case 330)."""
    if schema.get("type") == "object" and "additionalProperties" in schema:
        return {**schema, "additionalProperties": _ranged(schema["additionalProperties"], bounds)}
    if "anyOf" in schema and {"type": "null"} in schema["anyOf"]:
        return {"anyOf": [_ranged(s, bounds) if s != {"type": "null"} else s for s in schema["anyOf"]]}
    if schema.get("$ref") == "#/$defs/Bounds":
        bound = {"anyOf": [{"type": ["number", "integer"], **bounds}, {"type": "null"}]}
        return {"allOf": [schema, {"properties": {"low": bound, "high": bound}}]}
    return {k: v for k, v in {**schema, **bounds}.items() if v is not None}


def summary_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) every summary.json of this ``schema_version`` satisfies."""
    defs: dict[str, Any] = {}
    top = _object_schema(Summary, defs)
    top["properties"]["schema_version"] = {"const": SCHEMA_VERSION}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            "title": "asraudit summary.json", **top, "$defs": defs}


def _build(annotation, value):
    """``value`` (already valid against the schema) as the type ``annotation`` names."""
    if value is None or annotation is Any:
        return value
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        return _build(options[0], value) if len(options) == 1 else value
    if origin is list:
        return [_build(args[0], v) for v in value]
    if origin is tuple:
        inner = [args[0]] * len(value) if len(args) == 2 and args[1] is Ellipsis else args
        return tuple(_build(a, v) for a, v in zip(inner, value))
    if origin is dict:
        return {k: _build(args[1], v) for k, v in value.items()}
    if dataclasses.is_dataclass(annotation):
        hints = typing.get_type_hints(annotation)
        return annotation(**{f.name: _build(hints[f.name], value[f.name])
                             for f in dataclasses.fields(annotation) if f.name in value})
    if annotation is float:
        return float(value)
    if annotation is int:
        return int(value)  # the schema's integer is a number without a fraction: 7.0, as a tool may save 7, is 7
    return value


def from_json(data: Any, source: str | Path = "summary.json") -> Summary:
    """The typed ``Summary`` of a summary.json's content; InputError naming ``source`` when it is not this layout.

    Checked against the schema first, so a file of another ``schema_version``
    or one edited by hand fails with the place that is wrong, not later with
    a KeyError inside the report."""
    schema = summary_schema()
    version = data.get("schema_version") if isinstance(data, dict) else None
    if version is not None and not isinstance(version, str):  # 2.4 written as a number by a tool: "reads 2.4"
        raise InputError(f"schema_version must be a string (\"{SCHEMA_VERSION}\"), got the "
                         f"{type(version).__name__} {version!r}", source)
    if isinstance(data, dict) and data.get("schema_version") not in READABLE_VERSIONS:
        raise InputError(f"schema_version {data.get('schema_version')!r}, this asraudit reads "
                         f"{' or '.join(READABLE_VERSIONS)} (rerun the audit, or use the asraudit that wrote it)",
                         source)
    if isinstance(data, dict) and data["schema_version"] != SCHEMA_VERSION:
        data = {**data, "schema_version": SCHEMA_VERSION}  # an earlier minor layout is this one minus optional keys
    _refuse_infinities(data, source)
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(data))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        message = error.message
        if error.validator == "maximum" and error.validator_value == MAX_COUNT:
            message = (f"{_shown(error.instance)} is more than any count of an audit (at most 2^53 = {MAX_COUNT}; "
                       "a damaged or hand-edited file?)")
        raise InputError(f"not a summary.json of layout {SCHEMA_VERSION}: at {where}: {message}", source)
    _refuse_lone_surrogates(data, source)
    _refuse_inconsistent(data, source)
    _refuse_unknown_models(data, source)
    return _build(Summary, data)


def _numbers(value, where: tuple = ()):
    """Every number of a JSON value (not a bool), with where it is."""
    if isinstance(value, float) or (isinstance(value, int) and not isinstance(value, bool)):
        yield where, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _numbers(v, where + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _numbers(v, where + (i,))


def _shown(number: int | float) -> str:
    """A number as a message shows it: an integer's digits, or their count when there are dozens of them."""
    if not isinstance(number, int):
        return str(number)
    digits = len(str(abs(number)))
    return str(number) if digits <= 30 else f"a{' negative' if number < 0 else ''} number of {digits} digits"


def _refuse_infinities(data, source) -> None:
    """``Infinity`` and a number beyond a double (``1e400``) are no JSON numbers, but Python's reader takes them
    as infinities, which no audit measures (an undefined value is written as null).  A ``NaN`` is read as such a
    hole, as the report shows a null.  An integer beyond a double (400 digits, which Python reads whole) is no
    value of a summary either: where a rate goes it was an ``OverflowError`` traceback, in any field a number no
    audit writes."""
    for where, number in _numbers(data):
        if isinstance(number, float) and math.isinf(number):
            raise InputError(f"not a summary.json of layout {SCHEMA_VERSION}: at {'/'.join(map(str, where))}: "
                             f"{number} is not a number a summary holds (JSON has no infinity; an undefined value "
                             "is null)", source)
        if isinstance(number, int) and abs(number) > _LARGEST_DOUBLE:
            raise InputError(f"not a summary.json of layout {SCHEMA_VERSION}: at {'/'.join(map(str, where))}: "
                             f"{_shown(number)} is not a number a summary holds (past the largest double; a damaged "
                             "or hand-edited file?)", source)


_LARGEST_DOUBLE = int(sys.float_info.max)


def _refuse_inconsistent(data: dict, source) -> None:
    """What the schema cannot say: an accept-ref's echoed edits are among its judged ones, an interval's low
    bound is not above its high one, and every ranking of ``wer_ranking`` lists each of its models once (the
    report looks each one up)."""
    def fail(where: tuple, message: str):
        return InputError(f"not a summary.json of layout {SCHEMA_VERSION}: at {'/'.join(map(str, where))}: "
                          f"{message}", source)

    def walk(value, where: tuple = ()):
        if isinstance(value, dict):
            n_ref, n_eligible = value.get("n_ref"), value.get("n_eligible")
            if isinstance(n_ref, int) and isinstance(n_eligible, int) and n_ref > n_eligible:
                raise fail(where, f"n_ref {n_ref} is more than n_eligible {n_eligible} (the edits a model echoed "
                                  "are among those judged)")
            low, high = value.get("low"), value.get("high")
            if "level" in value and isinstance(low, (int, float)) and isinstance(high, (int, float)) and low > high:
                raise fail(where, f"the interval's low bound {low} is above its high bound {high}")
            for k, v in value.items():
                walk(v, where + (k,))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, where + (i,))

    walk(data)
    ranking = data.get("wer_ranking")
    if isinstance(ranking, dict):
        models = list(ranking.get("models") or {})
        for scheme, order in (ranking.get("ranking") or {}).items():
            where = ("wer_ranking", "ranking", scheme)
            for name in order:
                if name not in models:
                    raise fail(where, f"{name!r} is not one of wer_ranking/models ({', '.join(models)})")
                if order.count(name) > 1:
                    raise fail(where, f"{name!r} is listed {order.count(name)} times: a ranking lists each model once")
            if order and len(order) != len(models):
                missing = [m for m in models if m not in order]
                raise fail(where, f"leaves out {', '.join(map(repr, missing))}: a ranking lists every model of "
                                  "wer_ranking/models")


# Where a summary names an audited model by the name ``models`` gives it: a key (``KEY``) or a value.  A model
# renamed by hand in ``models`` only showed on the page under both names, its headline row under the new one and
# every probe's rows under the old, as two models, exit 0 (fault case 278).  ``mechanism`` names white-box models
# (any spec), not audited ones, and provenance the spec's models, of which an audit stopped before its
# transcription has measured none (``models`` empty): both are left out.
KEY = object()
MODEL_PLACES = (
    ("accept_ref_by_kind", KEY), ("accept_ref_by_group", "groups", "*", KEY), ("wer_ranking", "models", KEY),
    ("mining", "panel", "*"), ("masked", "*", "model"), ("lift", "*", "model"), ("battery", "rows", "*", "model"),
    ("battery", "contrasts", "*", "model"), ("conventions", "agreement", "*", "model"),
    ("conventions", "switch", "*", "model"), ("edits", "*", "models", KEY), ("translation", "models", "*"),
    ("translation", "rows", "*", "model"),
    ("calibration_switch", "rates", "*", "model"), ("calibration_switch_by_voice", "rates", "*", "model"),
    ("calibration_masked_by_group", "*", "*", "model"), ("calibration_accept_ref_by_voice", "groups", "*", KEY),
)


def _model_references(value, place: tuple, where: tuple = ()):
    """(where, name) of every model name at ``place`` (a MODEL_PLACES pattern) in ``value``."""
    if not place:
        if isinstance(value, str):
            yield where, value
        return
    head, rest = place[0], place[1:]
    if head is KEY:
        if isinstance(value, dict):
            yield from ((where + (name,), name) for name in value if isinstance(name, str))
        return
    items = (value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ())
    for key, item in items:
        if head == "*" or key == head:
            yield from _model_references(item, rest, where + (key,))


def _refuse_unknown_models(data: dict, source) -> None:
    """Every audited model a section names is one of ``models`` (when it names any: a summary without headline
    rows, as a page of one section built in Python is, has no other name to show)."""
    models = data.get("models")
    if not isinstance(models, dict) or not models:
        return
    for place in MODEL_PLACES:
        for where, name in _model_references(data, place):
            if name not in models:
                raise InputError(f"not a summary.json of layout {SCHEMA_VERSION}: at {'/'.join(map(str, where))}: "
                                 f"{name!r} is not one of models ({', '.join(models)}): a section names each audited "
                                 "model as models does", source)


def _strings(value, where: tuple = ()):
    """Every string of a JSON value, keys included, with where it is (the schema error's spelling of a place)."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield where + (k,), k
            yield from _strings(v, where + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, where + (i,))


def _refuse_lone_surrogates(data, source) -> None:
    """A JSON ``\\ud800`` escape without its partner is no character, and no page holding it can be written as
    UTF-8 (``UnicodeEncodeError`` after the page was built): refused naming the place, as a prediction file's."""
    from asraudit.data.rows import lone_surrogate, lone_surrogate_error

    for where, text in _strings(data):
        at = lone_surrogate(text)
        if at >= 0:
            raise lone_surrogate_error(f"at {'/'.join(map(str, where))}: a text", text, at, Path(source), None)


# The audit's other files beside summary.json that are no text at all (case 301): each was read whole into memory,
# then refused as ``row 1: not valid UTF-8 ...: save the file as UTF-8``, advice that fits neither.
_AUDIT_FILES = ((b"SQLite format 3\x00", "an SQLite database (the audit's result store, asraudit.sqlite?)"),
                (b"PAR1", "a Parquet table (one of the audit's tables?)"))


def _head(path: Path, n: int) -> bytes | None:
    """The first ``n`` bytes of a regular file (None for anything else: no file, a folder, a stream)."""
    try:
        if not path.is_file() or is_stream(path):
            return None
        with path.open("rb") as fh:
            return fh.read(n)
    except OSError:
        return None


def _refuse_audit_files(path: Path) -> None:
    try:
        with path.open("rb") as fh:
            head = fh.read(16)
    except OSError:
        return  # json_document says why it cannot be read
    for magic, kind in _AUDIT_FILES:
        if head.startswith(magic):
            raise InputError(f"{kind}, not a summary.json: report reads the summary.json an audit writes into its "
                             "out folder: give that file, or the folder", path)


def audit_file_kind(path: Path) -> str | None:
    """What audit output ``path`` is, from its first bytes (case 310): the result store, a table, or a summary.json
    (a JSON object whose first key is ``schema_version``, as the writer puts it); None for anything else."""
    head = _head(Path(path), 64)
    if head is None:
        return None
    for magic, kind in _AUDIT_FILES:
        if head.startswith(magic):
            return kind
    if re.match(rb'(?:\xef\xbb\xbf)?\s*\{\s*"schema_version"\s*:', head):
        return "an audit's summary.json"
    return None


def read_summary(path: Path) -> Summary:
    """A summary.json file as the typed ``Summary`` (InputError naming the file when it cannot be read as one)."""
    _refuse_audit_files(Path(path))
    try:
        # As a release's JSON is read (case 228): a Windows editor's byte-order mark skipped; a
        # key given twice (a model's entry pasted again, which a reader keeps the last of without a word), an
        # integer of more digits than Python converts and nesting deeper than it reads each one line (case 249).
        data = json_document(Path(path))
    except OSError as exc:
        raise InputError(f"cannot read a summary.json: {exc}", path) from exc
    return from_json(data, path)
