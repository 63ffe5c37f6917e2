"""Corpora: clips with audio and a raw reference transcript.

Three sources, one result (a ``Corpus`` of ``Clip``s in a stable order):

- a **manifest** (JSONL, CSV or Parquet) with the Open ASR Leaderboard fields
  ``audio_filepath``, ``text`` and optional ``duration`` (plus optional
  ``speaker``/``speaker_id``; any other field is kept as metadata).  The clip
  id is ``audio_filepath`` exactly as written, because that is the key the
  prediction files written from this corpus carry, and the key other tools'
  prediction files use for the same benchmark.  Relative audio paths resolve
  against the manifest's folder, not the working directory, so a corpus can
  be moved or run from anywhere.
- a **folder** of audio files, each with an optional transcript next to it
  (``clip.wav`` + ``clip.txt``).  The clip id is the path relative to the
  folder.
- a **Hugging Face dataset**, saved on disk (``save_to_disk``) or, when the
  user is online, a hub id (``hf:NAME``).  Audio is taken as the encoded
  bytes (``Audio(decode=False)``) and decoded by ``asraudit.audio.io``, so all
  three sources go through one decoder and ``datasets``' optional decoding
  stack (torchcodec) is never needed to read one (``datasets`` 4 and later
  need it to *build* an ``Audio`` column, as ``load_dataset`` does from an
  audio folder: that failure is said with its cause); a column of arrays already decoded
  (``{"array", "sampling_rate"}`` rows, no ``Audio`` feature) is read as
  samples at their rate.

Problems are found at load time, before any model runs: duplicate ids,
missing audio files, files whose header is not audio or holds no samples,
non-UTF-8 text, rows without a path or text are
``InputError``s naming the file and row (the line number in JSONL and CSV,
the 1-based record number in Parquet).  Audio content is checked when it is
decoded, with the same file-and-row message.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import json
import math
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np

from asraudit.arguments import path as path_argument
from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.io import (AUDIO_SUFFIXES, Origin, audio_duration, check_audio_bytes, check_audio_file, decode_audio_bytes,
                               load_audio, prepare)
from asraudit.data.rows import (ROW_SUFFIXES, decode_text, lone_surrogate, lone_surrogate_error, not_a_file,
                                 number_id, number_text, optional_seconds, read_rows)
from asraudit.display_paths import display_path
from asraudit.errors import InputError
from asraudit.terminal_text import note

MANIFEST_SUFFIXES = ROW_SUFFIXES
SPEAKER_FIELDS = ("speaker", "speaker_id")
HF_TEXT_COLUMNS = ("text", "sentence", "transcription", "transcript", "normalized_text")
HF_PREFIX = "hf:"
# Audio and video containers libsndfile cannot decode: beside a transcript, such a file is a clip the folder corpus
# would leave out (it lists files by suffix), so it is named instead.
UNREAD_AUDIO_SUFFIXES = (".m4a", ".m4b", ".mp4", ".aac", ".wma", ".webm", ".weba", ".mka", ".mkv", ".mov", ".amr",
                         ".3gp", ".ape", ".wv", ".ac3", ".spx", ".mp2", ".avi")


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
    if not isinstance(clip.audio, (str, Path, bytes, np.ndarray)):
        raise InputError(f"clip {clip.id!r}: audio is a file path, the bytes of a file or a numpy array of samples, "
                         f"got {type(clip.audio).__name__}", clip.source or source, clip.row)


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


# --- manifests ---------------------------------------------------------------


def _string_field(rec: dict, name: str, path: Path, row: int, *, required: bool, numbers_ok: bool = False) -> str | None:
    """A string cell; numbers are accepted for ids and speakers (LibriSpeech
    speaker ids are integers) but not for transcripts, where a number usually
    means a broken row."""
    value = rec.get(name)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        if required:
            if name in rec:  # "missing 'text' (found fields [..., 'text'])" named a field that is there
                raise InputError(f"{name!r} is empty ({'null' if value is None else 'NaN'}): give it as a string",
                                 path, row)
            raise InputError(f"missing {name!r} (found fields {sorted(rec)})", path, row)
        return None
    if numbers_ok and isinstance(value, (int, float)) and not isinstance(value, bool):
        return number_text(value)
    if not isinstance(value, str):
        raise InputError(f"{name!r} must be a string, got {type(value).__name__}", path, row)
    at = lone_surrogate(value)
    if at >= 0:
        raise lone_surrogate_error(repr(name), value, at, path, row)
    return value


def _not_audio_file(path: Path) -> str:
    """What is at ``path``, which is not a regular file: "is missing" only when nothing is there (a link that loops
    or points nowhere is named as such, as prediction files' are, ``rows.not_a_file``)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError) as exc:
        if getattr(exc, "errno", None) == errno.ELOOP:
            return "is a symbolic link that loops: point it at the audio file"
        if os.path.islink(path):
            return f"is a symbolic link to {os.readlink(path)}, which is not there"
        return "is missing"
    if stat.S_ISDIR(st.st_mode):
        return "is a folder, not an audio file"
    return "is not a regular file (a pipe, socket or device): save the audio to a file"


def _check_duration(duration: float, seconds: float | None, audio_path: Path | str, path: Path | str,
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


def _duration_field(rec: dict, path: Path, row: int) -> float | None:
    return optional_seconds(rec.get("duration"), "duration", path, row)


def _refuse_segment(rec: dict, path: Path, row: int) -> None:
    """A row whose ``offset`` is not 0 is a segment of a longer file (NeMo's manifests: ``offset`` and
    ``duration`` in seconds).  asraudit decodes each row's whole file, so the offset was ignored and the
    segment's reference scored against a transcript of the whole recording, exit 0: refused instead."""
    offset = optional_seconds(rec.get("offset"), "offset", path, row)
    if offset:
        raise InputError(f"offset {offset:g} s: the row is a segment of a longer audio file (NeMo's offset and "
                         "duration), and asraudit reads each row's whole file, so the segment's reference would be "
                         "scored against the whole recording: cut the segments into files of their own", path, row)


def load_manifest(path: str | Path, *, name: str | None = None, check_files: bool = True,
                  text_column: str | None = None) -> Corpus:
    """Read a JSONL/CSV/Parquet manifest with ``audio_filepath`` and ``text``.

    ``check_files`` verifies every audio file exists and has a readable audio
    header with samples now, so a typo or a broken file in row 90,000 fails
    the run before the first model call rather than after.  ``text_column``
    reads the references from another field (a manifest that keeps a
    corrected reference beside the original, ``text_corrected``, audited
    against either); the field it replaces stays a column like any other."""
    path = Path(path)
    reference_field = text_column or "text"
    if not path.is_file():
        raise InputError("no such manifest file", path)
    if is_dataset_shard(path):  # each row was "missing 'audio_filepath'", with no word of what the file is
        raise InputError("a Hugging Face dataset's Parquet shard (its audio encoded in a column, no audio_filepath), "
                         "not a manifest: give it where a dataset goes (--corpus, or dataset = in an audit spec's "
                         "[corpus]), which reads it as one", path)
    base = path.resolve().parent
    clips: list[Clip] = []
    files: dict[str, Clip] = {}  # real path -> the first clip with that audio
    for row, rec in read_rows(path, "manifest"):
        # A number is a clip id as a prediction file reads it (7 and 7.0 alike; a text-only audit's corpus is a
        # prediction file); as an audio path it is checked below like any other.
        clip_id = _string_field(rec, "audio_filepath", path, row, required=True, numbers_ok=True)
        if not isinstance(rec["audio_filepath"], str):  # a number (checked above)
            clip_id = number_id(rec["audio_filepath"], path, row)
        if not clip_id.strip():
            raise InputError("empty audio_filepath", path, row)
        reference = _string_field(rec, reference_field, path, row, required=True)
        _refuse_segment(rec, path, row)
        speaker_field = next((f for f in SPEAKER_FIELDS if rec.get(f) is not None), None)
        speaker = _string_field(rec, speaker_field, path, row, required=False, numbers_ok=True) if speaker_field else None
        audio_path = Path(os.path.expanduser(clip_id))
        if not audio_path.is_absolute():
            audio_path = base / audio_path
        if check_files and not audio_path.is_file():
            # Named relative to the working directory when it lies under it: the path the user can type.
            raise InputError(f"audio file {display_path(audio_path, Path.cwd())} {_not_audio_file(audio_path)}",
                             path, row)
        seconds = check_audio_file(audio_path, origin=Origin(str(path), row)) if check_files else None
        metadata = {k: v for k, v in rec.items()
                    if k not in ("audio_filepath", reference_field, "duration", *SPEAKER_FIELDS)}
        duration = _duration_field(rec, path, row)
        if duration is not None:
            _check_duration(duration, seconds, audio_path, path, row)
        clip = Clip(clip_id, audio_path, reference, speaker, duration, metadata, str(path), row, seconds)
        if check_files:
            # One file under two spellings ("b.wav", "./b.wav", its absolute path, a symbolic link to it) is two
            # clip ids for one recording: transcribed twice and counted twice in every rate.  Hard links are not
            # followed: deduplicating storage links distinct utterances with identical bytes.
            first = files.setdefault(os.path.realpath(audio_path), clip)
            if first is not clip and first.id != clip_id:  # the same id twice: Corpus says so, naming it
                raise InputError(f"audio file {display_path(audio_path, Path.cwd())} is also clip {first.id!r} (row "
                                 f"{first.row}): one recording under two clip ids counts twice: keep one row",
                                 path, row)
        clips.append(clip)
    if not clips:
        raise InputError("manifest has no rows", path)
    return Corpus(name or path.stem, tuple(clips), str(path))


# --- folders -------------------------------------------------------------------


def _read_transcript(path: Path) -> str:
    raw = path.read_bytes()
    return " ".join(decode_text(raw, path).split())


def _folder_files(folder: Path) -> list[Path]:
    """Every file under ``folder`` that is not hidden (a name starting with a dot, at any depth: a Mac's
    AppleDouble ``._a.wav``, ``.git``, ``.ipynb_checkpoints``), following symbolic links to folders.

    A corpus whose speakers' folders are links to another disk lost every clip under them (``Path.rglob``
    does not enter a linked folder), exit 0.  A folder reached twice (a link to a folder already in the
    corpus, or to one above it) would make its clips count twice, or never end: refused, naming the link."""
    files: list[Path] = []
    walked: dict[str, Path] = {}  # real path of each folder walked -> the path it was first reached by

    def unreadable(exc: OSError) -> None:  # os.walk skipped a folder it could not list, and its clips with it
        raise InputError(f"cannot list the folder ({exc.strerror or exc})", exc.filename or folder)

    for root, dirs, names in os.walk(folder, onerror=unreadable, followlinks=True):
        here = Path(root)
        real = os.path.realpath(root)
        if real in walked:
            first = walked[real]
            raise InputError(f"a symbolic link to the folder {display_path(first, Path.cwd())}, which the corpus "
                             "already holds: the clips under it would count twice: remove the link", here)
        walked[real] = here
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        files.extend(here / name for name in names if not name.startswith("."))
    return sorted(files)


def _transcript_of(audio_path: Path, siblings: dict[Path, list[Path]]) -> Path | None:
    """The ``.txt`` transcript beside an audio file: the same name with ``.txt`` in any case (``A.WAV`` and
    ``A.TXT``, as corpora written on Windows have them; a ``.TXT`` was not found and the clip had no reference)."""
    found = [p for p in siblings.get(audio_path.with_suffix(""), ()) if p.suffix.lower() == ".txt"]
    if len(found) > 1:
        names = ", ".join(sorted(p.name for p in found))
        raise InputError(f"audio file {audio_path.name} has {len(found)} transcripts ({names}): keep one", audio_path)
    return found[0] if found else None


def load_folder(folder: str | Path, *, name: str | None = None) -> Corpus:
    """Every audio file under ``folder`` (recursively, sorted by path, through symbolic links to folders; hidden
    files and folders, whose names start with a dot, left out), with the transcript in the ``.txt`` file of the
    same name when there is one.

    Nothing is left out silently: a file beside a transcript whose suffix is not read as audio (``a.m4a`` with
    ``a.txt``), two audio files of one name (``a.wav`` and ``a.flac``: one recording in two formats) and one
    file reached by two paths (a link) are refused, naming them."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("no such folder", folder)
    listed = _folder_files(folder)
    for path in listed:  # a link to nothing named a.wav was left out, exit 0
        if path.suffix.lower() in AUDIO_SUFFIXES and not path.is_file():
            raise InputError(f"audio file {path.name} {_not_audio_file(path)}", path)
    listed = [p for p in listed if p.is_file()]
    siblings: dict[Path, list[Path]] = {}  # path without suffix -> the files of that name
    for path in listed:
        siblings.setdefault(path.with_suffix(""), []).append(path)
    files = [p for p in listed if p.suffix.lower() in AUDIO_SUFFIXES]
    for stem, group in siblings.items():
        audio = [p for p in group if p.suffix.lower() in AUDIO_SUFFIXES]
        if len(audio) > 1:
            names = " and ".join(p.name for p in audio)
            raise InputError(f"{names} share one name: one recording in two formats would count twice (and share "
                             "one transcript): keep one", stem.parent)
        transcripts = [p for p in group if p.suffix.lower() == ".txt"]
        unread = [p for p in group if p.suffix.lower() in UNREAD_AUDIO_SUFFIXES]
        if transcripts and not audio and unread:
            raise InputError(f"audio beside the transcript {transcripts[0].name}, but asraudit does not read "
                             f"{unread[0].suffix} files (it reads {', '.join(AUDIO_SUFFIXES)}), so the clip would be "
                             "left out: convert it to WAV or FLAC", unread[0])
    if not files:
        raise InputError(f"no audio files ({', '.join(AUDIO_SUFFIXES)}) in folder", folder)
    clips = []
    real: dict[str, str] = {}  # real path -> the clip id first reached there
    for audio_path in files:
        clip_id = audio_path.relative_to(folder).as_posix()
        first = real.setdefault(os.path.realpath(audio_path), clip_id)
        if first != clip_id:
            raise InputError(f"the same file as clip {first!r} (one is a symbolic link to the other): one "
                             "recording under two clip ids counts twice: remove the link", audio_path)
        seconds = check_audio_file(audio_path)  # before any model runs, as a manifest's files are
        transcript = _transcript_of(audio_path, siblings)
        reference = _read_transcript(transcript) if transcript is not None else None
        clips.append(Clip(clip_id, audio_path, reference, source=str(audio_path), seconds=seconds))
    return Corpus(name or folder.name, tuple(clips), str(folder))


# --- Hugging Face datasets -------------------------------------------------------


def is_dataset_shard(path: Path) -> bool:
    """A Parquet file of a Hugging Face dataset (a hub dataset's ``data/test-00000-of-00001.parquet``,
    ``Dataset.to_parquet``), not a manifest: no ``audio_filepath``, and audio in a column of encoded bytes (a
    ``{bytes, path}`` struct) or an ``Audio`` column in the ``datasets`` features of its metadata.  Such a file read as a manifest was
    ``missing 'audio_filepath'``, with no word of what it is."""
    if path.suffix.lower() != ".parquet":
        return False
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = pq.read_schema(path)
    except Exception:  # not Parquet, or pyarrow missing: the manifest reader says so
        return False
    if "audio_filepath" in schema.names:
        return False
    if any(pa.types.is_struct(f.type) and f.type.get_field_index("bytes") >= 0 for f in schema):
        return True
    try:  # datasets' features, kept in the file's metadata: an Audio column of decoded arrays
        features = json.loads((schema.metadata or {}).get(b"huggingface", b"{}"))["info"]["features"]
        return any(isinstance(f, dict) and f.get("_type") == "Audio" for f in features.values())
    except (ValueError, KeyError, TypeError, AttributeError):
        return False


def _is_saved_dataset(folder: Path) -> bool:
    return (folder / "dataset_info.json").is_file() or (folder / "dataset_dict.json").is_file() or (folder / "state.json").is_file()


def _choose_split(splits: list[str], source: str, role: str | None) -> InputError:
    """A dataset of several splits given with none chosen: ``split=`` (``--split``, ``[corpus] split``) chooses the
    audited corpus's split, not the split of a corpus named by ``role``, which no option chooses."""
    if role is None:
        return InputError(f"dataset has splits {splits}; choose one with split=", source)
    return InputError(f"dataset has splits {splits}, and {role} is read whole, as no option chooses its split: save "
                      "the split to use alone (dataset[split].save_to_disk) and name that folder", source)


def _pick_split(ds, split: str | None, source: str, role: str | None = None):
    if hasattr(ds, "keys") and not hasattr(ds, "features"):  # a DatasetDict
        splits = list(ds.keys())
        if split is None:
            if len(splits) != 1:
                raise _choose_split(splits, source, role)
            split = splits[0]
        if split not in ds:
            raise InputError(f"no split {split!r}; available: {splits}", source)
        return ds[split], split
    return ds, split


def _saved_split(folder: Path, split: str | None, source: str, role: str | None = None) -> tuple[Path, str | None]:
    """The folder of the split to read in a ``save_to_disk`` folder, its rows checked to be there.

    ``load_from_disk`` on a dataset dict loads every split, and an empty one (written without data files) fails
    with ``IndexError: list index out of range``: a dict whose ``test`` split was empty could not be read at all,
    not even its ``train`` split, and the error was worded as a lost connection.  Only the asked split is loaded
    now, and an empty one is said as such."""
    listing = folder / "dataset_dict.json"
    if listing.is_file():
        try:
            splits = [str(x) for x in json.loads(listing.read_text(encoding="utf-8"))["splits"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InputError(f"dataset_dict.json cannot be read ({type(exc).__name__}: {exc}): save the dataset "
                             "again", source) from None
        if split is None:
            if len(splits) != 1:
                raise _choose_split(splits, source, role)
            split = splits[0]
        if split not in splits:
            raise InputError(f"no split {split!r}; available: {splits}", source)
        folder = folder / split
    try:
        state = json.loads((folder / "state.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return folder, split  # left to datasets, whose error names what is wrong
    if not isinstance(state, dict):
        return folder, split
    recorded = state.get("_split")
    if not listing.is_file() and split is not None and isinstance(recorded, str) and recorded != split:
        # one split saved alone: the asked split was ignored, and the other split's clips audited under its name
        raise InputError(f"no split {split!r}: the folder holds one split saved alone, {recorded!r}: ask for "
                         f"{recorded!r} or give no split", source)
    if not listing.is_file() and split is not None and not isinstance(recorded, str):
        # a dataset saved without a split name (Dataset.from_dict): the asked split was ignored and every row
        # audited under its name
        raise InputError(f"split {split!r} cannot be chosen: the folder holds one dataset saved with no split name, "
                         "read whole: give no split", source)
    if state.get("_data_files") == []:
        raise InputError(f"dataset split {split!r} has no rows" if split else "dataset has no rows", source)
    return folder, split


def _dataset_id(value, source: str, row: int) -> str:
    """A dataset's id cell as a clip id, by the prediction files' rule (``data.rows.number_id``): an id column of
    whole numbers with a gap is float, and its ``7.0`` must be the ``7`` of the model's prediction file; a null or
    NaN id names no clip (it had become the clip ``"None"`` or ``"nan"``)."""
    if value is None:
        raise InputError("clip id is null: give every row its id", source, row)
    return str(number_id(value, Path(source), row))


def load_hf_dataset(
    name_or_path: str | Path,
    *,
    split: str | None = None,
    config: str | None = None,
    audio_column: str | None = None,
    text_column: str | None = None,
    id_column: str | None = None,
    _role: str | None = None,
) -> Corpus:
    """A Hugging Face dataset as a corpus.

    A folder written by ``save_to_disk`` is read offline; anything else is a
    hub id, fetched by ``datasets`` (which honours ``HF_HUB_OFFLINE``).
    The audio column defaults to ``audio``; the text column to the first of
    ``HF_TEXT_COLUMNS`` present; the clip id to the ``id`` column when there
    is one, else the row number.  A column named that the dataset lacks is
    refused in one line listing its columns.
    """
    if not str(name_or_path).strip():  # "hf:" alone: datasets failed with an IndexError worded as a lost connection
        raise InputError("hf: names no dataset: write hf:NAME (a hub id) or give a saved dataset folder")
    try:
        import datasets
    except ImportError:
        raise InputError(
            "reading Hugging Face datasets needs the 'datasets' package: pip install 'asraudit[datasets]'",
            str(name_or_path),
        ) from None
    source = str(name_or_path)
    local = Path(name_or_path)
    saved = local.is_dir() and _is_saved_dataset(local)
    shard = local.is_file()  # a dataset's Parquet shard (``is_dataset_shard``), read whole
    if shard and (split is not None or config is not None):
        raise InputError(f"{'split' if split is not None else 'configuration'} "
                         f"{split if split is not None else config!r} cannot be chosen: a dataset's Parquet shard is "
                         "one part of one split: give none", source)
    if saved and config is not None:  # load_from_disk has no configurations: the asked one was ignored
        raise InputError(f"configuration {config!r} cannot be chosen: a saved dataset folder holds one "
                         "(a configuration is chosen for a hub dataset, hf:NAME): give no configuration", source)
    if saved:
        folder, split = _saved_split(local, split, source, _role)
    try:
        if shard:  # in memory: Dataset.from_parquet would write a copy into the datasets cache
            import pyarrow.parquet as pq

            ds = datasets.Dataset(pq.read_table(local))
        elif saved:
            ds = datasets.load_from_disk(str(folder))
        else:
            ds = datasets.load_dataset(source, config, split=split)
    except Exception as exc:  # datasets/huggingface_hub raise many unrelated types for "not there"
        if shard:
            raise InputError(f"cannot read the Parquet shard ({type(exc).__name__}: {exc})", source) from None
        if saved:
            raise InputError(f"cannot load saved dataset {display_path(folder, Path.cwd())} "
                             f"({_load_error(exc)})", source) from None
        if local.is_dir():  # data files datasets' packaged builders read (JSON, CSV, Parquet, an audio folder)
            raise InputError(f"cannot load the folder's data files as a dataset ({_load_error(exc)})", source) from None
        raise InputError(
            f"cannot load dataset ({_load_error(exc)}); a hub dataset needs a connection or a local copy",
            source,
        ) from None
    ds, split = _pick_split(ds, split, source, _role)
    columns = list(ds.column_names)
    notes: list[str] = []
    audio_column, text_column, id_column = _dataset_columns(columns, audio_column, text_column, id_column, source,
                                                            notes, _role)
    decoded = _decoded_audio_column(ds.features[audio_column])
    if not decoded:
        try:
            if ds.features[audio_column] == datasets.Value("large_string"):
                # paths as Arrow's large strings (datasets' CSV builder, a shard polars wrote): the Audio feature
                # casts from a plain string column only, and the paths were refused as "not audio"
                ds = ds.cast_column(audio_column, datasets.Value("string"))
            ds = ds.cast_column(audio_column, datasets.Audio(decode=False))
        except Exception:  # pyarrow's ArrowNotImplementedError (a number column) and the like, as a traceback
            raise InputError(f"column {audio_column!r} holds {ds.features[audio_column]}, not audio: give an Audio "
                             "column (file paths or encoded bytes), or decoded arrays with their sampling_rate",
                             source) from None
    speaker_column = next((c for c in SPEAKER_FIELDS if c in columns), None)
    # What relative audio paths are read against: the dataset's folder (saved, or data files that datasets' packaged
    # builders read from a folder named by hf:DIR), a shard's folder; a hub id's paths are left as datasets gives them
    base = local.parent if shard else local if local.is_dir() else None
    clips = []
    for index, rec in enumerate(ds):
        row = index + 1
        clip_id = _dataset_id(rec[id_column], source, row) if id_column else str(index)
        if decoded:
            clip_audio = _decoded_samples(rec[audio_column], audio_column, f"clip {clip_id}", Origin(source, row))
            seconds = clip_audio.size / SAMPLE_RATE
        else:
            clip_audio, seconds = _encoded_audio(rec[audio_column], clip_id, source, row, base)
        # checked as a manifest's is: a string was a ValueError traceback, NaN, a negative number or milliseconds
        # were kept as the clip's length, in every prediction file and RTFx
        duration = optional_seconds(rec.get("duration"), "duration", Path(source), row)
        if duration is not None:
            _check_duration(duration, seconds, clip_audio if isinstance(clip_audio, Path) else "the row's audio",
                            source, row)
        text = rec[text_column]
        if text is not None and not isinstance(text, str):
            raise InputError(f"{text_column!r} must be a string, got {type(text).__name__}", source, row)
        metadata = {k: v for k, v in rec.items() if k not in (audio_column, text_column, id_column, speaker_column, "duration")}
        speaker = rec[speaker_column] if speaker_column is not None else None
        if isinstance(speaker, float) and math.isnan(speaker):
            speaker = None
        elif speaker is not None:
            speaker = number_text(speaker) if isinstance(speaker, (int, float)) and not isinstance(speaker, bool) \
                else str(speaker)
        clips.append(Clip(clip_id, clip_audio, text, speaker, duration, metadata, source, row, seconds))
    if not clips:
        raise InputError(f"dataset split {split!r} has no rows", source)
    label = local.name if local.is_dir() else local.stem if shard else source.split("/")[-1]
    return Corpus(f"{label}-{split}" if split else label, tuple(clips), source, tuple(notes))


def _load_error(exc: BaseException) -> str:
    """What stopped ``datasets`` from loading, with the errors it was raised from: its builders wrap what went wrong
    (a broken row of a data file, ``torchcodec`` missing for an audio folder) in ``DatasetGenerationError: An error
    occurred while generating the dataset``, which alone named no cause, and the line went on to blame a lost
    connection for a folder on disk."""
    said, seen = [], set()
    while exc is not None and id(exc) not in seen and len(said) < 4:
        seen.add(id(exc))
        said.append(f"{type(exc).__name__}: {exc}")
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return ", from ".join(said)


def _dataset_columns(columns: list[str], audio: str | None, text: str | None, ident: str | None,
                     source: str, notes: list[str], role: str | None = None) -> tuple[str, str, str | None]:
    """The audio, text and id columns: those named, else the defaults, each checked to be among the dataset's
    columns.  A column named that is not there, or one column named for two parts, is one line listing the
    columns; a missing default says how to name the column (``--audio-column``, ``audio_column =`` in a spec), or,
    for a corpus named by ``role`` (not the audited one, whose columns no option chooses), what to rename it to.  A
    text column chosen by default among several candidates is said in ``notes``."""
    listed = ", ".join(repr(c) for c in columns)

    def how(holds: str, option: str, default: str) -> str:
        if role is None:
            return f"name the one that holds {holds} (--{option.replace('_', '-')}, or {option} = in an audit spec's [corpus])"
        # --audio-column and [corpus] audio_column choose the audited corpus's columns, not this one's
        return (f"{role} is read with a dataset's default columns, which no option chooses: rename the column that "
                f"holds {holds} to {default!r} (Dataset.rename_column) and save the dataset again")

    for what, given in (("audio", audio), ("text", text), ("id", ident)):
        if given is not None and given not in columns:
            raise InputError(f"no {what} column {given!r}; the dataset's columns are {listed}", source)
    if audio is None:
        audio = "audio"
        if audio not in columns:
            raise InputError(f"no audio column 'audio'; the dataset's columns are {listed}: "
                             f"{how('the audio', 'audio_column', 'audio')}", source)
    if text is None:
        text = next((c for c in HF_TEXT_COLUMNS if c in columns), None)
        if text is not None and len([c for c in HF_TEXT_COLUMNS if c in columns]) > 1:
            # --text-column chooses the audited corpus's column, not a second corpus's
            other = ("name another with --text-column, or text_column = in an audit spec's [corpus]" if role is None
                     else f"{role} is read with a dataset's default columns, which no option chooses: to read another, "
                          "remove this one (Dataset.remove_columns) and save the dataset again")
            notes.append(f"references read from column {text!r}; the dataset also has "
                         f"{', '.join(repr(c) for c in HF_TEXT_COLUMNS if c in columns and c != text)} ({other})")
        if text is None:
            raise InputError(f"no text column (tried {', '.join(HF_TEXT_COLUMNS)}); the dataset's columns are "
                             f"{listed}: {how('the reference transcripts', 'text_column', 'text')}", source)
    if ident is None and "id" in columns:
        ident = "id"
    named = [("audio", audio), ("text", text), ("id", ident)]
    for i, (what, column) in enumerate(named):
        other = next((w for w, c in named[:i] if c == column), None)
        if other is not None:  # the audio read as text, or each clip named by its reference
            raise InputError(f"column {column!r} is named both the {other} and the {what} column: each part of a clip "
                             "is read from its own column", source)
    return audio, text, ident


def _decoded_audio_column(feature) -> bool:
    """A column of decoded audio that is no ``Audio`` feature: ``{"array": [...], "sampling_rate": N}`` per row, as
    ``Dataset.from_dict`` or ``from_pandas`` types the dicts a decoded ``Audio`` column gives (not cast back to
    ``Audio``).  Casting it to ``Audio(decode=False)`` encodes every array, which ``datasets`` cannot do without
    torchcodec: an ``ImportError`` traceback.  Its samples are read as they are instead."""
    return isinstance(feature, dict) and "array" in feature and "sampling_rate" in feature


def _decoded_samples(audio, column: str, name: str, origin: Origin) -> np.ndarray:
    """A row's decoded audio as 16 kHz mono samples (``audio.io.prepare``: resampled from its ``sampling_rate``,
    mixed to mono, checked now, before any model runs).  A two-dimensional array is ``datasets``' channels-first
    layout (``Audio(mono=False)``), which ``prepare`` reads as frames by channels."""
    if not audio or audio.get("array") is None or audio.get("sampling_rate") is None:
        raise InputError(f"{column!r} holds no audio (an array and its sampling_rate)", origin.source, origin.row)
    try:
        samples = np.asarray(audio["array"])
    except ValueError:  # ragged channels
        raise InputError(f"{column!r}: channels of different lengths", origin.source, origin.row) from None
    if samples.ndim == 2:
        samples = samples.T
    return prepare(samples, audio["sampling_rate"], name=name, origin=origin)


def _encoded_audio(audio, name, source: str, row: int, base: Path | None) -> tuple[Path | bytes, float | None]:
    """A row's ``Audio(decode=False)`` value (encoded bytes or a file path) and its length in seconds (None when
    its header does not say), its header read now, as a manifest's files are: before any model runs.  ``base``:
    the folder of a saved dataset, against which a relative path is read (``_dataset_file``)."""
    audio = audio or {}
    data, audio_path = audio.get("bytes"), audio.get("path")
    if data is None and audio_path is None:
        raise InputError("row has no audio (neither bytes nor path)", source, row)
    if data is not None:
        return data, check_audio_bytes(data, name=f"clip {name}", origin=Origin(source, row))
    clip_audio = _dataset_file(Path(os.path.expanduser(audio_path)), base, source, row)
    return clip_audio, check_audio_file(clip_audio, origin=Origin(source, row))


def _dataset_file(path: Path, base: Path | None, source: str, row: int) -> Path:
    """A local dataset's relative audio path (a path column, or ``{"path": "a.wav", "bytes": None}`` rows), read
    against the dataset's folder (a saved dataset's, or that of the data files ``hf:DIR`` names, whose JSON or CSV
    rows datasets' builders pass on as written), as a manifest's paths are read against the manifest's: it was read
    against the working directory only, so the same dataset read from another folder took that folder's ``a.wav``,
    another recording, without a word (and a dataset moved with its audio lost it).  Where the dataset's folder
    lacks the file, the working directory's is read, as ``datasets`` itself reads such a path (a dataset built from paths
    relative to where its author stood, read from there); where both hold one and they are two different files,
    which recording the row means cannot be told, and the row is refused."""
    if path.is_absolute() or base is None:  # a hub dataset's paths are left as datasets gives them
        return path
    inside, here = base / path, Path.cwd() / path
    if inside.exists():
        if here.exists() and not _same_file(inside, here):
            raise InputError(f"audio path {str(path)!r} is relative, and both the dataset's folder and the working "
                             f"directory hold one ({display_path(inside, Path.cwd())} and "
                             f"{display_path(here, Path.cwd())}, not the same file), so which recording the row means "
                             "cannot be told: save the dataset with absolute paths or its audio embedded", source, row)
        return inside
    return here if here.exists() else inside


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


# --- one entry point ----------------------------------------------------------------


DATASET_COLUMNS = ("audio_column", "text_column", "id_column")


def _no_dataset_options(kind: str, split: str | None, config: str | None, columns: Mapping[str, str | None],
                        source: str) -> None:
    """A split, configuration or column asked of a corpus that has none was ignored: the user who asked for the
    test split believed the test split audited, and the one who named the text column believed its text the
    references."""
    for what, value in (("split", split), ("configuration", config)):
        if value is not None:
            raise InputError(f"{what} {value!r} cannot be chosen: {kind} has no {what}s (they are a Hugging Face "
                             f"dataset's): give no {what}", source)
    for key in DATASET_COLUMNS:
        if columns.get(key) is not None:
            what = key.replace("_", " ")
            raise InputError(f"{what} {columns[key]!r} cannot be chosen: {kind} {_FIXED_COLUMNS[kind]}: give no "
                             f"{what}", source)


# Why a corpus that is not a dataset takes no column of that kind.  A manifest's references may come from another
# field (``text_column``), but its audio and clip id are always its ``audio_filepath``.
_FIXED_COLUMNS = {"a manifest": "names its audio and its clip id in audio_filepath (a Hugging Face dataset's "
                                "audio and id columns are chosen)",
                  "a folder of audio": "has no columns: its clip ids are the file names and its references the .txt "
                                       "files beside them"}


def load_corpus(spec: str | Path, *, split: str | None = None, config: str | None = None,
                audio_column: str | None = None, text_column: str | None = None,
                id_column: str | None = None) -> Corpus:
    """A manifest file, a folder of audio, a saved dataset folder, or ``hf:NAME``; the split, configuration and
    columns are a dataset's, and refused for a manifest or a folder of audio."""
    return _load_corpus(spec, split, config, {"audio_column": audio_column, "text_column": text_column,
                                              "id_column": id_column}, None)


def load_other_corpus(spec: str | Path, role: str) -> Corpus:
    """A corpus named inside another option, beside the audited one (``steer learn --negative-corpus``,
    ``patch --source corpus:PATH``, a battery's or a splice's ``corpus:`` donors), ``role`` naming that option.

    It is read as ``load_corpus`` reads a corpus given alone, a dataset with its default columns: the column options
    (``--audio-column``, ``[corpus] audio_column``) choose the audited corpus's columns, so a dataset whose columns
    are named otherwise is refused in one line naming the role and the column names it needs, rather than pointing
    at an option that would change the other corpus.

    How it was read (a dataset's text column chosen among several) is noted on standard error as the audited
    corpus's is, naming ``role``, once per process for each corpus and role (a donor corpus is read when the spec is
    checked and again when its condition runs); it was said for the audited corpus only."""
    corpus = _load_corpus(spec, None, None, dict.fromkeys(DATASET_COLUMNS), role)
    for line in corpus.notes:
        if (corpus.source, role, line) not in _NOTED:
            _NOTED.add((corpus.source, role, line))
            note(f"note: {corpus.source} ({role}): {line}")
    return corpus


_NOTED: set[tuple[str, str, str]] = set()  # the notes load_other_corpus has said


def _load_corpus(spec: str | Path, split: str | None, config: str | None, columns: dict[str, str | None],
                 role: str | None) -> Corpus:
    path = path_argument(spec, "spec")
    text = str(spec)
    if text.startswith(HF_PREFIX):
        return load_hf_dataset(text[len(HF_PREFIX):], split=split, config=config, **columns, _role=role)
    if path.is_file() and is_dataset_shard(path):  # read as the dataset it is a part of
        return load_hf_dataset(path, split=split, config=config, **columns, _role=role)
    if path.is_file():
        _no_dataset_options("a manifest", split, config, {**columns, "text_column": None}, text)
        return load_manifest(path, text_column=columns["text_column"])
    if path.is_dir():
        if _is_saved_dataset(path):
            return load_hf_dataset(path, split=split, config=config, **columns, _role=role)
        _no_dataset_options("a folder of audio", split, config, columns, text)
        return load_folder(path)
    if path.is_symlink() or path.exists():  # a link that loops or points nowhere, a pipe: said as it is
        raise InputError(not_a_file(path, "corpus"), text)
    raise InputError("no such corpus: expected a manifest file, a folder, or hf:DATASET", text)
