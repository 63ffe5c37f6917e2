"""How many seconds of audio an MP3's frames hold, from their headers alone.

libsndfile (through mpg123) takes an MP3's length from its Xing/Info (or
VBRI) header, or, without one, estimates it from the file's size and the
first frame's bitrate, and then reads exactly that many samples.  Three
files that people have are read as a shorter (or longer) clip than they
hold, with no error:

- an MP3 cut short (a partial copy or download): its Xing header still
  declares the whole length; the samples stop where the file does;
- two MP3 files joined with ``cat``: the first file's Xing header declares
  only its own length, and the second file is never read;
- a VBR MP3 without a Xing header: the length estimated from the first
  frame's bitrate (4.9 s of a 17-s file, measured).

Each frame header (4 bytes) gives its length in bytes and the samples it
holds, so walking them counts what the file holds without decoding it.

The walk also finds a file damaged in the middle: bytes overwritten inside
the stream (a bad sector, a corrupted copy) break the chain of frames, and
mpg123 skips to the next header it trusts, without an error, decoding the
clip short by the frames it skipped.  Between the frames of a whole file
there is nothing but frames and tags (ID3v2, ID3v1, APE, Lyrics3: at the
ends, and between two files joined); bytes that are neither, followed by
frames again, are damage (``MpegWalk.lost_at``).
"""

from __future__ import annotations

from dataclasses import dataclass

# Bitrates in kbit/s by (MPEG-1?, layer) and the header's 4-bit index (0: free format, 15: invalid).
_BITRATES = {
    (True, 1): (0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448),
    (True, 2): (0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384),
    (True, 3): (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320),
    (False, 1): (0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256),
    (False, 2): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
    (False, 3): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
}
# Sample rates by the header's 2-bit version field (0: MPEG-2.5, 2: MPEG-2, 3: MPEG-1; 1 is reserved).
_RATES = {3: (44100, 48000, 32000), 2: (22050, 24000, 16000), 0: (11025, 12000, 8000)}


