"""Per-row scoring of a streamed prediction file, on one process or on every CPU.

A leaderboard file of a million rows is parsed, normalized and aligned row by
row; on one core that is about a minute.  The rows are independent, so a
large JSONL file is cut into byte ranges of whole lines and each range is
scored by a worker process that reads it itself (only the compact arrays
come back).  Line numbers, byte offsets in error messages and the first
error in file order are exactly those of the one-process reader: the ranges
are planned with the number of their first line, and each line is checked
by the same functions (``decode_line``, ``jsonl_object``, ``prediction_row``).
"""

from __future__ import annotations

import hashlib
import math
import pickle
from array import array
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Callable, Iterable

from asraudit.data.prediction_rows import DURATION_FIELDS, HYP_FIELDS, ID_FIELDS, REF_FIELDS, PredictionRow, prediction_row
from asraudit.data.rows import decode_line, jsonl_object, pick_field, plain_object
from asraudit.errors import InputError
from asraudit.metrics.wer import ClipCounts, clip_counts
from asraudit.text.align import edit_counts
from asraudit.text.normalize import available_cpus, comparable, worker_context

# Smaller files are scored in-process: starting workers costs up to a second (spawned).
PARALLEL_MIN_BYTES = 16 * 2**20
CHUNK_BYTES = 8 * 2**20


def text_hash(text: str) -> int:
    """A signed 64-bit hash of a string, stable across processes (unlike ``hash``)."""
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


class RowScores:
    """The compact per-row results of part of a file, in file order (what a worker sends back)."""

    def __init__(self) -> None:
        self.clip_hash, self.ref_hash, self.rows, self.counts = array("q"), array("q"), array("i"), array("i")
        self.skipped_hash, self.skipped_rows = array("q"), array("i")
        self.empty: list[str] = []
        self.spaced: list[str] = []  # ids with a space at an end (``data.predictions.space_twin``): few or none

    def add(self, r: PredictionRow, normalize_ref: Callable[[str], str], normalize_hyp: Callable[[str], str],
            counts: Callable[..., ClipCounts] = clip_counts) -> None:
        if r.hypothesis is None:  # the model did not run this clip
            self.skipped_hash.append(text_hash(r.clip_id))
            self.skipped_rows.append(r.row)
            return
        self.add_texts(r.clip_id, r.reference, r.hypothesis, r.row, normalize_ref, normalize_hyp, counts)

    def add_texts(self, clip_id: str, reference: str, hypothesis: str, row: int, normalize_ref: Callable[[str], str],
                  normalize_hyp: Callable[[str], str], counts: Callable[..., ClipCounts] = clip_counts) -> None:
        """A checked row with a hypothesis.  The default ``counts`` is read straight from the edit operations
        (``edit_counts``, what ``clip_counts`` wraps), without a ClipCounts object per row."""
        ref = normalize_ref(reference).split()
        hyp = normalize_hyp(hypothesis).split()
        if not ref:  # no defined WER: left out of the score and listed
            self.empty.append(clip_id)
            self.counts.extend((0, 0, 0, 0, len(hyp)))
        elif counts is clip_counts:
            self.counts.extend((*edit_counts(ref, hyp), len(ref), len(hyp)))
        else:
            c = counts(ref, hyp)
            self.counts.extend((c.substitutions, c.deletions, c.insertions, c.ref_words, c.hyp_words))
        self.clip_hash.append(text_hash(clip_id))
        if clip_id.strip() != clip_id:
            self.spaced.append(clip_id)
        self.ref_hash.append(text_hash(comparable(reference)))
        self.rows.append(row)

    def extend(self, other: "RowScores") -> None:
        for name in ("clip_hash", "ref_hash", "rows", "counts", "skipped_hash", "skipped_rows", "empty", "spaced"):
            getattr(self, name).extend(getattr(other, name))


def score_rows(rows: Iterable[PredictionRow], normalize: Callable[[str], str],
               normalize_hyp: Callable[[str], str], counts: Callable[..., ClipCounts] = clip_counts) -> RowScores:
    """Every row's counts; ``counts`` aligns normalized words (a scorer's, ``metrics.scorers``)."""
    out = RowScores()
    for r in rows:
        out.add(r, normalize, normalize_hyp, counts)
    return out


def plan_ranges(path: Path, chunk_bytes: int = CHUNK_BYTES) -> list[tuple[int, int, int]]:
    """(start byte, end byte, number of the first line) of ranges of whole lines covering ``path``."""
    out = []
    start, line = 0, 1
    with path.open("rb") as fh:
        while True:
            block = fh.read(chunk_bytes)
            if not block:
                return out
            if not block.endswith(b"\n"):
                block += fh.readline()  # to the end of the line (binary readline splits on b"\n" only)
            out.append((start, start + len(block), line))
            line += block.count(b"\n")
            start += len(block)


