"""Reading audio into what every model takes: mono float32 at 16 kHz.

Files are decoded with libsndfile (through ``soundfile``), which reads WAV,
FLAC, Ogg Vorbis/Opus and MP3 without an external ``ffmpeg``: an audit must
decode the same bytes to the same samples on every machine, and a system
ffmpeg is a moving target.  Header-less PCM (``.raw``/``.pcm``, e.g.
pocketsphinx's ``goforward.raw``) is read with an explicit ``RawFormat``.

Resampling uses libsoxr (``soxr``, "HQ" quality): a band-limited polyphase
resampler that handles any rational ratio (44.1 kHz -> 16 kHz is 160/441)
with stop-band attenuation far below what an ASR front end can see, in a
small wheel and a few milliseconds per minute of audio.
``scipy.signal.resample_poly`` would do the job too, but pulls in all of
SciPy for one function and its default Kaiser window aliases more; FFT
resampling (``scipy.signal.resample``) assumes a periodic signal and rings at
the clip edges, where reference errors often sit.

Every failure is an ``InputError`` that names the audio file, and the
manifest row when the caller knows it, so a broken clip in a 100k-clip
corpus can be found without a debugger.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf
import soxr

from asraudit.audio.constants import FLOAT_PEAK_LIMIT, SAMPLE_RATE
from asraudit.audio.mpeg_frames import mpeg_frame, mpeg_walk
from asraudit.audio.ogg_pages import ogg_damage
from asraudit.audio.wav_header import (aiff_shortfall, au_shortfall, avr_shortfall, mat4_shortfall, mat5_shortfall,
                                      mpc2k_shortfall, rf64_shortfall, sphere_shortfall, svx_shortfall, voc_shortfall,
                                      w64_shortfall, wav_shortfall, wve_shortfall)
from asraudit.display_paths import display_path
from asraudit.errors import InputError

RAW_SUFFIXES = (".raw", ".pcm")
# Bytes per sample of the libsndfile subtypes a header-less file can hold.
RAW_SAMPLE_WIDTHS = {"PCM_S8": 1, "PCM_U8": 1, "PCM_16": 2, "PCM_24": 3, "PCM_32": 4, "FLOAT": 4, "DOUBLE": 8}
# The suffixes a folder corpus reads as audio: what libsndfile decodes (AIFF, Sun/NeXT AU, Apple CAF, Sony Wave64
# and NIST SPHERE as well as the common ones; a file is identified by its header, not by this list).
AUDIO_SUFFIXES = (".wav", ".flac", ".ogg", ".oga", ".opus", ".mp3", ".aif", ".aiff", ".aifc", ".au", ".snd", ".caf",
                  ".w64", ".rf64", ".sph") + RAW_SUFFIXES


@dataclass(frozen=True)
class RawFormat:
    """How to read header-less PCM.  The default is what speech tools write:
    16-bit signed little-endian mono at 16 kHz."""

    sample_rate: int = SAMPLE_RATE
    channels: int = 1
    subtype: str = "PCM_16"
    endian: str = "LITTLE"


@dataclass(frozen=True)
class Origin:
    """Where a clip came from, for error messages: a manifest and its row."""

    source: str | Path | None = None
    row: int | None = None


# libsndfile's "Error opening <_io.BytesIO object at 0x7f...>: " before the reason of an in-memory file.
_OPENING = re.compile(r"^Error opening <[^>]*>: ")


def _fail(message: str, audio: str | Path, origin: Origin | None) -> InputError:
    if origin is not None and origin.source is not None:
        return InputError(f"audio file {display_path(audio, Path.cwd())}: {message}", origin.source, origin.row)
    return InputError(message, audio)


def to_mono(samples: np.ndarray) -> np.ndarray:
    """Average the channels (frames x channels -> frames).

    Averaging, not taking the first channel: a stereo recording with the
    speaker panned to one side would otherwise lose the speech."""
    if samples.ndim == 1:
        return samples
    return samples.mean(axis=1, dtype=np.float32)


def resample(samples: np.ndarray, orig_rate: int, target_rate: int = SAMPLE_RATE) -> np.ndarray:
    """Band-limited resampling with libsoxr (see the module docstring for why)."""
    if orig_rate == target_rate:
        return samples
    if orig_rate <= 0:
        raise ValueError(f"sample rate must be positive, got {orig_rate}")
    return soxr.resample(samples, orig_rate, target_rate, quality="HQ")


# The lowest sample rate that can hold speech: telephone audio is 8 kHz, and below 4 kHz even the vowels' second
# formants are gone.  A header claiming less (1 Hz) is broken, and resampling it to 16 kHz makes seconds of noise.
MIN_SAMPLE_RATE = 4000


# The highest rate audio is recorded at (DXD and "768k" converters).  A header claiming more is broken, as one
# claiming 1 Hz is: a 2.8-s clip whose header said 1.6 MHz was read as 0.03 s (2**31 - 1 Hz: no samples at all)
# and transcribed ("you"), exit 0.
MAX_SAMPLE_RATE = 768_000


def _check_rate(rate: int, name: str | Path, origin: Origin | None) -> None:
    if rate < MIN_SAMPLE_RATE:
        raise _fail(f"sample rate {rate} Hz is below {MIN_SAMPLE_RATE} Hz, too low to hold speech (a broken "
                    "header?): resample the file, or fix the rate its header gives", name, origin)
    if rate > MAX_SAMPLE_RATE:
        raise _fail(f"sample rate {rate} Hz is above {MAX_SAMPLE_RATE} Hz, the highest rate audio is recorded at "
                    "(a broken header?): fix the rate its header gives", name, origin)


def _whole_rate(rate: object, name: str | Path, origin: Origin | None) -> int:
    """A rate given with samples (a dataset's decoded ``sampling_rate``, not a file's header) as a whole number of
    Hz (case 332): ``int()`` stopped a NaN or an infinity with a ``ValueError`` / ``OverflowError`` traceback, and
    cut 16000.5 to 16000 without a word; a whole float (``16000.0``, a pandas column's) is that integer."""
    if isinstance(rate, (bool, np.bool_)) or not isinstance(rate, (int, float, np.integer, np.floating)) \
            or not math.isfinite(rate) or rate != int(rate):
        shown = str(rate).lower() if isinstance(rate, (bool, np.bool_)) else repr(rate) if isinstance(rate, str) \
            else str(rate)
        raise _fail(f"sample rate {shown} is not a whole number of Hz (a broken row?): give the rate the samples "
                    "were recorded at", name, origin)
    return int(rate)


def prepare(samples: np.ndarray, rate: int, *, name: str | Path = "<array>", origin: Origin | None = None) -> np.ndarray:
    """Mono mixdown, resample to 16 kHz, float32, C-contiguous, checked.

    Empty or non-finite audio is refused here rather than passed on: a NaN
    makes some backends emit garbage text that would be stored as a result."""
    rate = _whole_rate(rate, name, origin)
    _check_rate(rate, name, origin)
    samples = np.asarray(samples)
    if samples.ndim not in (1, 2):
        raise _fail(f"expected a 1-D or (frames, channels) array, got shape {samples.shape}", name, origin)
    if samples.size == 0:
        raise _fail("audio is empty (no samples)", name, origin)
    if samples.dtype.kind not in "fiu":
        raise _fail(f"samples of type {samples.dtype} are no audio: give float samples in [-1, 1] or integer PCM",
                    name, origin)
    _refuse_other_layouts(samples, name, origin)
    samples = _checked_mono(integer_pcm_to_float(samples).astype(np.float32, copy=False), name, origin)
    out = resample(samples, int(rate))
    if out.size == 0:  # less than half a sample at 16 kHz: models were given an empty array
        raise _empty_at_16k(samples.shape[0], int(rate), name, origin)
    return np.ascontiguousarray(out, dtype=np.float32)


def _refuse_other_layouts(samples: np.ndarray, name: str | Path, origin: Origin | None) -> None:
    """Arrays a caller builds in Python (``Clip(id, samples)``) that no reader gives: a (channels, frames) array,
    as ``torchaudio.load`` and ``librosa.load(mono=False)`` give, was read as (frames, channels), speech of one
    channel as one frame of 68,160 channels, refused as "its 68160 channels cancel when mixed to mono" (a
    signal with an offset was decoded to one sample, silently, and transcribed as ""); 64-bit integers (numpy's
    default for a list of Python ints) holding 16-bit PCM values were scaled by 2**63 into silence.  The
    readers' own arrays are never these: files give (frames, channels) of at most 32-bit samples, and the
    Hugging Face reader turns a dataset's channels-first array first."""
    if samples.ndim == 2 and samples.shape[1] > samples.shape[0]:
        raise _fail(f"an array of shape {samples.shape} reads as {samples.shape[0]} frame(s) of {samples.shape[1]} "
                    "channels: a (channels, frames) array, as torchaudio.load and librosa.load(mono=False) give? "
                    "Samples are 1-D or (frames, channels): pass samples.T, or samples.mean(axis=0) for mono",
                    name, origin)
    if samples.dtype.kind in "iu" and samples.dtype.itemsize > 4:
        raise _fail(f"samples of type {samples.dtype}: no audio is stored as 64-bit integers (an array of Python "
                    "ints is int64), and scaled by that type's full scale its values are silence: cast them to the "
                    "PCM type they hold (samples.astype(np.int16)) or give float samples in [-1, 1]", name, origin)


def _empty_at_16k(frames: int, rate: int, name: str | Path, origin: Origin | None) -> InputError:
    return _fail(f"audio is empty at 16 kHz ({frames} sample(s) at {rate} Hz, less than one at 16 kHz)", name, origin)


def _checked_mono(samples: np.ndarray, name: str | Path, origin: Origin | None) -> np.ndarray:
    """Float samples, 1-D or (frames, channels), checked (finite, channels that do not cancel, a float scale)
    and mixed to mono: what every decoded clip goes through, at load for the files that can fail it."""
    if not np.isfinite(samples).all():
        raise _fail("audio contains NaN or infinite samples", name, origin)
    if samples.ndim == 2 and samples.shape[1] > 1:
        check_channels_mix(samples, name, origin)
    samples = to_mono(samples)
    check_float_scale(samples, name, origin)
    return samples


# Samples only these can hold wrong: NaN, infinities and values at integer scale need float samples (libsndfile
# scales integer PCM into [-1, 1]); cancelling channels need two or more.  A corpus of integer mono files (most
# speech corpora) is read at load by its headers alone; other files are decoded once more there, so a bad one is
# refused before any model runs instead of where the run reaches it.
_FLOAT_SUBTYPES = ("FLOAT", "DOUBLE")


def _samples_can_fail(info) -> bool:
    return info.subtype in _FLOAT_SUBTYPES or info.channels > 1


# Frames per block when the corpus check reads a file's samples: a few MB, whatever the file's length.
_CHECK_BLOCK = 1 << 18


def _check_samples(handle, name: str | Path, origin: Origin | None) -> None:
    """Read a file whose samples could fail the decode checks block by block, and check them as a decode would
    (no resampling).  Whole, a 20-minute six-channel file took 1.4 GB here (its float32 samples and their
    float64 squares); the blocks hold a few MB."""
    finite, frames, peak = True, 0, 0.0
    channel_power = mix_power = None
    try:
        with sf.SoundFile(handle) as f:
            for block in f.blocks(blocksize=_CHECK_BLOCK, dtype="float32", always_2d=True):
                finite = finite and bool(np.isfinite(block).all())
                if not finite:
                    break
                mix = block.mean(axis=1, dtype=np.float64)
                power = np.einsum("ij,ij->j", block, block, dtype=np.float64)
                channel_power = power if channel_power is None else channel_power + power
                mix_power = float(mix @ mix) + (mix_power or 0.0)
                peak = max(peak, float(np.abs(mix).max(initial=0.0)))
                frames += block.shape[0]
    except (sf.SoundFileError, RuntimeError, TypeError, ValueError) as exc:
        reason = _OPENING.sub("", str(exc).replace(f"Error opening {str(name)!r}: ", ""))
        raise _fail(f"cannot decode audio ({reason})", name, origin) from None
    if not finite:
        raise _fail("audio contains NaN or infinite samples", name, origin)
    if not frames:
        return
    if channel_power.shape[0] > 1:
        _refuse_cancelled(float(np.sqrt(channel_power.max() / frames)), float(np.sqrt(mix_power / frames)),
                          int(channel_power.shape[0]), name, origin)
    _refuse_float_peak(peak, name, origin)


# A mix this far below its loudest channel has cancelled: two channels in opposite phase (a balanced cable wired
# backwards, a stereo widener) average to near silence, which models transcribe as "you" or nothing.  Channels of
# one scene mix to about -3 dB (uncorrelated) or 0 dB (correlated); -20 dB does not happen by chance.
CANCELLED_MIX_DB = -20.0
# Below this RMS (-80 dBFS) the loudest channel is itself silence, and a silent mix is the truth.
SILENT_RMS = 1e-4


def check_channels_mix(samples: np.ndarray, name: str | Path, origin: Origin | None) -> None:
    """Refuse multichannel audio whose channels cancel when averaged to mono (see ``CANCELLED_MIX_DB``)."""
    n = samples.shape[0]
    # Sums of squares in float64 without a float64 copy of every channel (a long multichannel file is large).
    loudest = float(np.sqrt(np.einsum("ij,ij->j", samples, samples, dtype=np.float64).max() / n))
    mix = samples.mean(axis=1, dtype=np.float64)
    _refuse_cancelled(loudest, float(np.sqrt(mix @ mix / n)), samples.shape[1], name, origin)


def _refuse_cancelled(loudest: float, mixed: float, channels: int, name: str | Path, origin: Origin | None) -> None:
    """``check_channels_mix``'s verdict from the RMS of the loudest channel and of the mix."""
    if loudest < SILENT_RMS:
        return
    db = 20 * np.log10(max(mixed, 1e-12) / loudest)
    if db < CANCELLED_MIX_DB:
        level = f"{-db:.0f} dB" if db > -120 else "over 120 dB"  # exact opposites mix to zero
        raise _fail(f"its {channels} channels cancel when mixed to mono (the mix is {level} below the "
                    "loudest channel: one is the other inverted?): save one channel, or invert one back", name, origin)


def integer_pcm_to_float(samples: np.ndarray) -> np.ndarray:
    """Integer samples (``scipy.io.wavfile.read`` gives int16) as float in [-1, 1), scaled by their type's full
    scale, as libsndfile scales integer PCM read from a file; unsigned 8-bit PCM is centred on 128.  Here the
    type says the scale, unlike integer values stored as float (``check_float_scale``).  Float passes as is."""
    if samples.dtype.kind == "i":
        return samples.astype(np.float64) / float(2 ** (8 * samples.dtype.itemsize - 1))
    if samples.dtype.kind == "u":
        half = float(2 ** (8 * samples.dtype.itemsize - 1))
        return (samples.astype(np.float64) - half) / half
    return samples


def check_float_scale(samples: np.ndarray, name: str | Path, origin: Origin | None) -> None:
    """Refuse float audio far outside [-1, 1] instead of guessing its scale.

    An error, not a silent rescale: dividing by 32768 is right for int16
    values but wrong for int24 or int32 ones, and an audit must not guess
    what the samples mean.  Integer PCM never gets here out of range
    (libsndfile scales it to [-1, 1], ``integer_pcm_to_float`` an integer array)."""
    _refuse_float_peak(float(np.max(np.abs(samples))), name, origin)


def _refuse_float_peak(peak: float, name: str | Path, origin: Origin | None) -> None:
    if peak > FLOAT_PEAK_LIMIT:
        hint = " (16-bit integer values stored as float?)" if peak <= 32768.0 else ""
        raise _fail(f"float samples reach {peak:g}, far outside [-1, 1]{hint}: divide them by the integer full "
                    "scale (32768 for 16-bit) or save the file as PCM_16", name, origin)


def _read(handle, name: str | Path, origin: Origin | None, raw: RawFormat | None) -> tuple[np.ndarray, int]:
    kwargs = {}
    if raw is not None:
        kwargs = dict(format="RAW", samplerate=raw.sample_rate, channels=raw.channels, subtype=raw.subtype, endian=raw.endian)
    try:
        return sf.read(handle, dtype="float32", always_2d=False, **kwargs)
    except (sf.SoundFileError, RuntimeError, TypeError, ValueError) as exc:
        reason = _OPENING.sub("", str(exc).replace(f"Error opening {str(name)!r}: ", ""))
        raise _fail(f"cannot decode audio ({reason})", name, origin) from None


# Containers whose header declares their samples' size, and the reader of each (``wav_header``).
_SHORTFALLS = (("WAV", wav_shortfall), ("AIFF", aiff_shortfall), ("AU", au_shortfall), ("Wave64", w64_shortfall),
               ("RF64", rf64_shortfall), ("NIST SPHERE", sphere_shortfall), ("IFF 8SVX", svx_shortfall),
               ("VOC", voc_shortfall), ("WVE", wve_shortfall), ("MATLAB 5", mat5_shortfall),
               ("MATLAB 4", mat4_shortfall), ("MPC2000", mpc2k_shortfall), ("AVR", avr_shortfall))


def _check_complete(handle, size: int, name: str | Path, origin: Origin | None, info=None) -> float | None:
    """Refuse a WAV, AIFF, AU, Wave64, RF64, NIST SPHERE, 8SVX, VOC, WVE, MATLAB 5 or 4, MPC2000, AVR, MP3 or Ogg file
    that libsndfile would read as another
    length than the file holds (see ``wav_header``, ``mpeg_frames`` and ``ogg_pages``).  Returns the seconds the
    decoder reads where they are not the header's (an MP3 whose length libsndfile estimates), else None."""
    for container, shortfall in _SHORTFALLS:
        short = shortfall(handle, size)
        if short:
            declared, present = short
            raise _fail(f"the file is cut short: its {container} header declares {declared} bytes of samples, the "
                        f"file holds {present} ({100 * present / declared:.0f}%); a partial copy or download? Copy "
                        "it again", name, origin)
    handle.seek(0)
    head = handle.read(4)
    if head[:3] == b"ID3" or (len(head) > 1 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0):  # MPEG audio, perhaps
        handle.seek(0)
        return _check_mpeg_length(handle.read(), name, origin, info)
    if head == b"OggS":
        handle.seek(0)
        _check_ogg(handle.read(), name, origin)
    return None


def _check_ogg(data: bytes, name: str | Path, origin: Origin | None) -> None:
    """Refuse an Ogg file (Opus, Vorbis) that is cut short, damaged or two streams joined (``ogg_pages``): it
    declares no length, so libsndfile read a cut file as a shorter clip, with no error. Checked before its header
    is read, which on a cut Vorbis file said "audio is empty" or "file is malformed", naming no cause."""
    damage = ogg_damage(data)
    if damage:
        raise _fail(damage, name, origin)


def _check_known_length(info, name: str | Path, origin: Origin | None) -> None:
    """Refuse a file whose header gives no length (libsndfile's frame count is then 2**63 - 1: a FLAC written to a
    pipe leaves its total sample count 0).  Its decode failed mid-run ("array is too big"), after the models had
    run on the clips before it; its duration read as 192 trillion seconds."""
    if info.frames >= 2**62:
        raise _fail(f"its {info.format} header does not give the number of samples (a stream written to a pipe?), "
                    "and libsndfile cannot read such a file whole: re-encode it from a file (or to WAV)", name, origin)


# Containers whose header declares a length the file may not hold (``_check_complete``; Ogg is checked before
# the header is read, ``_check_ogg``).
_DECLARED_LENGTH = ("WAV", "WAVEX", "AIFF", "MP3", "AU", "W64", "RF64", "NIST", "SVX", "VOC", "WVE", "MAT5", "MAT4",
                    "MPC2K", "AVR")


def _check_flac_end(handle, info, name: str | Path, origin: Origin | None) -> None:
    """Refuse a FLAC cut short, found when the corpus is read: its STREAMINFO declares the length, and the
    last sample cannot be reached (libFLAC seeks to it without decoding the rest).  Decoding it fails anyway
    ("flac decoder lost sync"), but only when the run reaches the clip, after the models ran on the others."""
    try:
        with sf.SoundFile(handle) as f:
            f.seek(info.frames - 1)
            if len(f.read(1)) == 1:
                return
    except (sf.SoundFileError, RuntimeError) as exc:
        reason = f" ({_OPENING.sub('', str(exc))})"
    else:
        reason = ""
    raise _fail(f"the file is cut short or damaged: its FLAC header declares {info.frames / info.samplerate:.2f} s, "
                f"and its last samples cannot be read{reason}; a partial copy or download? Copy it again",
                name, origin)


def _check_mpeg_length(data: bytes, name: str | Path, origin: Origin | None, info=None) -> float | None:
    """Refuse an MP3 whose frames lose sync in the middle (bytes overwritten: mpg123 skips them and the frames
    they hit, without an error), or hold another length than libsndfile reads (beyond rounding: half a second,
    or a tenth): cut short (a Xing header declares more), two files joined, or a VBR stream without a Xing header.

    Returns the seconds libsndfile's decoder reads when its header's length is not them: an MP3 without a Xing
    header whose length libsndfile estimates from the file's size, tags included (a CBR file with cover art in
    its ID3 tag: 11.71 s estimated of 5.47 s), is read whole, to its last frame; None otherwise."""
    walk = mpeg_walk(data)
    if walk is None:
        return None
    held = walk.seconds
    if walk.lost_at is not None:
        raise _fail(f"the file is damaged: its MP3 frames lose sync at byte {walk.lost_at} (after "
                    f"{walk.lost_after:.2f} s of {held:.2f} s): {walk.skipped} bytes are no MPEG frame, and a "
                    "decoder skips them and the audio they held, reading the clip short; a corrupted copy? Copy it "
                    "again", name, origin)
    try:
        info = info or sf.info(io.BytesIO(data))  # the caller's, when it has read the header already
    except (sf.SoundFileError, RuntimeError, TypeError, ValueError):
        return None  # not audio libsndfile reads: the decode says so
    if info.format != "MP3" or info.samplerate <= 0:
        return None
    read = info.frames / info.samplerate
    if held < read and not walk.declared:  # an estimate that counted bytes which are no audio: the frames are read
        return held
    if abs(held - read) <= max(0.5, 0.1 * max(held, read)):
        return None
    if held < read:
        raise _fail(f"the file is cut short: its MP3 header declares {read:.2f} s, its frames hold {held:.2f} s "
                    f"({100 * held / read:.0f}%); a partial copy or download? Copy it again", name, origin)
    raise _fail(f"its MP3 frames hold {held:.2f} s, but libsndfile would read {read:.2f} s, the length its first "
                "frames give (two MP3 files joined, or a VBR MP3 without a Xing header?): convert it to WAV or FLAC "
                "with a tool that reads every frame (ffmpeg)", name, origin)


# Bytes read from a raw file's start to find a container's signature (an MPEG frame can be 1.4 KB, and two are
# needed to tell one from samples that happen to start with 0xFF).
_RAW_HEAD = 4096


def _container(head: bytes) -> str | None:
    """The audio container whose signature starts ``head`` (the first 16 bytes or more of a file), if any."""
    if head[:4] in (b"RIFF", b"RIFX", b"RF64") and head[8:12] == b"WAVE":
        return "WAV"
    if head[:4] == b"FORM" and head[8:12] in (b"AIFF", b"AIFC"):
        return "AIFF"
    signatures = {b"fLaC": "FLAC", b"OggS": "Ogg", b"caff": "CAF", b".snd": "AU", b"NIST_1A": "NIST SPHERE"}
    for signature, container in signatures.items():
        if head.startswith(signature):
            return container
    if head[:3] == b"ID3" and head[3] in (2, 3, 4) and len(head) >= 10 and all(b < 0x80 for b in head[6:10]):
        return "MP3"
    first = mpeg_frame(head, 0)
    if first is not None and mpeg_frame(head, first[0]) is not None:  # two MPEG frame headers in a row
        return "MP3"
    return None


def _check_raw_file(head: bytes, name: str | Path, origin: Origin | None) -> None:
    """Refuse a ``.raw``/``.pcm`` file that is an audio container: read as header-less 16-bit 16 kHz samples, an
    8 kHz WAV was a clip of half its length at twice its speed, and an MP3 or FLAC noise, with no error."""
    container = _container(head)
    if container is not None:
        suffix = {"WAV": ".wav", "AIFF": ".aiff", "FLAC": ".flac", "Ogg": ".ogg", "CAF": ".caf", "AU": ".au",
                  "NIST SPHERE": ".sph", "MP3": ".mp3"}[container]
        raise _fail(f"the file is {container} audio (its first bytes say so), not the header-less PCM its "
                    f"{Path(str(name)).suffix or 'raw'} suffix stands for: rename it {suffix}", name, origin)


def _check_raw_size(size: int, name: str | Path, origin: Origin | None, raw: RawFormat) -> None:
    width = RAW_SAMPLE_WIDTHS.get(raw.subtype)
    if width and size % (width * raw.channels):
        raise _fail(
            f"raw PCM size {size} bytes is not a whole number of {raw.subtype} x {raw.channels}-channel frames "
            "(truncated file, or the wrong RawFormat)",
            name,
            origin,
        )


def load_audio(path: str | Path, *, origin: Origin | None = None, raw: RawFormat | None = None) -> np.ndarray:
    """Decode a file to mono float32 at 16 kHz.

    ``.raw``/``.pcm`` files are read as ``raw`` (default ``RawFormat()``);
    any other file is identified by its header, not its suffix."""
    path = Path(path)
    if not path.is_file():
        raise _fail("no such file" if not path.exists() else "not a regular file", path, origin)
    if raw is None and path.suffix.lower() in RAW_SUFFIXES:
        raw = RawFormat()
    try:
        if raw is not None:
            with open(path, "rb") as handle:
                _check_raw_file(handle.read(_RAW_HEAD), path, origin)
            _check_raw_size(path.stat().st_size, path, origin, raw)
        else:
            with open(path, "rb") as handle:
                _check_complete(handle, path.stat().st_size, path, origin)
        samples, rate = _read(str(path), path, origin, raw)
    except OSError as exc:  # permission denied and the like
        raise _fail(f"cannot read ({exc.strerror or exc})", path, origin) from None
    return prepare(samples, rate, name=path, origin=origin)


def decode_audio_bytes(data: bytes, *, name: str | Path = "<bytes>", origin: Origin | None = None,
                       raw: RawFormat | None = None) -> np.ndarray:
    """Decode an encoded file held in memory (e.g. a Hugging Face dataset row)."""
    if not data:
        raise _fail("audio is empty (0 bytes)", name, origin)
    if raw is not None:
        _check_raw_file(data[:_RAW_HEAD], name, origin)
        _check_raw_size(len(data), name, origin, raw)
    else:
        _check_complete(io.BytesIO(data), len(data), name, origin)
    samples, rate = _read(io.BytesIO(data), name, origin, raw)
    return prepare(samples, rate, name=name, origin=origin)


# Frames per block of the FLAC walk: 4 s at 16 kHz, so a damaged frame is placed within a few seconds.
_FLAC_BLOCK = 1 << 16


def _check_flac_frames(handle, info, name: str | Path, origin: Origin | None) -> None:
    """Refuse a FLAC damaged in the middle (a flipped byte, a bad sector): each frame carries a CRC, which
    libFLAC checks only when it decodes the frame, so the header and the last sample (``_check_flac_end``) read
    well, and the decode failed ("unknown error in flac decoder") only when the run reached the clip, after the
    models had run on the others.  Every frame is decoded here, in blocks of a few hundred kB, as integers: about
    1.6 ms for 10 s of 16 kHz mono (300 clips of 50 min: 0.53 s against 0.06 s; a hundred hours in about a minute,
    against the hours the models take).
    A file whose samples are read anyway (``_samples_can_fail``) is not decoded twice."""
    done = 0
    try:
        with sf.SoundFile(handle) as f:
            for block in f.blocks(blocksize=_FLAC_BLOCK, dtype="int16"):
                done += len(block)
    except (sf.SoundFileError, RuntimeError) as exc:
        raise _fail(f"the file is damaged: a FLAC frame after {done / info.samplerate:.2f} s of its "
                    f"{info.frames / info.samplerate:.2f} s cannot be decoded ({_OPENING.sub('', str(exc)).strip()}); "
                    "a corrupted copy? Copy it again", name, origin) from None


def check_audio_file(path: str | Path, *, origin: Origin | None = None, raw: RawFormat | None = None) -> float | None:
    """Check that ``path`` is audio a model can be given; raise InputError naming it.
    Returns its length in seconds as the header gives it (None for raw PCM, whose header there is none).

    Corpus loaders call this for every clip before any model runs: clips are
    decoded chunk by chunk while the models run, so a text file named
    ``.wav``, an empty file or a header without samples at row 90,000 would
    otherwise stop the run after the models had worked through the rows
    before it.  A header is a few hundred bytes.  The samples are read too
    where the header says they could fail the decode checks (float samples:
    NaN, integer scale; two or more channels: channels that cancel), see
    ``_samples_can_fail``; integer mono files are checked by header alone, but for FLAC, whose frames are
    decoded to find a damaged one (``_check_flac_frames``)."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise _fail(f"cannot read ({exc.strerror or exc})", path, origin) from None
    if size == 0:
        raise _fail("the file is empty (0 bytes)", path, origin)
    if raw is None and path.suffix.lower() in RAW_SUFFIXES:
        raw = RawFormat()
    if raw is not None:
        try:
            with open(path, "rb") as handle:
                _check_raw_file(handle.read(_RAW_HEAD), path, origin)
        except OSError as exc:
            raise _fail(f"cannot read ({exc.strerror or exc})", path, origin) from None
        _check_raw_size(size, path, origin, raw)
        return None
    try:
        with open(path, "rb") as handle:
            head = handle.read(4)
            data = head + handle.read() if head == b"OggS" else None
    except OSError as exc:
        raise _fail(f"cannot read ({exc.strerror or exc})", path, origin) from None
    if data is not None:
        _check_ogg(data, path, origin)
    try:
        info = sf.info(str(path))
    except (sf.SoundFileError, RuntimeError, TypeError, ValueError) as exc:
        reason = str(exc).replace(f"Error opening {str(path)!r}: ", "")
        raise _fail(f"cannot decode audio ({reason})", path, origin) from None
    except OSError as exc:  # permission denied and the like
        raise _fail(f"cannot read ({exc.strerror or exc})", path, origin) from None
    if info.frames == 0:
        raise _fail("audio is empty (no samples)", path, origin)
    _check_known_length(info, path, origin)
    _check_rate(int(info.samplerate), path, origin)
    if info.frames * SAMPLE_RATE / info.samplerate < 0.5:  # resampled to no sample at all (see ``prepare``)
        raise _empty_at_16k(info.frames, int(info.samplerate), path, origin)
    read = None
    try:
        if info.format in _DECLARED_LENGTH:
            with open(path, "rb") as handle:
                read = _check_complete(handle, size, path, origin, info)
        if info.format == "FLAC":
            _check_flac_end(str(path), info, path, origin)
            if not _samples_can_fail(info):
                _check_flac_frames(str(path), info, path, origin)
        if _samples_can_fail(info):
            _check_samples(str(path), path, origin)
    except OSError as exc:
        raise _fail(f"cannot read ({exc.strerror or exc})", path, origin) from None
    if read is not None:
        return read
    return info.frames / info.samplerate if info.frames > 0 else None


def check_audio_bytes(data: bytes, *, name: str | Path = "<bytes>", origin: Origin | None = None) -> float | None:
    """``check_audio_file`` for an encoded file held in memory (a dataset row's bytes): its header only.  Returns
    its length in seconds, as ``check_audio_file`` does."""
    if not data:
        raise _fail("audio is empty (0 bytes)", name, origin)
    if data[:4] == b"OggS":
        _check_ogg(data, name, origin)
    try:
        info = sf.info(io.BytesIO(data))
    except (sf.SoundFileError, RuntimeError, TypeError, ValueError) as exc:
        raise _fail(f"cannot decode audio ({_OPENING.sub('', str(exc))})", name, origin) from None
    if info.frames == 0:
        raise _fail("audio is empty (no samples)", name, origin)
    _check_known_length(info, name, origin)
    _check_rate(int(info.samplerate), name, origin)
    if info.frames * SAMPLE_RATE / info.samplerate < 0.5:  # resampled to no sample at all (see ``prepare``)
        raise _empty_at_16k(info.frames, int(info.samplerate), name, origin)
    read = _check_complete(io.BytesIO(data), len(data), name, origin, info) \
        if info.format in _DECLARED_LENGTH else None
    if info.format == "FLAC":
        _check_flac_end(io.BytesIO(data), info, name, origin)
        if not _samples_can_fail(info):
            _check_flac_frames(io.BytesIO(data), info, name, origin)
    if _samples_can_fail(info):
        _check_samples(io.BytesIO(data), name, origin)
    return read if read is not None else info.frames / info.samplerate


def audio_duration(path: str | Path, *, origin: Origin | None = None, raw: RawFormat | None = None) -> float:
    """Seconds of audio in a file, read from its header without decoding."""
    path = Path(path)
    if raw is None and path.suffix.lower() in RAW_SUFFIXES:
        raw = RawFormat()
    if raw is not None:
        width = RAW_SAMPLE_WIDTHS[raw.subtype]
        return path.stat().st_size / (width * raw.channels * raw.sample_rate)
    try:
        info = sf.info(str(path))
    except (sf.SoundFileError, RuntimeError) as exc:
        raise _fail(f"cannot read audio header ({exc})", path, origin) from None
    if info.format == "MP3":  # its length may be libsndfile's estimate, which counts tags (_check_mpeg_length)
        try:
            read = _check_mpeg_length(path.read_bytes(), path, origin, info)
        except OSError as exc:
            raise _fail(f"cannot read ({exc.strerror or exc})", path, origin) from None
        if read is not None:
            return read
    return float(info.duration)
