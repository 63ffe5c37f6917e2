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
- a **Hugging Face dataset**, saved on disk (``save_to_disk``), a dataset's
  Parquet shard, or, when the user is online, a hub id (``hf:NAME``): read by
  ``data.hf_dataset``, through the same audio decoder as the other two.

Problems are found at load time, before any model runs: duplicate ids,
missing audio files, files whose header is not audio or holds no samples,
non-UTF-8 text, rows without a path or text are
``InputError``s naming the file and row (the line number in JSONL and CSV,
the 1-based record number in Parquet).  Audio content is checked when it is
decoded, with the same file-and-row message.
"""

from __future__ import annotations

import errno
import math
import os
import stat
from pathlib import Path
from typing import Mapping

from asraudit.arguments import path as path_argument
from asraudit.audio.io import AUDIO_SUFFIXES, Origin, check_audio_file
# Clip and Corpus live in data.clip and the dataset reader in data.hf_dataset; they are named here too, as the
# package's corpus entry point has always offered them (``from asraudit.data.corpus import Clip``)
from asraudit.data.clip import SPEAKER_FIELDS, Clip, Corpus, check_duration, samples_digest
from asraudit.data.group_values import MixedSpellings
from asraudit.data.hf_dataset import HF_TEXT_COLUMNS, is_dataset_shard, is_saved_dataset, load_hf_dataset
from asraudit.data.rows import (ROW_SUFFIXES, decode_text, lone_surrogate, lone_surrogate_error, not_a_file,
                                 number_id, number_text, optional_seconds, read_rows)
from asraudit.display_paths import display_path
from asraudit.errors import InputError
from asraudit.terminal_text import note

__all__ = ["Clip", "Corpus", "DATASET_COLUMNS", "HF_PREFIX", "HF_TEXT_COLUMNS", "MANIFEST_SUFFIXES", "SPEAKER_FIELDS",
           "is_dataset_shard", "load_corpus", "load_folder", "load_hf_dataset", "load_manifest", "load_other_corpus",
           "samples_digest"]

MANIFEST_SUFFIXES = ROW_SUFFIXES
HF_PREFIX = "hf:"
# Audio and video containers libsndfile cannot decode: beside a transcript, such a file is a clip the folder corpus
# would leave out (it lists files by suffix), so it is named instead.
UNREAD_AUDIO_SUFFIXES = (".m4a", ".m4b", ".mp4", ".aac", ".wma", ".webm", ".weba", ".mka", ".mkv", ".mov", ".amr",
                         ".3gp", ".ape", ".wv", ".ac3", ".spx", ".mp2", ".avi")


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
        return "is missing" + _space_at_an_end(path)
    if stat.S_ISDIR(st.st_mode):
        return "is a folder, not an audio file"
    return "is not a regular file (a pipe, socket or device): save the audio to a file"

def _space_at_an_end(path: Path) -> str:
    """Why a missing audio file may be there after all: a name of its path with a space at an end (a spreadsheet's
    cell ``a.wav ``) where the file without the space is (case 321); the path is not stripped, as a name may end in
    a space, but "audio file a.wav  is missing" beside a.wav hid the space."""
    spaced = next((part for part in path.parts if part != part.strip()), None)
    if spaced is None:
        return ""
    stripped = Path(*(part.strip() or part for part in path.parts))
    if not stripped.is_file():
        return ""
    return (f": the name {spaced!r} has a space at an end, and {display_path(stripped, Path.cwd())} is there: remove "
            "the space from the manifest")


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
    speakers = MixedSpellings("speaker")  # speaker 1 and "1" were both "1": one speaker or two (case 316)
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
        if speaker is not None:
            speakers.add(speaker, rec[speaker_field], path, row)
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
            check_duration(duration, seconds, audio_path, path, row)
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
        if is_saved_dataset(path):
            return load_hf_dataset(path, split=split, config=config, **columns, _role=role)
        _no_dataset_options("a folder of audio", split, config, columns, text)
        return load_folder(path)
    if path.is_symlink() or path.exists():  # a link that loops or points nowhere, a pipe: said as it is
        raise InputError(not_a_file(path, "corpus"), text)
    raise InputError("no such corpus: expected a manifest file, a folder, or hf:DATASET", text)
