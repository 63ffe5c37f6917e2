"""Hugging Face datasets as corpora: a folder written by ``save_to_disk``, a dataset's Parquet shard, a folder of
data files ``datasets``' packaged builders read, or a hub id (``hf:NAME``, when the user is online).

Audio is taken as the encoded bytes (``Audio(decode=False)``) and decoded by ``asraudit.audio.io``, so every corpus
goes through one decoder and ``datasets``' optional decoding stack (torchcodec) is never needed to read one
(``datasets`` 4 and later need it to *build* an ``Audio`` column, as ``load_dataset`` does from an audio folder:
that failure is said with its cause); a column of arrays already decoded (``{"array", "sampling_rate"}`` rows, no
``Audio`` feature) is read as samples at their rate.  Rows are checked as a manifest's are (``data.clip``), before
any model runs.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.io import Origin, check_audio_bytes, check_audio_file, prepare
from asraudit.data.clip import SPEAKER_FIELDS, Clip, Corpus, check_duration
from asraudit.data.rows import number_id, number_text, optional_seconds
from asraudit.display_paths import display_path
from asraudit.errors import InputError

HF_TEXT_COLUMNS = ("text", "sentence", "transcription", "transcript", "normalized_text")


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


def is_saved_dataset(folder: Path) -> bool:
    return (folder / "dataset_info.json").is_file() or (folder / "dataset_dict.json").is_file() or (folder / "state.json").is_file()


def _chosen_split(splits: list[str], split: str | None, source: str, role: str | None) -> str:
    """The split to read of a dataset holding ``splits``: the one asked, else the only one.  Several with none
    chosen: ``split=`` (``--split``, ``[corpus] split``) chooses the audited corpus's split, not the split of a
    corpus named by ``role``, which no option chooses."""
    if split is None:
        if len(splits) == 1:
            return splits[0]
        if role is None:
            raise InputError(f"dataset has splits {splits}; choose one with split=", source)
        raise InputError(f"dataset has splits {splits}, and {role} is read whole, as no option chooses its split: "
                         "save the split to use alone (dataset[split].save_to_disk) and name that folder", source)
    if split not in splits:
        raise InputError(f"no split {split!r}; available: {splits}", source)
    return split


def _pick_split(ds, split: str | None, source: str, role: str | None = None):
    if hasattr(ds, "keys") and not hasattr(ds, "features"):  # a DatasetDict
        split = _chosen_split(list(ds.keys()), split, source, role)
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
        split = _chosen_split(splits, split, source, role)
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
    value = number_id(value, Path(source), row)
    if not isinstance(value, str):  # a bool, a list, a struct: ``str()`` made the clip 'True', '[1, 2]' (case 331)
        raise InputError(f"clip id is {_neither_text_nor_number(value)}: name the column that holds each clip's id "
                         "(--id-column, or id_column = in an audit spec's [corpus])", source, row)
    return value


def _dataset_speaker(value, column: str, source: str, row: int) -> str | None:
    """A dataset's speaker cell as the clip's speaker (a group label): a text, a number as a manifest's is read
    (``7`` and ``7.0`` are speaker ``7``), None for null or NaN.  A bool, a list or a struct (a flag column named
    ``speaker``, a speaker made of parts) became the label ``'True'`` or ``'[1, 2]'`` through ``str()``, while a
    manifest refuses such a speaker (case 338, as case 331 for ids)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number_text(value)
    raise InputError(f"{column!r} is {_neither_text_nor_number(value)}: a speaker column holds each clip's speaker "
                     "(its name or number)", source, row)


def _neither_text_nor_number(value) -> str:
    """How a cell that is a bool, a list or a struct is named where an id or a speaker is refused (cases 331, 338):
    ``the bool true``, ``the list [1, 2]``, as JSON would write a bool."""
    shown = str(value).lower() if isinstance(value, bool) else repr(value)
    return f"the {type(value).__name__} {shown}, not a text or a number"


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
    saved = local.is_dir() and is_saved_dataset(local)
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
            check_duration(duration, seconds, clip_audio if isinstance(clip_audio, Path) else "the row's audio",
                            source, row)
        text = rec[text_column]
        if text is not None and not isinstance(text, str):
            raise InputError(f"{text_column!r} must be a string, got {type(text).__name__}", source, row)
        metadata = {k: v for k, v in rec.items() if k not in (audio_column, text_column, id_column, speaker_column, "duration")}
        speaker = _dataset_speaker(rec[speaker_column], speaker_column, source, row) if speaker_column else None
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
