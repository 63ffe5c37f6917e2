"""Whether a WAV file (or another container whose header declares its length) holds all the samples its header
declares.

libsndfile reads a WAV whose ``data`` chunk is cut short (a partial copy, an
interrupted download) as the shorter clip it finds, and says so only in its
log text.  A clip missing its second half is transcribed without it and its
missing words are scored as the model's deletions, so the corpus check reads
the chunk sizes itself: a few reads of eight bytes, never the samples.

Writers that stream a WAV before they know its length put 0 or 0xFFFFFFFF in
the ``data`` size (and RF64 keeps the real size in another chunk); those are
left to libsndfile, which reads them to the end of the file.

The other containers a folder corpus reads that declare their length are
read the same way (libsndfile read each of them cut at half as the half it
holds, without a word): AIFF (``SSND``), Sun/NeXT AU (its header's data
size), Sony Wave64 (its ``data`` chunk), RF64 (its ``ds64`` chunk) and NIST
SPHERE (``sample_count`` times the sample and channel sizes), and those a
manifest can name: Amiga IFF 8SVX/16SV (``BODY``), Creative VOC (its first
sound block's length), Psion WVE (its sample count), MATLAB 5 (the size
in the tag of the ``wavedata`` matrix's data), MATLAB 4 (its matrices'
dimensions), Akai MPC2000 (the sample's end point) and AVR (its sample
length).  Not checked: IRCAM and Ensoniq PAF (their headers hold no length:
the samples run to the file's end, so a cut file cannot be told from a short
one).
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
    return _chunk_shortfall(handle, size, "<" if head[:4] == b"RIFF" else ">", b"data")


def _chunk_shortfall(handle: BinaryIO, size: int, order: str, wanted: bytes) -> tuple[int, int] | None:
    """``(declared, present)`` bytes of the chunk ``wanted`` (found by ``_chunk`` from offset 12) when the file
    ends inside it; None when it is whole, streamed (its size unknown) or not found."""
    found = _chunk(handle, 12, order, wanted)
    if found is None:
        return None
    offset, length = found
    present = size - offset - 8
    if length in _STREAMED or length <= present:
        return None
    return length, max(present, 0)


def _iff_shortfall(handle: BinaryIO, size: int, forms: tuple[bytes, ...], chunk: bytes) -> tuple[int, int] | None:
    """``(declared, present)`` bytes of ``chunk`` in an IFF ``FORM`` file of one of ``forms`` (AIFF, Amiga 8SVX)
    when the file ends inside it; None for a complete file or another format."""
    handle.seek(0)
    head = handle.read(12)
    if len(head) < 12 or head[:4] != b"FORM" or head[8:12] not in forms:
        return None
    return _chunk_shortfall(handle, size, ">", chunk)


def aiff_shortfall(handle: BinaryIO, size: int) -> tuple[int, int] | None:
    """``wav_shortfall`` for AIFF and AIFF-C: ``(declared, present)`` bytes of sound data when the ``SSND`` chunk
    is cut short (libsndfile reads the shorter clip it finds here too).  None for a complete file or another
    format."""
    short = _iff_shortfall(handle, size, (b"AIFF", b"AIFC"), b"SSND")
    if short is None or short[0] < 8:
        return None
    return short[0] - 8, max(short[1] - 8, 0)  # the chunk's own offset and block size are not sound data


def au_shortfall(handle: BinaryIO, size: int) -> tuple[int, int] | None:
    """``(declared, present)`` bytes of samples of a Sun/NeXT AU file (``.au``, ``.snd``) cut short: its header
    gives the samples' offset and size (0xFFFFFFFF: unknown, read to the end)."""
    handle.seek(0)
    head = handle.read(12)
    if len(head) < 12 or head[:4] not in (b".snd", b"dns."):
        return None
    order = ">" if head[:4] == b".snd" else "<"
    offset, length = struct.unpack(order + "II", head[4:12])
    present = size - offset
    if length in _STREAMED or length <= present:
        return None
    return length, max(present, 0)


# Sony Wave64 names its chunks by GUIDs; the first four bytes spell the RIFF names.
_W64_RIFF = b"riff" + bytes.fromhex("2e91cf11a5d628db04c10000")
_W64_DATA = b"data" + bytes.fromhex("f3acd3118cd100c04f8edb8a")


def w64_shortfall(handle: BinaryIO, size: int) -> tuple[int, int] | None:
    """``(declared, present)`` bytes of a Wave64 file's ``data`` chunk cut short (chunks: a 16-byte GUID and a
    64-bit size that counts the chunk's 24-byte header, padded to 8 bytes)."""
    handle.seek(0)
    head = handle.read(40)
    if len(head) < 40 or head[:16] != _W64_RIFF:
        return None
    offset = 40
    for _ in range(_MAX_CHUNKS):
        handle.seek(offset)
        chunk = handle.read(24)
        if len(chunk) < 24:
            return None
        length = struct.unpack("<Q", chunk[16:])[0]
        if chunk[:16] == _W64_DATA:
            declared, present = length - 24, size - offset - 24
            if declared <= 0 or declared <= present:
                return None
            return declared, max(present, 0)
        if length < 24:
            return None
        offset += (length + 7) & ~7
    return None


