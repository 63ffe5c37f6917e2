"""A clip and a corpus: the types every reader returns and every probe takes.

Kept apart from the readers (``data.corpus`` for manifests and folders, ``data.hf_dataset`` for Hugging Face
datasets) so that each reader builds the same ``Clip`` and ``Corpus`` without importing the others, and so that the
checks every reader shares (a row's ``duration`` against its audio's length) live in one place.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.io import SILENT_RMS, Origin, audio_duration, decode_audio_bytes, load_audio, prepare
from asraudit.display_paths import display_path
from asraudit.errors import InputError

SPEAKER_FIELDS = ("speaker", "speaker_id")


def samples_digest(samples: np.ndarray) -> str:
    """A digest of decoded samples (mono float32, 16 kHz): the same audio however its file was written
    (a float WAV's header carries a timestamp, so rewriting identical samples changes the file's bytes)."""
    return hashlib.sha256(np.ascontiguousarray(samples, dtype=np.float32).tobytes()).hexdigest()[:32]


@dataclass(frozen=True, eq=False)
class Clip:
    """One utterance: an id, its audio, and the benchmark's raw reference.

    ``audio`` is a path to a file, the encoded bytes of one (a dataset row),
    or samples already at 16 kHz mono.  ``reference`` is ``None`` when the
    corpus has no transcript for the clip (a folder without ``.txt``).
    ``source``/``row`` say where the clip was declared, for error messages.
    """

    id: str
    audio: Path | bytes | np.ndarray
    reference: str | None = None
    speaker: str | None = None
    duration: float | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    source: str | None = None
    row: int | None = None
    seconds: float | None = None  # the audio's length as its header gave it when the corpus was read (None: not read)

    @property
    def origin(self) -> Origin:
        return Origin(self.source, self.row)

    def header_seconds(self) -> float | None:
        """Seconds of the clip's audio file as its header gives them: what the corpus check read (``seconds``),
        else read now (raw PCM, a clip built by hand); None for audio held in memory, which is not decoded here.
        The checks made before any model runs (a span past a clip's end, a clip past the window) ask this, so
        a header the loader read is not read again for each of them."""
        if not isinstance(self.audio, Path):
            return None
        if self.seconds is not None:
            return self.seconds
        return audio_duration(self.audio, origin=self.origin)

    def field(self, name: str) -> Any:
        """The clip's value of the corpus column ``name`` (None if it has none): a speaker column is read into
        ``speaker``, not ``metadata``, and a spec's ``group_field = "speaker"`` must still find it."""
        if name in SPEAKER_FIELDS and self.speaker is not None:
            return self.speaker
        return self.metadata.get(name)

    @functools.cached_property
    def file_digest(self) -> str:
        """A digest of the audio as given (file contents, encoded bytes or samples), computed once.

        Cheap (no decoding): the result store uses it to skip re-checking a
        clip whose file has not changed (``run.grid``)."""
        _check_audio_kind(self, None)
        if isinstance(self.audio, np.ndarray):
            digest = hashlib.sha256(f"{self.audio.dtype}{self.audio.shape}".encode())
            digest.update(np.ascontiguousarray(self.audio).tobytes())
        elif isinstance(self.audio, bytes):
            digest = hashlib.sha256(self.audio)
        else:
            try:
                with open(self.audio, "rb") as f:
                    digest = hashlib.file_digest(f, "sha256")
            except OSError as exc:
                raise InputError(f"audio file {display_path(self.audio, Path.cwd())}: cannot be read "
                                 f"({exc.strerror or exc})", self.source, self.row) from None
        return digest.hexdigest()[:32]

    def decode(self) -> np.ndarray:
        """The clip's samples: mono float32 at 16 kHz."""
        _check_audio_kind(self, None)  # a Clip decoded without a Corpus is checked as a Corpus checks its clips
        if isinstance(self.audio, np.ndarray):
            return prepare(self.audio, SAMPLE_RATE, name=f"clip {self.id}", origin=self.origin)
        if isinstance(self.audio, bytes):
            return decode_audio_bytes(self.audio, name=f"clip {self.id}", origin=self.origin)
        return load_audio(self.audio, origin=self.origin)


def _check_clip(clip: object, i: int, source: str | None) -> None:
    """A clip built in Python: a ``Clip`` with a str id and audio of a kind ``decode`` reads (a path, a file's
    bytes, an array of samples).  A string of ids was ``AttributeError: 'str' object has no attribute 'id'``,
    an int id met no prediction file's (their ids are str), a list of samples failed in pathlib when decoded."""
    if not isinstance(clip, Clip):
        raise InputError(f"clips[{i}] is a {type(clip).__name__}, not a Clip", source)
    if not isinstance(clip.id, str) or not clip.id.strip():
        raise InputError(f"clip {clip.id!r}: a clip id is a non-empty str (a number's id is str(n))",
                         clip.source or source, clip.row)
    _check_audio_kind(clip, source)


def _check_audio_kind(clip: Clip, source: str | None) -> None:
    """A clip's audio is of a kind ``decode`` reads: a list of samples, None or a numpy scalar was a ``TypeError``
    from pathlib when a clip built by hand was decoded outside a ``Corpus``."""
    if not isinstance(clip.audio, (str, Path, bytes, np.ndarray)):
        raise InputError(f"clip {clip.id!r}: audio is a file path, the bytes of a file or a numpy array of samples, "
                         f"got {type(clip.audio).__name__}", clip.source or source, clip.row)


def refuse_silent_audio(clips, ids: set[str], consequence: str) -> None:
    """Refuse a clip among ``ids`` whose decoded audio is silence (RMS below ``audio.io.SILENT_RMS``, -80 dBFS), where
    a probe that compares a clip with silence (``consequence`` says how) would read 0 by construction (case 303).
    Each such clip is decoded here, one at a time."""
    for clip in clips:
        if clip.id not in ids:
            continue
        samples = clip.decode()
        rms = float(np.sqrt(np.mean(np.square(samples, dtype=np.float64)))) if samples.size else 0.0
        if rms < SILENT_RMS:
            level = ("digital silence (every sample 0)" if not np.any(samples)
                     else f"silence (RMS {20 * np.log10(rms):.0f} dBFS)")
            raise InputError(f"clip {clip.id!r}: its audio is {level}, and {consequence}", clip.source, clip.row)


@dataclass
class Corpus:
    """Clips in a stable order, addressable by id."""

    name: str
    clips: tuple[Clip, ...]
    source: str | None = None
    # what the reader should know of how the corpus was read (a dataset's text column chosen among several)
    notes: tuple[str, ...] = ()
    _by_id: dict[str, Clip] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.clips, (str, bytes, Mapping)):
            raise InputError(f"clips is a list of Clip, got {type(self.clips).__name__}", self.source)
        self.clips = tuple(self.clips)
        self._by_id = {}
        for i, clip in enumerate(self.clips):
            _check_clip(clip, i, self.source)
            if clip.id in self._by_id:
                first = self._by_id[clip.id]
                where = f" (first at row {first.row})" if first.row is not None else ""
                raise InputError(f"duplicate clip id {clip.id!r}{where}", clip.source or self.source, clip.row)
            self._by_id[clip.id] = clip

    def __len__(self) -> int:
        return len(self.clips)

    def __iter__(self) -> Iterator[Clip]:
        return iter(self.clips)

    def __contains__(self, clip_id: str) -> bool:
        return clip_id in self._by_id

    def __getitem__(self, clip_id: str) -> Clip:
        return self._by_id[clip_id]

    @property
    def ids(self) -> list[str]:
        return [c.id for c in self.clips]


def check_duration(duration: float, seconds: float | None, audio_path: Path | str, path: Path | str,
                    row: int) -> None:
    """A manifest's (or dataset's) ``duration`` that is not its audio's length (beyond rounding: half a second, or a
    tenth) names other audio, or another unit: it was copied into every prediction file and every RTFx as given.
    ``audio_path`` is a file, or the words naming a dataset row's audio (``the row's audio``)."""
    if seconds is None or abs(duration - seconds) <= max(0.5, 0.1 * seconds):
        return
    unit = " (milliseconds? asraudit reads seconds)" if abs(duration / 1000 - seconds) <= max(0.5, 0.1 * seconds) else ""
    audio = f"audio file {display_path(audio_path, Path.cwd())}" if isinstance(audio_path, Path) else audio_path
    raise InputError(f"duration {duration:g} s, but {audio} is {seconds:.2f} s long{unit}: the row names other "
                     "audio, or its duration is wrong", path, row)
