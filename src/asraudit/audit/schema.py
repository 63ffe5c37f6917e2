"""The JSON Schema of summary.json, generated from the ``Summary`` dataclass's annotations.

Generated, not written: a field added to a row of ``audit.rows`` is in the
schema the moment it is in the file.  ``asraudit schema`` prints it; the
audit tests validate every summary they produce against it.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any

from asraudit.audit.summary import SCHEMA_VERSION, Summary

SCHEMA_ID = f"urn:asraudit:summary:{SCHEMA_VERSION}"  # a name, not a download location

_SCALARS = {str: {"type": "string"}, bool: {"type": "boolean"}, int: {"type": "integer"},
            float: {"type": ["number", "integer"]}}


def _type_schema(annotation, defs: dict[str, Any]) -> dict[str, Any]:
    if annotation is Any:
        return {}
    if annotation in _SCALARS:
        return dict(_SCALARS[annotation])
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
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
            defs[name] = {}  # placeholder: a recursive reference finds it
            defs[name] = _object_schema(annotation, defs)
        return {"$ref": f"#/$defs/{name}"}
    raise TypeError(f"no JSON Schema for {annotation!r}")


def _object_schema(cls, defs: dict[str, Any]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    props, required = {}, []
    for f in dataclasses.fields(cls):
        props[f.name] = _type_schema(hints[f.name], defs)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(f.name)
    out: dict[str, Any] = {"type": "object", "properties": props, "required": required,
                           "additionalProperties": False}
    doc = (cls.__doc__ or "").strip()
    if doc and not doc.startswith(f"{cls.__name__}("):
        out["description"] = doc.split("\n\n")[0].replace("\n", " ")
    return out


def summary_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) every summary.json of this ``schema_version`` satisfies."""
    defs: dict[str, Any] = {}
    top = _object_schema(Summary, defs)
    top["properties"]["schema_version"] = {"const": SCHEMA_VERSION}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            "title": "asraudit summary.json", **top, "$defs": defs}