def rf64_shortfall(handle: BinaryIO, size: int) -> tuple[int, int] | None:
    """``(declared, present)`` bytes of an RF64 file's ``data`` chunk cut short: its size is the ``ds64`` chunk's
    64-bit one when the chunk's own is 0xFFFFFFFF."""
    handle.seek(0)
    head = handle.read(36)
    if len(head) < 36 or head[:4] != b"RF64" or head[8:16] != b"WAVEds64":
        return None
    data_size = struct.unpack("<Q", head[28:36])[0]
    found = _chunk(handle, 12, "<", b"data")
    if found is None:
        return None
    offset, length = found
    declared = data_size if length == 0xFFFFFFFF else length
    present = size - offset - 8
    if declared == 0 or declared <= present:
        return None
    return declared, max(present, 0)


def sphere_shortfall(handle: BinaryIO, size: int) -> tuple[int, int] | None:
    """``(declared, present)`` bytes of samples of a NIST SPHERE file (``.sph``: TIMIT, Switchboard) cut short:
    its text header gives its own size and ``sample_count``, ``channel_count`` and ``sample_n_bytes``. Files
    whose samples are compressed (shorten) are left to libsndfile, which does not read them."""
    handle.seek(0)
    head = handle.read(16)
    if not head.startswith(b"NIST_1A\n"):
        return None
    try:
        header_size = int(head[8:16])
    except ValueError:
        return None
    handle.seek(0)
    fields = {}
    for line in handle.read(min(header_size, 1 << 16)).split(b"\n")[2:]:
        parts = line.split(None, 2)
        if parts and parts[0] == b"end_head":
            break
        if len(parts) == 3:
            fields[parts[0]] = parts[2].strip()
    coding = fields.get(b"sample_coding", b"pcm")
    if coding not in (b"pcm", b"ulaw", b"mu-law", b"alaw"):
        return None
    try:
        declared = (int(fields[b"sample_count"]) * int(fields.get(b"channel_count", 1))
                    * int(fields.get(b"sample_n_bytes", 1 if coding != b"pcm" else 2)))
    except (KeyError, ValueError):
        return None
    present = size - header_size
    if declared <= 0 or declared <= present:
        return None
    return declared, max(present, 0)


def svx_shortfall(handle: BinaryIO, size: int) -> tuple[int, int] | None:
    """``(declared, present)`` bytes of an Amiga IFF 8SVX or 16SV file's ``BODY`` chunk cut short (IFF chunks,
    as AIFF's)."""
    return _iff_shortfall(handle, size, (b"8SVX", b"16SV"), b"BODY")


_VOC_MAGIC = b"Creative Voice File\x1a"
_VOC_SOUND = {1: 2, 9: 12}  # block type -> bytes of its own header before the samples (8-bit, new format)


def voc_shortfall(handle: BinaryIO, size: int) -> tuple[int, int] | None:
    """``(declared, present)`` bytes of samples of a Creative VOC file whose first sound block is cut short: the
    file header gives the first block's offset, and each block a type byte and a 24-bit length."""
    handle.seek(0)
    head = handle.read(26)
    if len(head) < 26 or not head.startswith(_VOC_MAGIC):
        return None
    offset = struct.unpack("<H", head[20:22])[0]
    handle.seek(offset)
    block = handle.read(4)
    if len(block) < 4 or block[0] not in _VOC_SOUND:
        return None
    length = int.from_bytes(block[1:4], "little")
    own = _VOC_SOUND[block[0]]
    present = size - offset - 4
    if length <= own or length <= present:
        return None
    return length - own, max(present - own, 0)


def wve_shortfall(handle: BinaryIO, size: int) -> tuple[int, int] | None:
    """``(declared, present)`` bytes of samples of a Psion WVE file (8-kHz A-law, one byte a sample) cut short:
    its 32-byte header gives the sample count."""
    handle.seek(0)
    head = handle.read(32)
    if len(head) < 32 or not head.startswith(b"ALawSoundFile**\x00"):
        return None
    declared = struct.unpack(">I", head[18:22])[0]
    present = size - 32
    if declared in _STREAMED or declared <= present:
        return None
    return declared, max(present, 0)



# MATLAB 5 data types (the element tag's type) and their sizes; 14 is a matrix, 15 a compressed element.
_MAT5_MATRIX = 14


