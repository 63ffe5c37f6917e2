"""One prediction row: its columns, its checks, and the ``Prediction`` the loaders build from it.

The bottom of the prediction-file layer: ``predictions`` (files, sets) and
``prediction_blocks`` (JSONL read a block at a time) both build their rows
with what is here, so neither needs the other's module to make a row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from asraudit.data.rows import number_id, optional_seconds, pick_field
from asraudit.errors import InputError

ID_FIELDS = ("audio_filepath", "id", "__key__", "clip_id", "key", "utt_id")
REF_FIELDS = ("text", "reference", "ref", "transcript")
HYP_FIELDS = ("pred_text", "hypothesis", "hyp", "prediction")
DURATION_FIELDS = ("duration",)

@dataclass(frozen=True, slots=True)
class Prediction:
    """One model's output on one clip, with the row it came from."""

    clip_id: str
    reference: str
    hypothesis: str
    duration: float | None
    row: int


_NEW = object.__new__
_PREDICTION_SLOTS = tuple(getattr(Prediction, name).__set__ for name in
                          ("clip_id", "reference", "hypothesis", "duration", "row"))


def _prediction(clip_id: str, reference: str, hypothesis: str | None, duration: float | None, row: int) -> Prediction:
    """``Prediction(...)`` at half the cost, for the loader's one per row (a leaderboard has hundreds of thousands).

    A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``, which looks the
    attribute up on the class every time; this sets the same slots through their descriptors, found once.
    The object is the same: equal, hashed alike, and as frozen (a test checks all three)."""
    p = _NEW(Prediction)
    set_id, set_ref, set_hyp, set_dur, set_row = _PREDICTION_SLOTS
    set_id(p, clip_id)
    set_ref(p, reference)
    set_hyp(p, hypothesis)
    set_dur(p, duration)
    set_row(p, row)
    return p


def _as_text(value, what: str, path: Path, row: int) -> str | None:
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if not isinstance(value, str):
        raise InputError(f"{what} must be a string, got {type(value).__name__}", path, row)
    return value


@dataclass(frozen=True, slots=True)
class PredictionRow:
    """One row of a prediction file as read; ``hypothesis`` is None where the model did not run the clip."""

    clip_id: str
    reference: str
    hypothesis: str | None
    duration: float | None
    row: int


def _plain_fields(rec: dict) -> tuple | None:
    """The id, reference and hypothesis columns of rows with these keys, when all three are present and
    no duration is (a duration takes the general path, which checks it); else None."""
    fields = pick_field(rec, ID_FIELDS), pick_field(rec, REF_FIELDS), pick_field(rec, HYP_FIELDS)
    if None in fields or pick_field(rec, DURATION_FIELDS) is not None:
        return None
    return fields


def prediction_row(rec: dict, path: Path, lineno: int) -> PredictionRow:
    """One record of a prediction file, checked (the rules ``iter_prediction_rows`` applies to every row)."""
    id_f, ref_f, hyp_f = _fields(rec, path, lineno)
    clip_id = _as_text(number_id(rec[id_f], path, lineno), "clip id", path, lineno)
    if not clip_id or not clip_id.strip():
        raise InputError("empty clip id", path, lineno)
    reference = _as_text(rec[ref_f], "reference", path, lineno)
    if reference is None:
        raise InputError(f"reference ({ref_f}) is missing for clip {clip_id!r}", path, lineno)
    hypothesis = _as_text(rec[hyp_f], "hypothesis", path, lineno)
    dur_f = pick_field(rec, DURATION_FIELDS)
    duration = optional_seconds(rec[dur_f], "duration", path, lineno) if dur_f else None
    return PredictionRow(clip_id, reference, hypothesis, duration, lineno)


def _fields(rec: dict, path: Path, lineno: int) -> tuple:
    """The id, reference and hypothesis columns of a row (aliases in order of preference), or an InputError."""
    id_f, ref_f, hyp_f = pick_field(rec, ID_FIELDS), pick_field(rec, REF_FIELDS), pick_field(rec, HYP_FIELDS)
    missing = [
        label
        for label, f in (("clip id", id_f), ("reference", ref_f), ("hypothesis", hyp_f))
        if f is None
    ]
    if missing:
        raise InputError(
            f"missing column(s) for {', '.join(missing)}; found {sorted(rec)}; "
            f"accepted names: id {ID_FIELDS}, reference {REF_FIELDS}, hypothesis {HYP_FIELDS}",
            path,
            lineno,
        )
    return id_f, ref_f, hyp_f


def _checked_records(numbered: Iterable[tuple[int, dict]], path: Path, make: Callable) -> Iterator:
    """Each (line number, record) of a prediction file checked and built by ``make`` (fields in
    ``PredictionRow`` order): the row checks of every reader of whole files, whatever read the records."""
    columns: dict[tuple, tuple | None] = {}  # a row's keys -> its (id, reference, hypothesis) columns
    for lineno, rec in numbered:
        keys = tuple(rec)
        fields = columns.get(keys, False)
        if fields is False:
            fields = columns[keys] = _plain_fields(rec)
        if fields is not None:  # the common row, checked without the general path's per-field calls
            clip_id, reference, hypothesis = rec[fields[0]], rec[fields[1]], rec[fields[2]]
            if type(clip_id) is str and type(reference) is str and type(hypothesis) is str and clip_id.strip():
                yield make(clip_id, reference, hypothesis, None, lineno)
                continue
        r = prediction_row(rec, path, lineno)
        yield r if make is PredictionRow else make(r.clip_id, r.reference, r.hypothesis, r.duration, r.row)


def _kept_rows(checked: Iterable[Prediction], path: Path,
               rows: dict[str, Prediction] | None = None) -> tuple[dict[str, Prediction], int]:
    """Clip id -> prediction of the checked rows, added to ``rows`` (a new dict by default), and the number
    of rows without a hypothesis (counted, not kept); a clip id twice is an InputError at its second row."""
    rows = {} if rows is None else rows
    skipped = 0
    for r in checked:
        if r.clip_id in rows:
            raise InputError(
                f"duplicate clip id {r.clip_id!r} (first seen at row {rows[r.clip_id].row})", path, r.row
            )
        if r.hypothesis is None:
            skipped += 1
            continue
        rows[r.clip_id] = r
    return rows, skipped