def _range_rows(path: Path, start: int, end: int, first_line: int) -> Iterable[PredictionRow]:
    with path.open("rb") as fh:
        fh.seek(start)
        data = fh.read(end - start)
    pieces = data.split(b"\n")
    offset = start
    for i, piece in enumerate(pieces):
        raw = piece + b"\n" if i < len(pieces) - 1 else piece  # the last piece: b"" or an unended last line
        if not raw:
            break
        lineno = first_line + i
        rec = jsonl_object(decode_line(raw, lineno, offset, path), path, lineno)
        offset += len(raw)
        if rec is not None:
            yield prediction_row(rec, path, lineno)


def _plain_columns(rec: dict) -> tuple | None:
    """(id, reference, hypothesis, duration or None) columns of rows with these keys; None if one of the
    first three is missing (the checked path reports it)."""
    fields = pick_field(rec, ID_FIELDS), pick_field(rec, REF_FIELDS), pick_field(rec, HYP_FIELDS)
    return None if None in fields else (*fields, pick_field(rec, DURATION_FIELDS))


def _score_range_plain(path: Path, start: int, end: int, first_line: int, normalize: Callable[[str], str],
                       counts: Callable[..., ClipCounts]) -> RowScores | None:
    """``score_rows`` over the range, the common row read without the checked path's per-field calls.

    The range is decoded once (UTF-8 splits into lines exactly where the bytes do, so each line is the
    text ``decode_line`` gives); None if it does not decode, and the checked reader takes the range.
    A line is plain when it is one JSON object with a string id (not blank), reference and hypothesis,
    and no duration or a finite float >= 0: what ``prediction_row`` accepts unchanged.  Any other line
    goes through ``jsonl_object`` and ``prediction_row`` as the checked reader's would, errors included."""
    with path.open("rb") as fh:
        fh.seek(start)
        data = fh.read(end - start)
    try:
        text = data.decode("utf-8-sig" if first_line == 1 else "utf-8")
    except UnicodeDecodeError:
        return None
    out = RowScores()
    columns: dict[tuple, tuple | None] = {}
    lines = text.split("\n")
    last = len(lines) - 1
    for i, line in enumerate(lines):
        rec = plain_object(line)  # None: broken JSON, a blank line or not an object; the checked path decides
        if rec is not None:
            keys = tuple(rec)
            fields = columns.get(keys, False)
            if fields is False:
                fields = columns[keys] = _plain_columns(rec)
            if fields is not None:
                clip_id, reference, hypothesis = rec[fields[0]], rec[fields[1]], rec[fields[2]]
                duration = rec[fields[3]] if fields[3] is not None else None
                if (type(clip_id) is str and type(reference) is str and type(hypothesis) is str and clip_id.strip()
                        and (duration is None or (type(duration) is float and 0.0 <= duration < math.inf))):
                    out.add_texts(clip_id, reference, hypothesis, first_line + i, normalize, normalize, counts)
                    continue
        if i == last and not line:
            break  # the end of the range (or an unended last line, handled above)
        rec = jsonl_object(line + "\n" if i < last else line, path, first_line + i)
        if rec is not None:
            out.add(prediction_row(rec, path, first_line + i), normalize, normalize, counts)
    return out


def _score_range(task) -> RowScores | tuple[str, str | None, int | None]:
    path, start, end, first_line, normalize, counts = task
    try:
        plain = _score_range_plain(path, start, end, first_line, normalize, counts)
        if plain is not None:
            return plain
        return score_rows(_range_rows(path, start, end, first_line), normalize, normalize, counts)
    except InputError as exc:  # sent back as fields: the parent raises it with the same place
        return (exc.message, exc.source, exc.row)


def can_parallelize(path: Path, normalize: Callable[[str], str], workers: int, min_bytes: int) -> bool:
    """A JSONL file big enough to be worth the workers, and a normalizer a worker can import."""
    if workers <= 1 or path.suffix.lower() != ".jsonl" or path.stat().st_size < min_bytes:
        return False
    try:
        pickle.dumps(normalize)
    except Exception:  # a lambda or closure: score in-process
        return False
    return True


def score_file_parallel(path: Path, normalize: Callable[[str], str], workers: int | None = None,
                        chunk_bytes: int = CHUNK_BYTES, counts: Callable[..., ClipCounts] = clip_counts) -> RowScores:
    """``score_rows`` over every row of a JSONL file, by ``workers`` processes (default: every CPU)."""
    workers = workers or available_cpus()
    tasks = [(path, start, end, line, normalize, counts) for start, end, line in plan_ranges(path, chunk_bytes)]
    out = RowScores()
    with ProcessPoolExecutor(workers, mp_context=worker_context()) as pool:
        for part in pool.map(_score_range, tasks):  # in file order: the first bad row is the one reported
            if isinstance(part, tuple):
                message, source, row = part
                raise InputError(message, source, row)
            out.extend(part)
    return out
