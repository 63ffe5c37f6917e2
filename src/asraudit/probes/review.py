"""Human review of mined edits: a sheet out, judgements in, the miner's precision.

The miner is a heuristic; its precision (the share of its edits that really
are reference errors) is the number that says how far to trust accept-ref.
The sheet is a CSV a reviewer fills in a spreadsheet: one row per edit with
the clip, the reference around the edit, ``r`` and ``a``, and an empty
``judgement`` column (``yes``: a real reference error, ``no``: the miner is
wrong, ``unsure``/blank: skipped).  Precision comes with a Wilson interval and
a breakdown by kind, since deletions, insertions and substitutions fail in
different ways.

A spreadsheet opening the sheet reads a cell that starts with ``=``, ``+``,
``-`` or ``@`` as a formula and runs it, and a number-like text as a number
(``007`` as 7, ``1e5`` as 100000: a reviewer would see ``r`` and ``a``
equal); clip ids, model names and, under ``--normalizer none``, the words
come from the benchmark and the models.  Such a cell is written behind an
apostrophe, the spreadsheets' mark of text (``'007``), and the reader takes
it off again.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from asraudit.data.paths import written_whole
from asraudit.errors import InputError
from asraudit.metrics.stats import Interval, json_number, wilson_interval
from asraudit.probes.refdis import Edit

SHEET_COLUMNS = (
    "edit_id", "clip_id", "kind", "position", "context", "r", "a",
    "votes", "n_panel", "found_by", "judgement", "note",
)
YES = {"y", "yes", "1", "true", "real", "error", "ref_error"}
NO = {"n", "no", "0", "false", "not", "wrong", "miner_error"}
SKIP = {"", "?", "unsure", "skip", "unclear"}
CONTEXT_WORDS = 6
# Cells a spreadsheet would not keep as text: a formula's start, or a number that is not a plain integer (one
# with a leading zero, an exponent, a decimal or thousands mark, a date's or a time's separator, over 15 digits).
# One pattern for both writers, this module and the report page's export (JavaScript reads it from the page).
SHEET_TEXT_PATTERN = r"[=+\-@\t\r][\s\S]*|(?!(?:0|[1-9][0-9]{0,14})$)(?=[^0-9]*[0-9])[0-9.,:/ %eE+\-]+"
_SHEET_TEXT = re.compile(SHEET_TEXT_PATTERN)


def sheet_cell(value: object) -> object:
    """A cell of the sheet as written: a text a spreadsheet would read as a formula or a number behind an
    apostrophe (``'=x``, ``'007``), everything else as it is."""
    if isinstance(value, str) and _SHEET_TEXT.fullmatch(value):
        return "'" + value
    return value


def cell_text(cell: str | None) -> str:
    """A cell as read back: stripped, and the apostrophe :func:`sheet_cell` put before a text taken off."""
    text = (cell or "").strip()
    return text[1:].strip() if text.startswith("'") and _SHEET_TEXT.fullmatch(text[1:]) else text


def context_of(ref: Sequence[str], edit: Edit, width: int = CONTEXT_WORDS) -> str:
    """The reference around the edit, with the edit marked: ``... [r -> a] ...``."""
    left = list(ref[max(0, edit.ref_start - width):edit.ref_start])
    right = list(ref[edit.ref_end:edit.ref_end + width])
    if edit.kind == "insert":
        mark = f"[+ {edit.a}]"
    elif edit.kind == "delete":
        mark = f"[- {edit.r}]"
    else:
        mark = f"[{edit.r} -> {edit.a}]"
    head = "... " if edit.ref_start > width else ""
    tail = " ..." if edit.ref_end + width < len(ref) else ""
    return head + " ".join(left + [mark] + right) + tail


def found_by(edit: Edit) -> str:
    if edit.source == "corrected":
        return "correction"
    if edit.in_full_panel:
        return "panel"
    return "panel without " + ", ".join(edit.loo_for)


def write_review_sheet(path: str | Path, edits: Sequence[Edit], refs: Mapping[str, Sequence[str]]) -> int:
    """Write the review sheet (CSV); returns the number of rows."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with written_whole(path) as tmp, tmp.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(SHEET_COLUMNS)
        for e in edits:
            writer.writerow([sheet_cell(v) for v in (
                e.edit_id, e.clip_id, e.kind, e.position, context_of(refs[e.clip_id], e), e.r, e.a,
                e.votes, e.n_panel, found_by(e), "", "",
            )])
    return len(edits)


@dataclass(frozen=True)
class Judgement:
    """One judged row of a sheet: the edit as the sheet shows it (``r``/``a`` None when the sheet has no such
    column) and whether the reviewer called it a real reference error."""

    kind: str
    r: str | None
    a: str | None
    real: bool


