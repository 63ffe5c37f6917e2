"""A JSONL prediction file loaded a block of lines at a time (``jsonl_blocks``), plain rows column-wise.

``load_prediction_file`` reads every JSONL file through here: a leaderboard's
files hold hundreds of thousands of rows, and building each one in a Python
loop (look up its columns, check their types, set the five slots of its
``Prediction``) cost as much as parsing it.  A block of plain rows is checked
and built with one C-level loop (``map``) per column and check; anything else
goes row by row through the steps of ``_checked_rows`` and ``_kept_rows``, so
the rows and errors are always theirs.
"""

from __future__ import annotations

import math
from collections import deque
from itertools import chain, repeat
from operator import itemgetter
from pathlib import Path
from typing import Sequence

from asraudit.data.jsonl_blocks import BLOCK_BYTES, jsonl_blocks
from asraudit.data.prediction_rows import (
    _NEW,
    _PREDICTION_SLOTS,
    DURATION_FIELDS,
    HYP_FIELDS,
    ID_FIELDS,
    REF_FIELDS,
    Prediction,
    _checked_records,
    _kept_rows,
    _prediction,
)
from asraudit.data.rows import pick_field


def jsonl_predictions(path: Path, block_bytes: int = BLOCK_BYTES,
                      references: dict[str, str] | None = None) -> tuple[dict[str, Prediction], int]:
    """``_kept_rows(_checked_rows(path, _prediction), path)`` of a JSONL file, a block of lines at a time.

    A block whose lines are all one object each (``Block.objects``) in one plain layout is added in bulk
    (``_add_plain``); any other block goes row by row through ``_checked_records`` and ``_kept_rows``, the
    functions of ``_checked_rows``, read by the per-line reader where a line is not a lone object.  Either way its rows are
    those of the generic path, and its errors are raised at the same row: a block goes in bulk only when
    none of its rows can raise."""
    rows: dict[str, Prediction] = {}
    skipped = 0
    references = {} if references is None else references
    for block in jsonl_blocks(path, block_bytes):
        parsed = block.objects()
        if parsed is None:
            numbered = block.rows()
        elif _add_plain(*parsed, rows, references):
            continue
        else:
            numbered = zip(*parsed)
        skipped += _kept_rows(_checked_records(numbered, path, _prediction), path, rows)[1]
    return rows, skipped


def _add_plain(numbers: Sequence[int], objects: list[dict], rows: dict[str, Prediction],
               references: dict[str, str]) -> bool:
    """Add the rows (line ``numbers``, ``objects``) when each is a plain row of one layout, new clip ids only.

    Plain: exactly the id, reference and hypothesis columns, all three strings, the id not blank (the plain
    row of ``_checked_rows``), and perhaps a duration column of numbers (int or float) that are finite and
    not negative, which ``prediction_row`` would take as they are, as floats (the leaderboard's layout).
    Checked and built column by column in C-level loops (``map``), the ``Prediction`` slots set through their
    descriptors as ``_prediction`` does.  False, adding nothing, when any row is not such a row or repeats a
    clip id: the row-by-row path takes the block and finds which.

    A reference equal to one in ``references`` (those read before, from any file of the set) is kept as
    that string, the same value: every file of a benchmark carries the same references, and holding one
    copy makes the check that they agree (``_first_references``) identity tests instead of a comparison of
    strings scattered over memory, and frees the copies at once."""
    widths = set(map(len, objects))
    first = objects[0]
    fields = [pick_field(first, ID_FIELDS), pick_field(first, REF_FIELDS), pick_field(first, HYP_FIELDS)]
    if widths == {4} and DURATION_FIELDS[0] in first:
        fields.append(DURATION_FIELDS[0])
    if None in fields or widths != {len(fields)}:
        return False
    try:  # as many distinct columns as keys in every row: every row has these keys, no other
        columns = [list(map(itemgetter(f), objects)) for f in fields]
    except KeyError:
        return False
    ids, refs, hyps = columns[:3]
    if set(map(type, chain(ids, refs, hyps))) != {str} or not all(map(str.strip, ids)):
        return False
    n = len(ids)
    if len(set(ids)) != n or not rows.keys().isdisjoint(ids):
        return False
    durations = _durations(columns[3]) if len(columns) == 4 else repeat(None, n)
    if durations is None:
        return False
    refs = list(map(references.setdefault, refs, refs))
    made = list(map(_NEW, repeat(Prediction, n)))
    for set_slot, column in zip(_PREDICTION_SLOTS, (ids, refs, hyps, durations, numbers)):
        deque(map(set_slot, made, column), maxlen=0)  # run the setters, keep nothing
    rows.update(zip(ids, made))
    return True


def _durations(values: list) -> list[float] | None:
    """The durations as ``optional_seconds`` gives them, when every one is a finite number >= 0 (not a
    bool, a string or null, which that function would take otherwise or refuse); else None."""
    if not set(map(type, values)) <= {int, float}:
        return None
    try:
        seconds = list(map(float, values))
    except OverflowError:  # an int too large: parse_seconds lets the error through, the row path raises it
        return None
    if not all(map(math.isfinite, seconds)) or min(seconds) < 0:
        return None
    return seconds
