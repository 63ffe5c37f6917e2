"""A column's value per clip, read from a manifest or a prediction file (for per-group scores).

Kept apart from the prediction reader because any column may be asked for
(speaker, voice, sub-corpus, ...), while the reader keeps only the fields
every prediction file has.  Values are compared as text: a number column
groups by its printed value, a whole number the same whether it was stored
as ``3`` or ``3.0``; a number and its text (``3`` and ``"3"``) in one column
are refused (``MixedSpellings``), as nothing says whether they are one
group or two.  ``group_label`` is the one rule for every caller (the
``wer`` command, the audit's per-group accept-ref, the calibration's groups).
"""

from __future__ import annotations

import math
from pathlib import Path

from asraudit.arguments import plain
from asraudit.data.prediction_rows import ID_FIELDS
from asraudit.data.rows import number_id, number_text, pick_field, read_rows
from asraudit.display_paths import display_path
from asraudit.errors import InputError

# The group of a row that lacks the column (or holds null there).
MISSING_GROUP = "(none)"


def group_label(value, field: str, path: Path | None, row: int | None) -> str:
    """The group a clip's ``field`` value puts it in.

    A missing value (absent, null, empty, or NaN: pandas' missing number) is
    ``MISSING_GROUP``, not a group called "None" or "nan"; a whole number
    stored as float (a Parquet or pandas column of speaker numbers with a gap
    is float) is its integer, so speaker ``3.0`` of one file meets speaker
    ``3`` of another.  A list or an object names no group: an InputError
    naming the row, rather than a group labelled with its Python spelling.  From Python (``measure_refdis``'
    ``groups`` from a DataFrame's column) a numpy scalar is its Python value (``np.float32(3.0)`` was group
    "3.0", its NaN a group "nan") and pandas' missing values ``pd.NA`` and ``pd.NaT`` are missing (``pd.NA``
    was ``TypeError: boolean value of NA is ambiguous``)."""
    value = plain(value)
    if type(value).__name__ in ("NAType", "NaTType"):
        return MISSING_GROUP
    if value is None or value == "" or (isinstance(value, float) and math.isnan(value)):
        return MISSING_GROUP
    if isinstance(value, float):
        return number_text(value)
    if isinstance(value, (list, dict)):
        raise InputError(f"field {field!r} (the group field) holds a {type(value).__name__}, not one value", path,
                         row)
    return str(value)


class MixedSpellings:
    """Refuses a field whose number and text would be one group (case 316): JSON's ``1`` and ``"1"`` printed as
    one label, so speakers ``1`` and ``"1"`` were one group with no word, though nothing in the file says whether
    they are one or two.  ``1`` and ``1.0`` are both numbers and stay one group (case 234: a column with a gap is
    float); a CSV's values are all text and never mix.  Fed each value in order; the first of a label is kept."""

    def __init__(self, field: str):
        self.field = field
        self._first: dict[str, tuple[bool, object, Path | None, int | None, str | None]] = {}

    def add(self, label: str, value, path: Path | None, row: int | None, clip_id: str | None = None) -> None:
        if label == MISSING_GROUP:
            return
        value = plain(value)
        is_text = isinstance(value, str)
        first = self._first.setdefault(label, (is_text, value, path, row, clip_id))
        if first[0] == is_text:
            return
        here = "here" if row is not None else f"for clip {clip_id!r}"
        if first[3] is None:
            there = f"for clip {first[4]!r}"
        elif first[2] == path:
            there = f"at row {first[3]}"
        else:
            there = f"in {display_path(first[2], Path.cwd())}, row {first[3]}"
        raise InputError(f"field {self.field!r} holds {_kind(value)} {here} and {_kind(first[1])} {there}, which would "
                         "be one group: JSON's 1 and \"1\" are two values, and nothing says whether they are one group "
                         "or two: write the field one way on every row (all numbers, or all text)",
                         path if row is not None else None, row)


def _kind(value) -> str:
    if isinstance(value, str):
        return f"the text {value!r}"
    return f"the {'value' if isinstance(value, bool) else 'number'} {value!r}"


def group_values(path: Path, field: str, what: str = "prediction file") -> dict[str, str]:
    """clip id -> the value of ``field`` in ``path`` (``group_rows`` without the rows)."""
    return {cid: label for cid, (label, _) in group_rows(path, field, what).items()}


def group_rows(path: Path, field: str, what: str = "prediction file") -> dict[str, tuple[str, int]]:
    """clip id -> (the value of ``field`` in ``path``, the row it is on).

    A file where no row has the column is an InputError naming the column and
    the file (a misspelt field would otherwise put every clip in one group), unless it is a prediction file of no row;
    a row without it belongs to ``MISSING_GROUP``.  A clip id on two rows is
    an InputError at the second, as the prediction and corpus readers refuse
    it: the last row's value had silently decided the clip's group."""
    out: dict[str, tuple[str, int]] = {}
    seen = False
    mixed = MixedSpellings(field)
    for lineno, rec in read_rows(Path(path), what):
        id_f = pick_field(rec, ID_FIELDS)
        if id_f is None:
            raise InputError(f"no clip id column (accepted names: {ID_FIELDS})", path, lineno)
        value = rec.get(field)
        seen = seen or field in rec
        cid = str(number_id(rec[id_f], path, lineno))
        if cid in out:
            raise InputError(f"duplicate clip id {cid!r} (first seen at row {out[cid][1]})", path, lineno)
        out[cid] = (group_label(value, field, path, lineno), lineno)
        mixed.add(out[cid][0], value, path, lineno)
    if not seen and (out or what != "prediction file"):  # an empty prediction file (case 8: a warning) lacks none
        raise InputError(f"no column {field!r} (the group field) in this {what}", path)
    return out
