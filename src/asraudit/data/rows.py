"""Reading tabular input files row by row, with the file and row in every error.

Prediction files, manifests, recipe files and corrected references are all
JSONL (or a JSON array), CSV or Parquet.  One reader serves them all, so a
broken row, a non-UTF-8 byte or a bad number is reported the same way
wherever it occurs.  Rows are numbered as a person finds them: the line of a
JSONL or CSV file (the CSV header is line 1), the entry of a JSON array or
Parquet table.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Iterator, Sequence

from asraudit.errors import InputError

ROW_SUFFIXES = (".jsonl", ".json", ".csv", ".parquet")


def pick_field(row: dict, names: Sequence[str]) -> str | None:
    """The first of ``names`` present in ``row`` (aliases in order of preference)."""
    for name in names:
        if name in row:
            return name
    return None


def decode_text(raw: bytes, path: Path) -> str:
    """UTF-8 (BOM allowed); a bad byte is an InputError naming its line."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(
            f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})", path, line
        ) from None


def jsonl_rows(path: Path) -> Iterator[tuple[int, dict]]:
    text = decode_text(path.read_bytes(), path)
    stripped = text.lstrip()
    if path.suffix == ".json" and stripped.startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"broken JSON: {exc.msg}", path, exc.lineno) from None
        for i, item in enumerate(items, start=1):
            if not isinstance(item, dict):
                raise InputError("expected a JSON object per entry", path, i)
            yield i, item
        return
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"broken JSON row: {exc.msg} (column {exc.colno})", path, lineno) from None
        if not isinstance(item, dict):
            raise InputError("expected a JSON object on each line", path, lineno)
        yield lineno, item


def csv_rows(path: Path) -> Iterator[tuple[int, dict]]:
    text = decode_text(path.read_bytes(), path)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    for rec in reader:
        if None in rec:  # more cells than header columns
            raise InputError(
                f"row has {len(reader.fieldnames or []) + len(rec[None])} cells but the header has "
                f"{len(reader.fieldnames or [])}",
                path,
                reader.line_num,
            )
        yield reader.line_num, rec


def parquet_rows(path: Path) -> Iterator[tuple[int, dict]]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        raise InputError(f"cannot read Parquet file: {exc}", path) from None
    for i, rec in enumerate(table.to_pylist(), start=1):
        yield i, rec


def read_rows(path: Path, what: str = "file") -> Iterator[tuple[int, dict]]:
    """(row number, record) of a JSONL/JSON, CSV or Parquet file, chosen by suffix."""
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json"):
        return jsonl_rows(path)
    if suffix == ".csv":
        return csv_rows(path)
    if suffix == ".parquet":
        return parquet_rows(path)
    raise InputError(f"unsupported {what} type {suffix!r} (use {', '.join(ROW_SUFFIXES)})", path)


def parse_seconds(value, what: str, path: Path, row: int) -> float:
    """A time or duration in seconds: a finite number >= 0, else an InputError."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a number of seconds, got {value!r}", path, row) from None
    if not math.isfinite(seconds) or seconds < 0:
        raise InputError(f"{what} must be a non-negative, finite number of seconds, got {value!r}", path, row)
    return seconds


def optional_seconds(value, what: str, path: Path, row: int) -> float | None:
    """``parse_seconds``, with a missing or empty value meaning unknown (None)."""
    if value is None or value == "":
        return None
    return parse_seconds(value, what, path, row)
