"""``to_plain``, the one serializer of summary.json, of every command's ``--json`` and of the typed results'
``to_json``, in a module of its own at the bottom of the tree (the audio, probe and report layers all use it).

It needs nothing but the standard library, while ``report.summary`` (which
re-exports it) defines summary.json's whole layout, a few dozen
dataclasses: a command that only writes JSON (``asraudit refdis``, on every
leaderboard run) should not pay for building them at start-up.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path


def to_plain(value):
    """JSON-ready: dataclasses as objects, NaN as null.

    Where a row says so (``OMIT_NONE``: True for all its fields, or the names
    of some), a None field it may lack (one with a default: optional in the
    schema) is left out; a field without a default is required by the schema
    and always written, null included."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        omit = getattr(value, "OMIT_NONE", False)
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)
                if not ((omit is True or (omit and f.name in omit)) and getattr(value, f.name) is None
                        and _optional(f))}
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def _optional(f: dataclasses.Field) -> bool:
    return f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