def mat5_shortfall(handle: BinaryIO, size: int) -> tuple[int, int] | None:
    """``(declared, present)`` bytes of samples of a MATLAB 5 file (libsndfile's ``MAT5``: a ``samplerate`` and a
    ``wavedata`` matrix) cut short.  Each matrix is a tagged element holding its flags, dimensions and name, then
    its data, whose tag gives the data's exact size (the matrix's own size may count a padding that libsndfile
    does not write, 8 bytes in its files, so it is not the one compared)."""
    handle.seek(0)
    head = handle.read(128)
    if len(head) < 128 or not head.startswith(b"MATLAB") or head[126:128] not in (b"IM", b"MI"):
        return None
    order = "<" if head[126:128] == b"IM" else ">"
    offset = 128
    for _ in range(_MAX_CHUNKS):
        handle.seek(offset)
        tag = handle.read(8)
        if len(tag) < 8:
            return None
        kind, length = struct.unpack(order + "II", tag)
        if kind >> 16:  # a small element, its data in the tag
            offset += 8
            continue
        if kind == _MAT5_MATRIX:
            inner = offset + 8
            for part in range(4):  # flags, dimensions, name, data
                handle.seek(inner)
                sub = handle.read(8)
                if len(sub) < 8:
                    return None
                sub_kind, sub_length = struct.unpack(order + "II", sub)
                if sub_kind >> 16:  # small: its (at most 4) bytes in the tag itself
                    inner += 8
                    continue
                if part == 3:
                    present = size - inner - 8
                    if sub_length <= present:
                        break
                    return sub_length, max(present, 0)
                inner += 8 + ((sub_length + 7) & ~7)
        offset += 8 + length
    return None


# MATLAB 4 precision digit (the type's tens) -> bytes per element: double, float, int32, int16, uint16, uint8.
_MAT4_WIDTHS = {0: 8, 1: 4, 2: 4, 3: 2, 4: 2, 5: 1}


def _mat4_order(head: bytes) -> str | None:
    """The byte order of a MATLAB 4 file whose first matrix is a 1 x 1 named with 10 characters (``samplerate``):
    its type's thousands digit is 0 little-endian, 1 big-endian."""
    for order in ("<", ">"):
        kind, rows, columns, _, name_length = struct.unpack(order + "5I", head)
        if kind // 1000 == (1 if order == ">" else 0) and (rows, columns, name_length) == (1, 1, 11):
            return order
    return None


def mat4_shortfall(handle: BinaryIO, size: int) -> tuple[int, int] | None:
    """``(declared, present)`` bytes of samples of a MATLAB 4 file (libsndfile's ``MAT4``) cut short.  It has no
    magic: libsndfile reads one whose first matrix is the 1 x 1 ``samplerate``, as this does; each matrix's
    20-byte header gives its type, rows, columns and name length, so its size."""
    handle.seek(0)
    head = handle.read(20)
    if len(head) < 20:
        return None
    order = _mat4_order(head)
    if order is None:
        return None
    offset = 0
    for _ in range(_MAX_CHUNKS):
        handle.seek(offset)
        head = handle.read(20)
        if len(head) < 20:
            return None
        kind, rows, columns, imaginary, name_length = struct.unpack(order + "5I", head)
        width = _MAT4_WIDTHS.get((kind // 10) % 10)
        if width is None or kind % 10 != 0 or (offset == 0 and handle.read(11) != b"samplerate\x00"):
            return None
        start = offset + 20 + name_length
        declared = rows * columns * width * (2 if imaginary else 1)
        present = size - start
        if declared > present:
            return declared, max(present, 0)
        offset = start + declared
        if offset >= size:
            return None
    return None


def mpc2k_shortfall(handle: BinaryIO, size: int) -> tuple[int, int] | None:
    """``(declared, present)`` bytes of samples of an Akai MPC2000 sample (``.snd``, libsndfile's ``MPC2K``) cut
    short: its 42-byte header gives the sample's end point in frames, which a sampler keeps within the sample's
    data (libsndfile writes the frame count there), so a file holding fewer frames has lost its end.  16-bit
    little-endian samples, one or two channels."""
    handle.seek(0)
    head = handle.read(42)
    if len(head) < 42 or head[:2] != b"\x01\x04" or head[21] not in (0, 1):
        return None
    end, rate = struct.unpack("<I", head[30:34])[0], struct.unpack("<H", head[40:42])[0]
    if end == 0 or rate == 0:
        return None
    declared, present = end * 2 * (head[21] + 1), size - 42
    if declared <= present:
        return None
    return declared, max(present, 0)


def avr_shortfall(handle: BinaryIO, size: int) -> tuple[int, int] | None:
    """``(declared, present)`` bytes of samples of an Audio Visual Research file (``.avr``, Atari: ``2BIT``) cut
    short: its 128-byte header gives the sample length, in frames as libsndfile writes it; the format's notes call
    it the length in bytes or words, so for a stereo file only the smaller reading (one channel's) is compared:
    never more than the file must hold."""
    handle.seek(0)
    head = handle.read(128)
    if len(head) < 128 or head[:4] != b"2BIT":
        return None
    bits = struct.unpack(">H", head[14:16])[0]
    frames = struct.unpack(">I", head[26:30])[0]
    if bits not in (8, 16) or frames in _STREAMED:
        return None
    declared, present = frames * bits // 8, size - 128
    if declared <= present:
        return None
    return declared, max(present, 0)
