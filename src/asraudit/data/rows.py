"""Reading tabular input files row by row, with the file and row in every error.

Prediction files, manifests, recipe files and corrected references are all
JSONL (or a JSON array), CSV or Parquet.  One reader serves them all, so a
broken row, a non-UTF-8 byte or a bad number is reported the same way
wherever it occurs.  Rows are numbered as a person finds them: the line of a
JSONL or CSV file (the CSV header is line 1), the entry of a JSON array or
Parquet table.
"""

from __future__ import annotations

import errno
import json
import math
import os
import sys
from pathlib import Path
from typing import Any, Iterator, Sequence

from asraudit.arguments import STRAY_UNDERSCORE, stray_underscore
from asraudit.errors import InputError

ROW_SUFFIXES = (".jsonl", ".json", ".csv", ".parquet")


def pick_field(row: dict, names: Sequence[str]) -> str | None:
    """The first of ``names`` present in ``row`` (aliases in order of preference)."""
    for name in names:
        if name in row:
            return name
    return None


def not_a_file(path: Path, what: str) -> str:
    """Why ``path``, which is not a regular file, cannot be read as a ``what`` (the message of an InputError).

    "no such file" only when nothing is there: a symbolic link that loops or
    points nowhere, a folder, or a pipe or device (``/dev/null``) is named for
    what it is."""
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"{what} is a symbolic link that loops: point it at a file"
        if os.path.islink(path):
            return f"{what} is a symbolic link to {os.readlink(path)}, which is not there"
        return f"no such {what}"
    import stat

    if stat.S_ISDIR(st.st_mode):
        return f"{what} is a folder: name a file"
    return f"{what} is not a regular file (a pipe, socket or device): save its rows to a file"


_SAVE_UTF8 = "save the file as UTF-8"


_ZIP = b"PK\x03\x04"  # a zip archive's first bytes: an .xlsx or .ods workbook saved under a text file's name


def _refuse_zip(raw: bytes, path: Path, fix: str) -> None:
    """A workbook is named for what it is even where its bytes happen to decode: a small zip's header bytes (its
    timestamps, its CRC) are sometimes all valid UTF-8, and the file then failed as a broken row instead."""
    if raw[:4] == _ZIP:
        raise InputError(f"a zip archive (a spreadsheet workbook?), not UTF-8 text: {fix}", path, 1)


def decode_text(raw: bytes, path: Path, fix: str = _SAVE_UTF8) -> str:
    """UTF-8 (BOM allowed); a bad byte is an InputError naming its line (and ``fix``, how to save the file)."""
    _refuse_zip(raw, path, fix)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(_not_utf8(raw, exc.start, exc.start, fix), path, line) from None


def _not_utf8(raw: bytes, at: int, offset: int, fix: str) -> str:
    """What a byte at ``at`` of ``raw`` (``offset`` in the file) that is not UTF-8 means, and how to save the file."""
    what = f"not valid UTF-8 (byte 0x{raw[at]:02x} at offset {offset})"
    starts_file = offset == at  # ``raw`` is the file's beginning
    if starts_file and raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        what = "UTF-16 text (its byte-order mark starts the file), not UTF-8"
    return f"{what}: {fix}"