@dataclass
class ReviewSummary:
    """Judgements of one sheet: counts, precision and its Wilson interval."""

    n_real: int = 0
    n_false: int = 0
    n_skipped: int = 0
    by_kind: dict[str, list[int]] = field(default_factory=dict)  # kind -> [real, false]
    judged: dict[str, Judgement] = field(default_factory=dict)  # edit id -> judgement (rows with an id)

    def count(self, kind: str, real: bool) -> None:
        if real:
            self.n_real += 1
        else:
            self.n_false += 1
        self.by_kind.setdefault(kind, [0, 0])[0 if real else 1] += 1

    @property
    def n_judged(self) -> int:
        return self.n_real + self.n_false

    @property
    def precision(self) -> float:
        return self.n_real / self.n_judged if self.n_judged else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.n_real, self.n_judged)

    def to_json(self) -> dict:
        low, high = self.interval
        return {
            "n_real": self.n_real,
            "n_false": self.n_false,
            "n_skipped": self.n_skipped,
            "precision": json_number(self.precision),
            "precision_interval": Interval(self.precision, low, high, 0.95, "wilson").to_json(),
            "by_kind": {k: {"real": r, "false": f} for k, (r, f) in self.by_kind.items()},
        }


REQUIRED_COLUMNS = ("edit_id", "kind", "judgement")
_DELIMITERS = (",", ";", "\t")  # a spreadsheet saves CSV with the locale's separator (";" where "," is the decimal mark)


def _sheet_header(first_line: str) -> tuple[str, dict[str, str]]:
    """The sheet's delimiter and its columns (stripped, lower case -> as written), from its first line.

    A sheet comes back from a spreadsheet with the columns reordered, a header
    retyped ("Judgement ") or saved with semicolons or tabs; the first
    delimiter under which the header names every required column is the
    sheet's (a comma otherwise, and the missing columns are reported)."""
    found = ","
    for delimiter in _DELIMITERS:
        names = next(csv.reader([first_line], delimiter=delimiter), [])
        columns = {n.strip().lower(): n for n in names}
        if all(c in columns for c in REQUIRED_COLUMNS):
            return delimiter, columns
    names = next(csv.reader([first_line], delimiter=found), [])
    return found, {n.strip().lower(): n for n in names}


def read_review_sheet(path: str | Path) -> ReviewSummary:
    """Read a filled sheet; unknown judgements and an edit judged twice are errors naming the row."""
    import io

    from asraudit.data.rows import check_column_names, decode_text, not_a_file

    path = Path(path)
    if not path.is_file():
        raise InputError(not_a_file(path, "review sheet"), path)
    text = decode_text(path.read_bytes(), path, fix="save the sheet as CSV (UTF-8)")
    first_line = text.splitlines()[0] if text else ""
    delimiter, columns = _sheet_header(first_line)
    # Two columns read as one (``Judgement`` twice, or ``judgement`` and ``Judgement `` as two reviewers named
    # theirs): a row keeps one cell, and the other reviewer's judgements were dropped without a word.
    check_column_names([n.strip().lower() for n in next(csv.reader([first_line], delimiter=delimiter), [])], path)
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise InputError(f"review sheet lacks column(s) {', '.join(missing)}; found {sorted(columns) or 'none'}", path, 1)
    edit_col, kind_col, judgement_col = (columns[c] for c in REQUIRED_COLUMNS)
    summary = ReviewSummary()
    judged_at: dict[str, int] = {}
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        for rec in reader:
            if not any((v or "").strip() for k, v in rec.items() if k is not None):
                continue  # an empty row a spreadsheet kept below the sheet
            edit_id = cell_text(rec.get(edit_col))
            if edit_id:
                if edit_id in judged_at:
                    raise InputError(f"edit {edit_id!r} appears twice (first at row {judged_at[edit_id]}): keep one "
                                     "row per edit, or its judgement counts twice", path, reader.line_num)
                judged_at[edit_id] = reader.line_num
            raw = cell_text(rec.get(judgement_col)).lower()
            kind = cell_text(rec.get(kind_col))
            if raw in YES or raw in NO:
                summary.count(kind, raw in YES)
                if edit_id:
                    summary.judged[edit_id] = Judgement(kind, *(cell_text(rec.get(columns[c])) if c in columns
                                                                else None for c in ("r", "a")), raw in YES)
            elif raw in SKIP:
                summary.n_skipped += 1
            else:
                raise InputError(
                    f"judgement {rec.get(judgement_col)!r} for edit {rec.get(edit_col)!r}: "
                    f"use yes (real reference error), no (miner wrong) or unsure",
                    path,
                    reader.line_num,
                )
    except csv.Error as exc:
        raise InputError(f"broken CSV row: {exc}", path, reader.line_num + 1) from None
    return summary


def judgements_of(summary: ReviewSummary, edits: Sequence[Edit]) -> tuple[ReviewSummary, list[str]]:
    """The sheet's judgements of ``edits`` (one run's), and the ids of judged rows that are not among them.

    A sheet is written for one run's edits; read beside another run (other prediction files, other miner
    settings), its precision was printed as that run's.  An edit matches by id (``clip@start-end``) and by
    what the sheet shows of it (kind, ``r`` and ``a``): the same span mined with other words is another edit."""
    mine = {e.edit_id: e for e in edits}
    kept, foreign = ReviewSummary(n_skipped=summary.n_skipped), []
    for edit_id, j in summary.judged.items():
        e = mine.get(edit_id)
        if e is None or e.kind != j.kind or any(shown is not None and shown != " ".join(str(mined).split())
                                                for shown, mined in ((j.r, e.r), (j.a, e.a))):
            foreign.append(edit_id)
            continue
        kept.count(j.kind, j.real)
        kept.judged[edit_id] = j
    return kept, foreign
