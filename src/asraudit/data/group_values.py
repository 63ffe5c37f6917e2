"""A column's value per clip, read from a manifest or a prediction file (for per-group scores).

Kept apart from the prediction reader because any column may be asked for
(speaker, voice, sub-corpus, ...), while the reader keeps only the fields
every prediction file has.  Values are compared as text: a number column
groups by its printed value.
"""

from __future__ import annotations

from pathlib import Path

from asraudit.data.prediction_rows import ID_FIELDS
from asraudit.data.rows import number_id, pick_field, read_rows
from asraudit.errors import InputError

# The group of a row that lacks the column (or holds null there).
MISSING_GROUP = "(none)"


def group_values(path: Path, field: str, what: str = "prediction file") -> dict[str, str]:
    """clip id -> the value of ``field`` in ``path``.

    A file where no row has the column is an InputError naming the column and
    the file (a misspelt field would otherwise put every clip in one group);
    a row without it belongs to ``MISSING_GROUP``."""
    out: dict[str, str] = {}
    seen = False
    for lineno, rec in read_rows(Path(path), what):
        id_f = pick_field(rec, ID_FIELDS)
        if id_f is None:
            raise InputError(f"no clip id column (accepted names: {ID_FIELDS})", path, lineno)
        value = rec.get(field)
        seen = seen or field in rec
        out[str(number_id(rec[id_f], path, lineno))] = MISSING_GROUP if value is None or value == "" else str(value)
    if not seen:
        raise InputError(f"no column {field!r} (the group field) in this {what}", path)
    return out