def text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of a UTF-8 file, read as a stream and split on "\n" only.

    Only "\n" ends a line: ``str.splitlines`` also splits on U+2028, U+2029,
    U+0085 and other separators that JSON allows raw inside a string, and
    would cut such a row in two.  Streaming keeps memory at one line, so a
    prediction file of a million rows is never held whole.  A trailing "\r"
    stays on the line (CSV and JSON both treat it as whitespace)."""
    offset = 0
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):  # binary files split on b"\n" only
            yield lineno, decode_line(raw, lineno, offset, path)
            offset += len(raw)


def decode_line(raw: bytes, lineno: int, offset: int, path: Path) -> str:
    """Line ``lineno`` (starting at byte ``offset``) as text; a BOM is dropped on line 1 only."""
    if offset == 0:
        _refuse_zip(raw, path, _SAVE_UTF8)
    try:
        return raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(_not_utf8(raw, exc.start, offset + exc.start, _SAVE_UTF8), path, lineno) from None


def lone_surrogate(text: str) -> int:
    """Where the first lone surrogate of ``text`` is (-1: none).

    A JSON ``\\ud800`` escape without its partner decodes to half of a UTF-16 pair, which is no character:
    scoring ignores it, but nothing can write it as UTF-8 (the result store, summary.json, the tables), so an
    audit stopped with a ``UnicodeEncodeError`` after its work.  ASCII text is decided by one C test."""
    if text.isascii():
        return -1
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return -1


def lone_surrogate_error(field: str, text: str, at: int, path: Path, row: int | None) -> InputError:
    return InputError(f"{field} holds a lone surrogate (\\u{ord(text[at]):04x} at character {at}), half of a "
                      "UTF-16 pair and no character: the file's writer split a character (a JSON \\u escape "
                      "without its partner); remove it or write the whole character", path, row)


def _is_json_array(path: Path) -> bool:
    if path.suffix != ".json":
        return False
    with path.open("rb") as fh:
        head = fh.read(4096).decode("utf-8-sig", errors="replace")
    return head.lstrip().startswith("[")


def jsonl_rows(path: Path) -> Iterator[tuple[int, dict]]:
    if _is_json_array(path):
        text = decode_text(path.read_bytes(), path)
        try:
            items = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"broken JSON: {exc.msg}", path, exc.lineno) from None
        except ValueError:  # an integer longer than Python converts (a ValueError, not a JSONDecodeError)
            raise InputError(f"broken JSON: {_TOO_LONG}", path) from None
        except RecursionError:
            raise InputError(f"broken JSON: {_TOO_DEEP}", path) from None
        if isinstance(items, list) and text.count(":") != sum(len(i) for i in items if isinstance(i, dict)):
            _refuse_duplicate_keys_in_array(text, path)
        for i, item in enumerate(items, start=1):
            if not isinstance(item, dict):
                raise InputError("expected a JSON object per entry", path, i)
            yield i, item
        return
    for lineno, line in text_lines(path):
        item = jsonl_object(line, path, lineno)
        if item is not None:
            yield lineno, item


# json.loads without its Python wrappers (a few hundred ns a row, most of a short row's parse): json's C
# scanner and the whitespace rule json.loads applies around the value.  Anything it does not accept as one
# object with only whitespace around it goes through json.loads, which says what is wrong.
_SCAN = json.scanner.make_scanner(json.JSONDecoder())
_SPACE = json.decoder.WHITESPACE.match


def plain_object(line: str) -> dict | None:
    """The JSON object ``line`` holds, when it is one object with only JSON whitespace around it and no key
    given twice in it; else None."""
    try:
        item, end = _SCAN(line, _SPACE(line, 0).end())
    except Exception:  # StopIteration or a decode error: json.loads reports it
        return None
    if type(item) is not dict or _SPACE(line, end).end() != len(line):
        return None
    if line.count(":") != len(item) and duplicate_key(line) is not None:  # a key given twice: see _DuplicateKey
        return None
    return item


# A JSON object whose key comes twice (``{"text": "a", "text": "b"}``: a row edited by hand, or written by a
# tool that appended a corrected field under the old name) is read by every JSON reader as its last value,
# without a word: the row's other reference was audited.  Each of a JSON object's members has one ":" outside
# its strings, so a line whose count of ":" equals its object's number of keys holds no other member, and no
# key twice; only the other lines (a ":" in a string, a nested object, or a key twice) are parsed again, with
# every object's pairs kept, to find out.  The check costs one ``str.count`` per line, or per block of lines.


class _DuplicateKey(Exception):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_pairs(pairs: list) -> dict:
    item = dict(pairs)
    if len(item) != len(pairs):
        seen: set = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return item


_SCAN_PAIRS = json.scanner.make_scanner(json.JSONDecoder(object_pairs_hook=_unique_pairs))


def duplicate_key(text: str, start: int = 0) -> str | None:
    """The first key given twice in one object (at any depth) of the JSON value at ``start`` in ``text`` (after
    any whitespace); None when there is none, or when no JSON value starts there (the reader that parses it says
    so)."""
    try:
        _SCAN_PAIRS(text, _SPACE(text, start).end())
    except _DuplicateKey as exc:
        return exc.key
    except Exception:  # StopIteration or a decode error
        return None
    return None


def duplicate_key_error(key: str, path: Path, row: int | None) -> InputError:
    return InputError(f"key {key!r} is given twice in one object of the row, and a JSON reader keeps only the last "
                      "value, without a word: rename or remove one", path, row)


def _refuse_duplicate_keys_in_array(text: str, path: Path) -> None:
    """A JSON array of rows (parsed already, so well formed) with a key given twice in a row: the row named by
    its 1-based entry number."""
    at = _SPACE(text, _SPACE(text, 0).end() + 1).end()  # after "["
    row = 0
    while not text.startswith("]", at):
        row += 1
        try:
            _, at = _SCAN_PAIRS(text, at)
        except _DuplicateKey as exc:
            raise duplicate_key_error(exc.key, path, row) from None
        at = _SPACE(text, at).end()
        if text.startswith(",", at):
            at = _SPACE(text, at + 1).end()


def jsonl_object(line: str, path: Path, lineno: int) -> dict | None:
    """The JSON object on one JSONL line; None for a blank line."""
    item = plain_object(line)
    if item is not None:
        return item
    if not line.strip():
        return None
    try:
        item = json.loads(line, object_pairs_hook=_unique_pairs)
    except _DuplicateKey as exc:
        raise duplicate_key_error(exc.key, path, lineno) from None
    except json.JSONDecodeError as exc:
        if _lone_cr(line):
            raise InputError(_CR_ONLY, path, lineno) from None
        if line.startswith("\ufeff"):  # json's own line was "Unexpected UTF-8 BOM (decode using utf-8-sig)" (case 320)
            raise InputError("a byte-order mark (bytes EF BB BF) starts this row, inside the file: two files joined "
                             "(cat a.jsonl b.jsonl), the second saved with a mark? Remove the mark from this row",
                             path, lineno) from None
        raise InputError(f"broken JSON row: {exc.msg} (column {exc.colno})", path, lineno) from None
    except ValueError:  # an integer longer than Python converts: a traceback
        raise InputError(f"broken JSON row: {_TOO_LONG}", path, lineno) from None
    except RecursionError:  # arrays within arrays, thousands deep: a traceback
        raise InputError(f"broken JSON row: {_TOO_DEEP}", path, lineno) from None
    if not isinstance(item, dict):
        raise InputError("expected a JSON object on each line", path, lineno)
    return item


def json_document(path: Path, what: str = "file") -> Any:
    """The JSON value a whole file holds (a release's aggregate, a switch file), read as ``jsonl_object`` reads a
    row: UTF-8 with or without a byte-order mark, a key given twice in one object refused (a reader keeps the
    last value, without a word: a model's results pasted twice, the first lost), an integer of more digits than
    Python converts or nesting deeper than it reads refused in one line (they were tracebacks)."""
    text = decode_text(path.read_bytes(), path, f"save the {what} as UTF-8")
    try:
        return json.loads(text, object_pairs_hook=_unique_pairs)
    except _DuplicateKey as exc:
        raise InputError(f"key {exc.key!r} is given twice in one object, and a JSON reader keeps only the last "
                         "value, without a word: keep one", path) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"not a JSON {what}: {exc}", path) from None
    except ValueError:  # an integer longer than Python converts
        raise InputError(f"not a JSON {what} Python reads: {_TOO_LONG.replace('row', 'file')}", path) from None
    except RecursionError:
        raise InputError(f"not a JSON {what} Python reads: {_TOO_DEEP.replace('row', 'file')}", path) from None


# Python refuses to convert an integer of more digits than this (``sys.get_int_max_str_digits``) with a ValueError
# that json lets through: a row holding one (a damaged file, a run of digits) was a traceback.
_TOO_LONG = (f"a number of more than {getattr(sys, 'get_int_max_str_digits', lambda: 4300)()} digits, more than any "
             "field holds (a damaged row?)")
_TOO_DEEP = "arrays or objects nested deeper than Python reads (a damaged row?)"


# A cell may be as long as a JSONL string: a hypothesis caught in a decoding loop runs past csv's default
# limit of 131,072 characters, which raised csv.Error.  The limit is process-wide; raising it only admits more.
_CSV_FIELD_LIMIT = 2**31 - 1


def _lone_cr(line: str) -> bool:
    """Whether ``line`` holds a carriage return that ends no line (a file with CR-only, old Mac, line endings
    reads as one line)."""
    return "\r" in line.rstrip("\r\n")


_CR_ONLY = ("a carriage return (CR) that ends no line: a file with old Mac (CR-only) line endings reads as one "
            "line; save it with LF or CRLF line endings")


def _check_separator(header: list[str], path: Path) -> None:
    """A header read as one column that holds a semicolon, a tab or a bar: a spreadsheet saved the file with
    that separator (semicolons in many European locales), and every column was "missing" from a header like
    ``audio_filepath;text``."""
    if len(header) == 1:
        sep = next((s for s in (";", "\t", "|") if s in header[0]), None)
        if sep is not None:
            raise InputError(f"the header is one column, {header[0]!r}: the file is separated by {sep!r}, not by "
                             "commas: save it as comma-separated CSV", path, 1)


def check_column_names(names: list, path: Path, row: int | None = 1) -> None:
    """Refuse a header that names one column twice: a row read as a record keeps only the last one's cell, so a
    file with two ``text`` columns (an original and a corrected one side by side, as a spreadsheet lets them be)
    was read with the second as every clip's reference, without a word.  Unnamed columns (a spreadsheet's empty
    trailing ones) are not names."""
    seen: dict = {}
    for i, name in enumerate(names, start=1):
        if name in (None, ""):
            continue
        if name in seen:
            header = " of the header" if row is not None else ""
            raise InputError(f"columns {seen[name]} and {i}{header} are both named {name!r}, and a row keeps only "
                             "one of their cells: rename or remove one", path, row)
        seen[name] = i


def csv_rows(path: Path) -> Iterator[tuple[int, dict]]:
    import csv  # here: most commands read no CSV, and importing it costs start-up

    # csv splits records itself (a quoted cell may hold a newline); it gets the file line by line.
    if csv.field_size_limit() < _CSV_FIELD_LIMIT:
        csv.field_size_limit(_CSV_FIELD_LIMIT)
    reader = csv.DictReader((line for _, line in text_lines(path)))
    while True:
        try:
            rec = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            row = reader.line_num + 1  # the line that failed: line_num counts the lines read before it
            line = next((text for n, text in text_lines(path) if n == row), "")
            raise InputError(_CR_ONLY if _lone_cr(line) else f"broken CSV row: {exc}", path, row) from None
        if reader.line_num <= 2:
            _check_separator(reader.fieldnames or [], path)
            check_column_names(list(reader.fieldnames or []), path)
        if None in rec:  # more cells than header columns
            raise InputError(
                f"row has {len(reader.fieldnames or []) + len(rec[None])} cells but the header has "
                f"{len(reader.fieldnames or [])}",
                path,
                reader.line_num,
            )
        names = reader.fieldnames or []
        if names and (rec[names[0]] or "").lstrip("\ufeff") == names[0] and _repeats_header(rec, names):
            raise InputError(f"repeats the header ({','.join(names)}): two CSV files joined (cat a.csv b.csv) keep "
                             "the second one's header as a row, which would be read as a clip: remove it", path,
                             reader.line_num)
        yield reader.line_num, rec


def _repeats_header(rec: dict, names: list[str]) -> bool:
    """Whether a CSV row is its header again (a byte-order mark before it, as the second file of two joined with
    ``cat`` starts when Excel saved it): read as a row, clip ``audio_filepath`` with reference ``text`` and
    hypothesis ``pred_text`` was scored like any clip (case 319)."""
    return [(rec[n] or "").lstrip("\ufeff") for n in names] == [n.lstrip("\ufeff") for n in names]


def parquet_rows(path: Path) -> Iterator[tuple[int, dict]]:
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
        check_column_names(list(parquet.schema_arrow.names), path, None)
        batches = parquet.iter_batches(batch_size=65536)  # columnar, a batch at a time
        row = 0
        for batch in batches:
            for rec in batch.to_pylist():
                row += 1
                yield row, rec
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        if isinstance(exc, InputError):
            raise
        raise InputError(f"cannot read Parquet file: {exc}", path) from None


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


def number_id(value, path: Path, row: int):
    """A clip id written as a number, as text: ``7`` and ``7.0`` are both ``"7"`` (a Parquet or pandas column of
    whole numbers with a gap is float, and its ids must meet the ``7`` of another file); NaN or infinity is no
    id.  Anything that is not a number comes back unchanged for the caller's checks."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"clip id is {value} (a number that names no clip): give every row its id", path, row)
    return number_text(value)


def number_text(value: int | float) -> str:
    """A number as the text of an id or a label: a whole float is its integer (``3.0`` is ``"3"``), since a Parquet
    or pandas column of whole numbers with a gap is float, and its ``3.0`` must meet the ``3`` of another file."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def parse_seconds(value, what: str, path: Path, row: int) -> float:
    """A time or duration in seconds: a finite number >= 0, else an InputError.  A boolean is no number of
    seconds, though Python's ``float(True)`` is 1.0: a JSON ``true`` (or a Parquet bool column) was read as one
    second, in every prediction file and RTFx."""
    if isinstance(value, bool):
        raise InputError(f"{what} must be a number of seconds, got the boolean {str(value).lower()}", path, row)
    if isinstance(value, str) and stray_underscore(value):  # float("0_5") is 5.0: a span ten times the word (341)
        raise InputError(f"{what} must be a number of seconds, got {value!r}: {STRAY_UNDERSCORE} (a typo?)", path,
                         row)
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a number of seconds, got {value!r}", path, row) from None
    except OverflowError:  # an integer beyond any float: a traceback
        raise InputError(f"{what} must be a non-negative, finite number of seconds, got an integer beyond any "
                         "float (over 308 digits)", path, row) from None
    if not math.isfinite(seconds) or seconds < 0:
        raise InputError(f"{what} must be a non-negative, finite number of seconds, got {value!r}", path, row)
    return seconds


def optional_seconds(value, what: str, path: Path, row: int) -> float | None:
    """``parse_seconds``, with a missing or empty value meaning unknown (None)."""
    if value is None or value == "":
        return None
    return parse_seconds(value, what, path, row)
