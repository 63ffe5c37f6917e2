"""Whether an Ogg file (Opus, Vorbis) holds its streams whole, from its page headers alone.

An Ogg file declares no length up front: libsndfile takes it from the
granule position of the last page it finds.  A file cut short (a partial
copy or download) therefore reads as a shorter clip, with no error: an
Opus clip cut at 75% of its bytes decoded as 1.97 s of its 3.76 s, and the
missing words counted as the model's deletions.

The format says more than its length, though.  Every page starts with
``OggS``, gives its body's size in its segment table and carries a CRC of
the whole page, and each logical stream's first page has the
beginning-of-stream flag (0x02) and its last the end-of-stream flag (0x04),
which encoders write when they close the file.  A file whose pages do not
run back to back to its end, whose last page is cut, whose page fails its
CRC, or whose stream has no last page, is damaged (bytes after every
stream has ended, a tag some tools append, are left alone: nothing is
lost).  Two whole streams one
after another (two files joined with ``cat``, a valid "chained" Ogg file)
are reported too: libsndfile reads only the first.
"""

from __future__ import annotations

import zlib

# Page header: "OggS", version, flags, granule position (8), serial (4), sequence (4), CRC (4), segment count.
_HEADER = 27
_BOS, _EOS = 0x02, 0x04
# Bit order reversed within each byte: the Ogg CRC is zlib's CRC-32 polynomial without reflection.
_AGAIN = "; a partial copy or download? Copy it again"
_REVERSED = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))


def ogg_crc(page: bytes) -> int:
    """The Ogg CRC-32 of ``page`` (polynomial 0x04C11DB7, initial value 0, no reflection, no final XOR), computed
    by zlib over the page's bytes with their bits reversed (zlib's CRC is the reflected form)."""
    register = zlib.crc32(page.translate(_REVERSED), 0xFFFFFFFF) ^ 0xFFFFFFFF  # zlib starts from ~start
    return int(f"{register:032b}"[::-1], 2)


def ogg_damage(data: bytes) -> str | None:
    """What is wrong with the Ogg file ``data`` (the error's text, without the file's name), or None when its pages run whole
    from its start to its end and every stream that begins ends. None too for data that does not start with
    an Ogg page (not Ogg: libsndfile says what it is)."""
    if not data.startswith(b"OggS"):
        return None
    size = len(data)
    position, streams, open_streams, ended = 0, 0, set(), 0
    while position < size:
        if data[position:position + 4] != b"OggS":
            if ended and not open_streams and b"OggS" not in data[position:]:
                return None  # bytes after the streams ended (a tag a tool appended, padding): nothing is lost
            return (f"the file is damaged: the bytes at offset {position} of {size} are not an Ogg page (its pages "
                    f"run back to back to its end){_AGAIN}")
        if position + _HEADER > size:
            return f"the file is cut short: its last Ogg page's header is cut at byte {size}{_AGAIN}"
        flags, serial = data[position + 5], int.from_bytes(data[position + 14:position + 18], "little")
        segments = data[position + 26]
        if position + _HEADER + segments > size:
            return f"the file is cut short: its last Ogg page's header is cut at byte {size}{_AGAIN}"
        body = sum(data[position + _HEADER:position + _HEADER + segments])
        end = position + _HEADER + segments + body
        if end > size:
            return (f"the file is cut short: its last Ogg page (at byte {position}) declares {end - position} bytes, "
                    f"the file holds {size - position} of them{_AGAIN}")
        page = bytearray(data[position:end])
        stored = int.from_bytes(page[22:26], "little")
        page[22:26] = b"\0\0\0\0"
        if ogg_crc(bytes(page)) != stored:
            return (f"the file is damaged: its Ogg page at byte {position} fails its checksum (CRC), and a decoder "
                    f"skips such a page{_AGAIN}")
        if flags & _BOS:
            if ended and not open_streams:  # a whole stream, then another: a chained file
                return ("the file holds two Ogg streams one after another (two files joined with cat?), and "
                        "libsndfile reads only the first: convert it to WAV or FLAC with a tool that reads every "
                        "stream (ffmpeg)")
            streams += 1
            open_streams.add(serial)
        if flags & _EOS:
            open_streams.discard(serial)
            ended += 1
        position = end
    if open_streams:
        return ("the file is cut short: its Ogg stream has no last page (no page carries the end-of-stream flag), "
                f"so pages are missing at its end{_AGAIN}")
    return None