def mpeg_frame(data: bytes, i: int) -> tuple[int, int, int] | None:
    """(length in bytes, samples, sample rate) of the frame whose header starts at ``i``, or None if none does."""
    if i + 4 > len(data) or data[i] != 0xFF or data[i + 1] & 0xE0 != 0xE0:
        return None
    version, layer_bits = (data[i + 1] >> 3) & 3, (data[i + 1] >> 1) & 3
    bitrate_index, rate_index, padding = data[i + 2] >> 4, (data[i + 2] >> 2) & 3, (data[i + 2] >> 1) & 1
    if version == 1 or layer_bits == 0 or bitrate_index in (0, 15) or rate_index == 3:
        return None
    layer = 4 - layer_bits
    mpeg1 = version == 3
    bitrate = _BITRATES[(mpeg1, layer)][bitrate_index] * 1000
    rate = _RATES[version][rate_index]
    if layer == 1:
        return (12 * bitrate // rate + padding) * 4, 384, rate
    samples = 1152 if layer == 2 or mpeg1 else 576
    return samples // 8 * bitrate // rate + padding, samples, rate


def _tag_length(data: bytes, i: int) -> int:
    """Bytes of an ID3v2 tag at ``i`` (0 if there is none)."""
    if data[i : i + 3] != b"ID3" or len(data) < i + 10:
        return 0
    size = 0
    for b in data[i + 6 : i + 10]:
        size = (size << 7) | (b & 0x7F)
    return 10 + size + (10 if data[i + 5] & 0x10 else 0)


def _other_tag_length(data: bytes, i: int) -> int:
    """Bytes of an ID3v1, APE or Lyrics3 tag starting at ``i`` (0 if there is none): the tags found at a file's
    end, and so between two files joined with ``cat``."""
    if data[i : i + 3] == b"TAG" and data[i : i + 4] != b"TAG+":
        return min(128, len(data) - i)
    if data[i : i + 4] == b"TAG+":  # the extended ID3v1 tag, 227 bytes before the ID3v1 tag
        return min(227, len(data) - i)
    if data[i : i + 8] == b"APETAGEX" and len(data) >= i + 32:
        size = int.from_bytes(data[i + 12 : i + 16], "little")  # the items and the footer, not the header
        flags = int.from_bytes(data[i + 20 : i + 24], "little")
        return min(32 + size if flags & (1 << 29) else 32, len(data) - i)  # a header, or a footer alone
    if data[i : i + 11] == b"LYRICSBEGIN":
        for end in (b"LYRICS200", b"LYRICSEND"):
            j = data.find(end, i + 11)
            if j >= 0:
                return j + len(end) - i
    return 0


def _no_audio(data: bytes, i: int, length: int) -> bool:
    """A Xing/Info or VBRI header frame: a frame that holds the stream's length, not audio."""
    head = data[i + 4 : i + min(length, 64)]
    return b"Xing" in head or b"Info" in head or data[i + 36 : i + 40] == b"VBRI"


def _followed(data: bytes, j: int) -> bool:
    """Whether what follows a frame ending at ``j`` confirms it: the end of the data, another frame, or a tag."""
    return j >= len(data) or mpeg_frame(data, j) is not None or data[j : j + 3] in (b"TAG", b"ID3") \
        or data[j : j + 8] == b"APETAGEX"


@dataclass(frozen=True)
class MpegWalk:
    """What an MPEG audio stream's frames hold: ``seconds`` of audio (header frames left out) at ``rate``, and,
    for a stream whose frames lose sync in the middle (bytes that are neither frames nor tags, with frames after
    them), the offset of the first such byte, the seconds of audio before it, and how many bytes were skipped.
    ``declared``: whether the stream starts with a Xing/Info or VBRI frame, which declares its length (without
    one, libsndfile estimates the length from the file's size, tags included)."""

    seconds: float
    rate: int
    declared: bool = False
    lost_at: int | None = None
    lost_after: float | None = None
    skipped: int = 0


def mpeg_walk(data: bytes) -> MpegWalk | None:
    """The frames of ``data`` walked (``MpegWalk``), or None when ``data`` does not start as an MPEG audio stream
    (after any ID3v2 tag).

    Between frames, tags are stepped over, and anything else (junk) to the next header that another header
    follows, as a decoder resynchronises; junk after the last frame (padding at the end) is no damage."""
    i = _tag_length(data, 0)
    first = mpeg_frame(data, i)
    if first is None:
        return None
    rate = first[2]
    samples = 0
    n = len(data)
    gap: int | None = None  # where the bytes skipped since the last frame or tag start
    lost_at = lost_after = None
    skipped = 0
    declared = _no_audio(data, i, first[0])
    while i < n:
        frame = mpeg_frame(data, i)
        if frame is not None and frame[0] > 4 and _followed(data, i + frame[0]):
            length, count, _ = frame
            if gap is not None and i + length < n and mpeg_frame(data, i + length) is not None:
                # frames again, two in a row, after bytes that are no frame: the stream lost sync mid-way
                if lost_at is None:
                    lost_at, lost_after = gap, samples / rate
                skipped += i - gap
            gap = None
            if not _no_audio(data, i, length):
                samples += count if i + length <= n else count * (n - i) // length
            i += length
            continue
        tag = _tag_length(data, i) or _other_tag_length(data, i)
        if tag:
            i += tag
            gap = None
            continue
        if gap is None:
            gap = i
        i = data.find(b"\xff", i + 1)  # resynchronise at the next possible header
        if i < 0:
            break
    return MpegWalk(samples / rate, rate, declared, lost_at, lost_after, skipped)


def mpeg_seconds(data: bytes) -> float | None:
    """Seconds of audio the MPEG audio frames of ``data`` hold (header frames left out), or None when ``data``
    does not start as an MPEG audio stream (after any ID3v2 tag)."""
    walk = mpeg_walk(data)
    return None if walk is None else walk.seconds
