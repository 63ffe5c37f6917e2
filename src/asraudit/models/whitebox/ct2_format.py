"""Read a CTranslate2 ``model.bin`` into numpy arrays, without CTranslate2.

CTranslate2 can run these models but not expose their weights, and the
white-box model needs every weight as a tensor.  The format is small enough
to read directly (all integers little-endian):

    u32 version, string spec name, u32 spec revision, u32 variable count,
    then per variable: string name, u8 rank, u32 dims[rank], u8 dtype,
    u32 byte count, raw bytes;
    then u32 alias count and (alias, target) string pairs.

A string is a u16 length (counting its trailing NUL), the bytes, the NUL.
Rank-0 variables are scalar config flags of the spec (``num_heads``,
``pre_norm``, ...), not weights; they are kept apart in ``flags``.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# dtype codes of the CTranslate2 binary format.
_DTYPES = {
    0: np.float32,
    1: np.int8,
    2: np.int16,
    3: np.int32,
    4: np.float16,
    # 5 is bfloat16, which numpy lacks: stored as its raw 16 bits and widened below.
    5: np.uint16,
}


@dataclass
class Ct2Model:
    """The contents of one ``model.bin``."""

    spec: str
    revision: int
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    flags: dict[str, int | float] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)

    def weight(self, name: str) -> np.ndarray:
        """A weight by name, following aliases (tied weights are stored once)."""
        return self.weights[self.aliases.get(name, name)]


class _Cursor:
    def __init__(self, buffer, source: Path):
        self.buffer = buffer
        self.offset = 0
        self.source = source

    def unpack(self, fmt: str):
        size = struct.calcsize("<" + fmt)
        if self.offset + size > len(self.buffer):
            raise ValueError(f"{self.source}: truncated CTranslate2 model at byte {self.offset}")
        values = struct.unpack_from("<" + fmt, self.buffer, self.offset)
        self.offset += size
        return values if len(values) > 1 else values[0]

    def string(self) -> str:
        length = self.unpack("H")
        raw = bytes(self.buffer[self.offset : self.offset + length])
        self.offset += length
        return raw.rstrip(b"\0").decode("utf-8")

    def take(self, nbytes: int) -> bytes:
        if self.offset + nbytes > len(self.buffer):
            raise ValueError(f"{self.source}: truncated CTranslate2 model at byte {self.offset}")
        raw = self.buffer[self.offset : self.offset + nbytes]
        self.offset += nbytes
        return raw


def _bfloat16_to_float32(raw16: np.ndarray) -> np.ndarray:
    return (raw16.astype(np.uint32) << 16).view(np.float32)


def read_ct2_model(path: str | Path) -> Ct2Model:
    """Parse ``path`` (a CTranslate2 model.bin).

    The file is memory-mapped and every array copied out once, so a 145 MB
    model costs one read and the mapping is closed before returning.
    """
    path = Path(path)
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as buffer:
        cursor = _Cursor(memoryview(buffer), path)
        try:
            cursor.unpack("I")  # binary version
            model = Ct2Model(spec=cursor.string(), revision=cursor.unpack("I"))
            for _ in range(cursor.unpack("I")):
                name = cursor.string()
                rank = cursor.unpack("B")
                dims = [cursor.unpack("I") for _ in range(rank)]
                code = cursor.unpack("B")
                nbytes = cursor.unpack("I")
                if code not in _DTYPES:
                    raise ValueError(f"{path}: variable {name!r} has unknown dtype code {code}")
                array = np.frombuffer(cursor.take(nbytes), dtype=_DTYPES[code]).copy()
                if code == 5:
                    array = _bfloat16_to_float32(array)
                if rank == 0:
                    model.flags[name] = array.item()
                else:
                    model.weights[name] = array.reshape(dims)
            for _ in range(cursor.unpack("I")):
                alias = cursor.string()
                model.aliases[alias] = cursor.string()
        finally:
            cursor.buffer.release()
    return model
