"""A JSONL file read a block of lines at a time, each block parsed in one go where it can be.

Reading a JSONL file line by line costs a few hundred ns of Python per line
before the row is even looked at (decode the line, call the scanner, check
what follows the object): a leaderboard's hundreds of thousands of rows, a
large part of a command's loading.  A block of whole lines (about a MiB) is
split, decoded and scanned line by line in C-level loops (``map``) instead.

Only a block whose every line is exactly one JSON object, nothing before or
after it (a "\\r" before the "\\n" aside), or empty, is taken whole: such a
line gives the per-line reader the very same object, so the rows are the
same.  Any other block (a line of spaces, whitespace around an object, broken
JSON, a byte that is not UTF-8) is left to ``Block.rows``, the per-line reader of
``text_lines`` and ``jsonl_object``, which skips or reports each line as it
always does, at the same line and byte offset.  Memory stays at a block
beyond what the caller keeps.
"""

from __future__ import annotations

import io
from codecs import BOM_UTF8 as _BOM
from itertools import compress, repeat
from operator import itemgetter
from pathlib import Path
from typing import Iterator, Sequence

from asraudit.data.rows import _SCAN, decode_line, duplicate_key, jsonl_object

BLOCK_BYTES = 1 << 20

_OBJECT = itemgetter(0)
_END = itemgetter(1)


class Block:
    """Whole lines of a JSONL file (each with its "\\n", the file's last one perhaps without).

    A plain class: a dataclass would cost every command that loads predictions half a millisecond of
    start-up to build."""

    __slots__ = ("data", "first_line", "offset", "path")

    def __init__(self, data: bytes, first_line: int, offset: int, path: Path):
        self.data = data
        self.first_line = first_line  # line number of the first line (1 for the file's first)
        self.offset = offset  # byte offset of the first line in the file
        self.path = path

    def objects(self) -> tuple[Sequence[int], list[dict]] | None:
        """(line numbers, objects) of the lines that are not blank, when each of them is one JSON object alone
        and the blank ones are empty; else None.

        Each line is decoded as the per-line reader decodes it (UTF-8, a BOM dropped from line 1 only), and
        on its own: a file with a few non-ASCII characters would make one decoded block a wide string, which
        its ASCII lines would then be copied out of and scanned at twice the cost.  An empty line is skipped
        as the per-line reader skips it (a file may end with one, or hold a few)."""
        data = self.data
        if b"\r" in data:  # JSON whitespace outside strings (a raw CR is not allowed in one)
            data = data.replace(b"\r\n", b"\n")
        raw = data.split(b"\n")
        if not raw[-1]:  # after the last "\n"
            raw.pop()
        if self.first_line == 1 and raw and raw[0].startswith(_BOM):
            raw[0] = raw[0][len(_BOM):]
        numbers: Sequence[int] = range(self.first_line, self.first_line + len(raw))
        if b"" in raw:
            numbers = list(compress(numbers, raw))
            raw = list(filter(None, raw))
        try:
            lines = list(map(bytes.decode, raw))
            scanned = list(map(_SCAN, lines, repeat(0)))
        except Exception:  # not UTF-8, broken JSON: the per-line reader says what is wrong
            return None
        # Each object must end its line.  The scanner raises StopIteration where no value starts (leading
        # whitespace, a line of spaces), which ends ``map`` early rather than propagating: a list too short.
        if list(map(_END, scanned)) != list(map(len, lines)):
            return None
        objects = list(map(_OBJECT, scanned))
        if not objects or set(map(type, objects)) != {dict}:
            return None
        # A key given twice in a row (see rows._DuplicateKey): only when the block's ":" outnumber its keys are
        # its lines counted, and only a line whose ":" outnumber its keys is parsed again.  (bytes.replace finds
        # them with memchr, in 0.2 ms a MiB; bytes.count looks at every byte, 0.37 ms.)
        if len(data) - len(data.replace(b":", b"")) != sum(map(len, objects)):
            counts = list(map(str.count, lines, repeat(":")))
            if any(duplicate_key(line) is not None
                   for line, n, item in zip(lines, counts, objects) if n != len(item)):
                return None  # the per-line reader names the row and the key
        return numbers, objects

    def rows(self) -> Iterator[tuple[int, dict]]:
        """(line number, object) of each line that is not blank, through the per-line reader and its errors."""
        offset = self.offset
        for lineno, raw in enumerate(io.BytesIO(self.data), start=self.first_line):  # split on b"\n" only
            rec = jsonl_object(decode_line(raw, lineno, offset, self.path), self.path, lineno)
            offset += len(raw)
            if rec is not None:
                yield lineno, rec


def jsonl_blocks(path: Path, block_bytes: int = BLOCK_BYTES) -> Iterator[Block]:
    """The file as blocks of whole lines, each about ``block_bytes`` (longer where a line is)."""
    line, offset = 1, 0
    pending: list[bytes] = []  # the start of a line not ended yet
    with path.open("rb") as fh:
        while chunk := fh.read(block_bytes):
            cut = chunk.rfind(b"\n") + 1
            if not cut:
                pending.append(chunk)
                continue
            head = chunk if cut == len(chunk) else chunk[:cut]
            whole = b"".join((*pending, head)) if pending else head
            pending = [chunk[cut:]] if cut < len(chunk) else []
            yield Block(whole, line, offset, path)
            line += whole.count(b"\n")
            offset += len(whole)
    if pending:  # a last line without "\n"
        yield Block(b"".join(pending), line, offset, path)
