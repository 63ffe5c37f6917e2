"""Whether a WAV file holds all the samples its header declares.

libsndfile reads a WAV whose ``data`` chunk is cut short (a partial copy, an
interrupted download) as the shorter clip it finds, and says so only in its
log text.  A clip missing its second half is transcribed without it and its
missing words are scored as the model's deletions, so the corpus check reads
the chunk sizes itself: a few reads of eight bytes, never the samples.

Writers that stream a WAV before they know its length put 0 or 0xFFFFFFFF in
the ``data`` size (and RF64 keeps the real size in another chunk); those are
left to libsndfile, which reads them to the end of the file.
"""

from __future__ import annotations

import struct
from typing import BinaryIO

_STREAMED = (0, 0xFFFFFFFF)
_MAX_CHUNKS = 64  # chunks before ``data`` (fmt, LIST, fact, bext, ...); a real file has a handful


def _chunk(handle: BinaryIO, offset: int, order: str, wanted: bytes) -> tuple[int, int] | None:
    """``(offset, length)`` of the first chunk named ``wanted`` from ``offset`` on (RIFF and IFF files are
    chunks of a 4-byte name and a length, padded to an even length); None when the file ends first or holds
    more chunks before it than a real file does."""
    for _ in range(_MAX_CHUNKS):
        handle.seek(offset)
        chunk = handle.read(8)
        if len(chunk) < 8:
            return None
        name, length = chunk[:4], struct.unpack(order + "I", chunk[4:])[0]
        if name == wanted:
            return offset, length
        offset += 8 + length + (length & 1)
    return None


def wav_shortfall(handle: BinaryIO, size: int) -> tuple[int, int] | None:
    """``(declared, present)`` bytes of the ``data`` chunk when the file holds fewer than its header declares.

    ``handle`` is positioned anywhere; ``size`` is the file's length in bytes.  None for a complete file,
    a file that is not a RIFF/RIFX WAV, a streamed size, or chunks too odd to walk (libsndfile judges those)."""
    handle.seek(0)
    head = handle.read(12)
    if len(head) < 12 or head[8:12] != b"WAVE" or head[:4] not in (b"RIFF", b"RIFX"):
        return None
    found = _chunk(handle, 12, "<" if head[:4] == b"RIFF" else ">", b"data")
    if found is None:
        return None
    offset, length = found
    present = size - offset - 8
    if length in _STREAMED or length <= present:
        return None
    return length, max(present, 0)


def aiff_shortfall(handle: BinaryIO, size: int) -> tuple[int, int] | None:
    """``wav_shortfall`` for AIFF and AIFF-C: ``(declared, present)`` bytes of sound data when the ``SSND`` chunk
    is cut short (libsndfile reads the shorter clip it finds here too).  None for a complete file or another
    format."""
    handle.seek(0)
    head = handle.read(12)
    if len(head) < 12 or head[:4] != b"FORM" or head[8:12] not in (b"AIFF", b"AIFC"):
        return None
    found = _chunk(handle, 12, ">", b"SSND")
    if found is None:
        return None
    offset, length = found
    present = size - offset - 8
    if length in _STREAMED or length <= present or length < 8:
        return None
    return length - 8, max(present - 8, 0)  # the chunk's own offset and block size are not sound data
