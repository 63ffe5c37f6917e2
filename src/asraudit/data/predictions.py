"""Prediction files: one file per model, one row per clip.

The Open ASR Leaderboard writes JSONL rows ``{audio_filepath, text,
pred_text, duration}``; other tools use ``reference``/``hypothesis``,
``ref``/``hyp``, ``id`` or webdataset's ``__key__``.  All are accepted, from
JSONL, CSV or Parquet.  A clip a model did not run is *absent* from that
model's predictions, never an empty string: an empty hypothesis is a real
output (the model heard nothing) and counts as deletions.

Raw reference and hypothesis text is kept as written; normalization happens
in the probes (the rendering probe needs the raw spelling).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from itertools import chain, filterfalse
from operator import attrgetter, is_
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, Sequence

from asraudit.arguments import names as name_list, paths as path_list
from asraudit.bulk import builds_in_bulk
from asraudit.data.paths import written_whole
from asraudit.data.prediction_blocks import jsonl_predictions
from asraudit.data.prediction_rows import Prediction, PredictionRow, _checked_records, _kept_rows, _prediction
from asraudit.data.rows import ROW_SUFFIXES, _is_json_array, lone_surrogate, lone_surrogate_error, not_a_file, read_rows
from asraudit.errors import InputError
from asraudit.text.normalize import comparable

SUFFIXES = ROW_SUFFIXES
_REFERENCE = attrgetter("reference")


@dataclass
class ModelPredictions:
    """All rows of one prediction file, keyed by clip id (file order kept)."""

    model: str
    source: Path
    rows: dict[str, Prediction]
    # Rows read but not used (hypothesis missing: the model did not run that clip).
    skipped_missing_hypothesis: int = 0

    def __len__(self) -> int:
        return len(self.rows)

    def __contains__(self, clip_id: str) -> bool:
        return clip_id in self.rows

    def __getitem__(self, clip_id: str) -> Prediction:
        return self.rows[clip_id]


@dataclass(frozen=True)
class ReferenceConflict:
    """A clip whose reference text differs between prediction files."""

    clip_id: str
    references: dict[str, str]  # model -> raw reference

    def describe(self) -> str:
        parts = "; ".join(f"{m}: {r!r}" for m, r in self.references.items())
        return f"clip {self.clip_id!r}: {parts}"


@dataclass(frozen=True)
class ClipIds:
    """One file's clip ids as ``space_twin`` needs them: a membership test, and the ids with a space at an end
    (few or none; a streamed file keeps hashes, not ids, so ``has`` may hash)."""

    has: Callable[[str], bool]
    spaced: Sequence[str]

    @classmethod
    def of(cls, ids: Iterable[str]) -> "ClipIds":
        ids = ids if isinstance(ids, (set, frozenset, dict)) else set(ids)
        return cls(ids.__contains__, [cid for cid in ids if cid.strip() != cid])


def space_twin(a: ClipIds, b: ClipIds) -> tuple[str, str] | None:
    """An id of ``a`` and one of ``b`` that differ only by whitespace at their ends (``c1`` and ``c1 ``), each
    missing from the other file, or None.  Clip ids are exact strings (a name may end in a space), so they are
    two clips and are not stripped; but a spreadsheet's cell or a hand edit leaves such a space unseen, and
    each model then ran "other" clips with no word why (``ran 2/4``).  One of the two ids has the space, so
    only the spaced ids are looked at."""
    b_bare = {cid.strip(): cid for cid in b.spaced}
    for cid in a.spaced:
        if b.has(cid):
            continue
        bare = cid.strip()
        if b.has(bare):
            return cid, bare
        twin = b_bare.get(bare)
        if twin is not None and not a.has(twin):
            return cid, twin
    for cid in b.spaced:
        bare = cid.strip()
        if not a.has(cid) and a.has(bare):
            return bare, cid
    return None


def space_twin_words(label_a: Path | str, id_a: str, label_b: Path | str, id_b: str) -> str:
    """The words for a ``space_twin`` pair: which id has the space, and that ids are compared as written."""
    label_a, label_b = (x.name if isinstance(x, Path) else x for x in (label_a, label_b))
    return (f"{label_a}'s clip {id_a!r} and {label_b}'s {id_b!r} differ only by a space at an end, and clip ids "
            "are compared as written, so they are two clips: remove the space")



def outside_twin(path: Path | str, outside: list[str], ids) -> str:
    """The reason a file's clips left out as outside the corpus may not be (case 329): ``": <the ids that differ
    by a space at an end>"`` when one of them is a corpus clip's id with a space added or lost, else ``""``."""
    twin = space_twin(ClipIds.of(outside), ClipIds.of(ids))
    return f": {space_twin_words(path, twin[0], 'the corpus', twin[1])}" if twin else ""


def spaced_clip_warning(files: Sequence[tuple[Path | str, Callable[[], ClipIds]]]) -> str | None:
    """The warning for files (each with rows, given with a function making its ``ClipIds``) where two of them
    name one clip with and without a space at an end (``space_twin``): a model's ``ran 2/4`` said nothing of
    why.  The caller asks only where the files ran other clips."""
    ids = [(label, make()) for label, make in files]
    for i, (a, ids_a) in enumerate(ids):
        for b, ids_b in ids[i + 1:]:
            twin = space_twin(ids_a, ids_b)
            if twin is not None:
                return f"{space_twin_words(a, twin[0], b, twin[1])}, or the models are scored on different clips"
    return None


def no_shared_clips(first: tuple[Path | str, str], second: tuple[Path | str, str], what: str,
                    so: str | None = None, twin: tuple[str, str] | None = None) -> InputError:
    """The error for two prediction files (or two models' transcripts), each given as its path (or name) and one of
    its clip ids, that share no clip id, where ``what`` needs clips they both ran.  Clip ids are compared as
    written: the same recordings under paths of two machines (``/home/a/data/c0.wav``, ``/scratch/b/data/c0.wav``:
    the leaderboard's ``audio_filepath``) are other clips, and every comparison came out empty (no edit mined,
    nothing scored, NaN for every pair).  ``so`` words the consequence when it is not "``what`` has no clip to
    compare them on".  ``twin`` is a pair of their ids differing only by a space at an end (``space_twin``),
    named instead of the first ids (case 322); two first ids that differ so are named as such anyway."""
    (a, id_a), (b, id_b) = first, second
    if twin is None and id_a != id_b and id_a.strip() == id_b.strip():
        twin = id_a, id_b
    label_a, label_b = (x.name if isinstance(x, Path) else x for x in (a, b))
    so = so or f"{what} has no clip to compare them on"
    if twin is not None:
        return InputError(f"{label_a} and {label_b} share no clip id, so {so}: {space_twin_words(a, twin[0], b, twin[1])}",
                          b if isinstance(b, Path) else None)
    same_name = id_a != id_b and id_a.replace("\\", "/").rsplit("/", 1)[-1] == id_b.replace("\\", "/").rsplit("/", 1)[-1]
    hint = (" (the same file name under other folders: files written on other machines?); name each clip "
            "by one id everywhere, e.g. the path relative to the corpus" if same_name else
            "; prediction files of one benchmark name each clip by the same id")
    return InputError(f"{label_a} and {label_b} share no clip id, so {so}: "
                      f"{label_a} names its clips like {id_a!r}, {label_b} like {id_b!r}{hint}",
                      b if isinstance(b, Path) else None)


def _same_state(old: list, new: list) -> bool:
    """Whether two snapshots of a set's rows (``_first_references``) hold the same models, the same objects."""
    if len(old) != len(new):
        return False
    for (m1, p1, ids1, rows1), (m2, p2, ids2, rows2) in zip(old, new):
        if m1 != m2 or p1 is not p2 or ids1 != ids2 or len(rows1) != len(rows2):
            return False
        if not all(map(is_, rows1, rows2)):
            return False
    return True


@dataclass
class PredictionSet:
    """Prediction files of several models over (mostly) the same clips."""

    models: dict[str, ModelPredictions]
    warnings: list[str] = field(default_factory=list)

    @property
    def model_names(self) -> list[str]:
        return list(self.models)

    def clip_ids(self) -> list[str]:
        """Every clip any model ran, in first-seen order."""
        return list(dict.fromkeys(chain.from_iterable(preds.rows for preds in self.models.values())))

    def common_clip_ids(self, models: Sequence[str] | None = None) -> list[str]:
        """Clips every named model (default: all) ran, in first-seen order."""
        # One string iterated is its characters (``common_clip_ids("m1")`` asked for models ``m`` and ``1``).
        names = name_list(models, "models") if models is not None else self.model_names
        if models is not None and not names:  # every clip is shared by the models of an empty list
            raise InputError("models is empty: name the models whose shared clips you want, or give None for the "
                             "clips every model ran")
        self.require_models(names)
        return [cid for cid in self.clip_ids() if all(cid in self.models[m] for m in names)]

    def require_shared_clips(self, panel: Sequence[str], scored: Sequence[str] = ()) -> None:
        """Refuse a panel two of whose members (those with rows) share no clip id, which then mines nothing, and
        a scored model that shares no clip with any member, which then has nothing to be judged on
        (``no_shared_clips``)."""
        # Names checked as every method here checks them (case 299): one string was its characters (``KeyError: 'm'``).
        panel, scored = name_list(panel, "panel"), name_list(scored, "scored")
        self.require_models(panel + scored)
        members = [self.models[n] for n in dict.fromkeys(panel) if len(self.models[n])]
        for i, a in enumerate(members):
            for b in members[i + 1:]:
                if a.rows.keys().isdisjoint(b.rows):
                    raise no_shared_clips((a.source, next(iter(a.rows))), (b.source, next(iter(b.rows))),
                                          "the panel's vote", twin=space_twin(ClipIds.of(a.rows), ClipIds.of(b.rows)))
        for name in dict.fromkeys(scored):
            model = self.models[name]
            if members and len(model) and name not in panel and all(model.rows.keys().isdisjoint(m.rows)
                                                                   for m in members):
                first = members[0]
                raise no_shared_clips((first.source, next(iter(first.rows))), (model.source, next(iter(model.rows))),
                                      "accept-ref", twin=space_twin(ClipIds.of(first.rows), ClipIds.of(model.rows)))

    def coverage(self) -> dict[str, tuple[int, int]]:
        """model -> (clips it ran, clips any model ran)."""
        total = len(self.clip_ids())
        return {m: (len(p), total) for m, p in self.models.items()}

    def require_some_rows(self, names: Iterable[str]) -> None:
        """Some of the named models ran a clip: prediction files that are all empty (each a warning, case 8) left
        the miner no clip, and it said ``--panel is required`` to a user who gave one (``refdis``), or stopped with
        ``ValueError: min() arg is an empty sequence`` (``accept_ref_from_predictions``)."""
        names = name_list(names, "models")
        if names and not self.models_with_rows(names):
            shown = ", ".join(str(self.models[m].source) for m in names[:3]) + (", ..." if len(names) > 3 else "")
            raise InputError(f"{shown}: no row with a hypothesis in any (every prediction file is empty), so there "
                             "is nothing to mine or score")

    def models_with_rows(self, names: Iterable[str]) -> list[str]:
        """The named models whose file has at least one row: a panel is the members that can vote."""
        names = name_list(names, "models")
        self.require_models(names)
        return [n for n in names if len(self.models[n])]

    def require_models(self, names: Iterable[str]) -> None:
        names = name_list(names, "models")
        missing = [n for n in names if n not in self.models]
        if missing:
            raise InputError(
                f"no prediction file for model(s) {', '.join(missing)}; "
                f"available: {', '.join(self.model_names) or 'none'}"
            )

    def reference_conflicts(self) -> list[ReferenceConflict]:
        """Clips whose raw reference differs across models (whitespace ignored)."""
        return self._conflicts(*self._first_references())

    def _first_references(self) -> tuple[dict[str, str], set[str]]:
        """Each clip's first-seen reference (in ``clip_ids`` order) and the clips where another model's differs.

        One pass over every row (it runs on every load); only the differing clips get the per-model table of
        ``_conflicts`` (every file of a benchmark carries the same references, so most runs build none).

        Kept for the next call (loading checks the references, then a probe asks for them) while the set
        holds the same rows: the same models in the same order, each with the same clip ids and the very same
        row objects (``Prediction`` is frozen, so a row's reference cannot change in place).  Checking that is
        two C-level list builds per model and identity comparisons; anything changed, it is worked out anew.
        The caller gets its own copies (a dict and a set it may change)."""
        state = [(m, preds, list(preds.rows), list(preds.rows.values())) for m, preds in self.models.items()]
        memo = self.__dict__.get("_first_memo")
        if memo is not None and _same_state(memo[0], state):
            return dict(memo[1]), set(memo[2])
        first, differing = self._first_references_anew()
        self.__dict__["_first_memo"] = (state, dict(first), set(differing))
        return first, differing

    def _first_references_anew(self) -> tuple[dict[str, str], set[str]]:
        first: dict[str, str] = {}
        differing: set[str] = set()
        for preds in self.models.values():
            # A file whose every clip was seen before with an equal reference (every file after the first, in a
            # benchmark) changes nothing: two C-level passes and a list comparison find that, the loop is skipped.
            if first and list(map(first.get, preds.rows)) == list(map(_REFERENCE, preds.rows.values())):
                continue
            for cid, p in preds.rows.items():
                ref = first.setdefault(cid, p.reference)
                if ref is not p.reference and ref != p.reference:
                    differing.add(cid)
        return first, differing

    def _conflicts(self, first: dict[str, str], differing: set[str]) -> list[ReferenceConflict]:
        if not differing:
            return []
        refs: dict[str, dict[str, str]] = {cid: {} for cid in first if cid in differing}  # first-seen order
        for m, preds in self.models.items():
            for cid, p in preds.rows.items():
                if cid in differing:
                    refs[cid][m] = p.reference
        out = []
        for cid, by_model in refs.items():
            if len({comparable(r) for r in by_model.values()}) > 1:
                out.append(ReferenceConflict(cid, by_model))
        return out

    def references(self) -> dict[str, str]:
        """clip id -> raw reference, in ``clip_ids`` order; an InputError if models disagree on any clip.

        Probes that compare models on the same edit need one reference per
        clip; silently picking one would compare models against different
        benchmarks.  References differing only in whitespace are not a
        disagreement: the first model's is kept.
        """
        first, differing = self._first_references()
        conflicts = self._conflicts(first, differing)
        if conflicts:
            # One line (the CLI's rule), at the first file and row whose reference differs from the first seen.
            c = conflicts[0]
            (first_model, first_ref), *others = c.references.items()
            # The model whose reference differs as a conflict is judged (``comparable``: whitespace, and NFC, case
            # 103): by whitespace alone, a file whose reference was the same text decomposed (NFD) was named.
            model, ref = next((m, r) for m, r in others if comparable(r) != comparable(first_ref))
            preds = self.models[model]
            more = f"; {len(conflicts)} clip(s) differ in all, `asraudit preds` lists them" if len(conflicts) > 1 else ""
            raise InputError(
                f"clip {c.clip_id!r}: reference {ref!r} differs from {first_model}'s {first_ref!r}{more}: models are "
                "compared on one reference per clip, so every prediction file must carry the same",
                preds.source, preds.rows[c.clip_id].row,
            )
        return first


def iter_prediction_rows(path: str | Path) -> Iterator[PredictionRow]:
    """The rows of one prediction file, checked, one at a time (a file of any size in little memory).

    Duplicate clip ids are the caller's to find (``load_prediction_file``
    keeps every row; a streaming reader keeps a hash per row)."""
    return _checked_rows(Path(path), PredictionRow)


def _checked_rows(path: Path, make: Callable[..., PredictionRow | Prediction]) -> Iterator:
    """``iter_prediction_rows`` with each row built by ``make`` (fields in ``PredictionRow`` order): the loader
    builds its ``Prediction`` straight from the row, not from a ``PredictionRow`` made only to be copied."""
    if not path.is_file():
        raise InputError(not_a_file(path, "prediction file"), path)
    yield from _checked_records(read_rows(path, "prediction file"), path, make)


def load_prediction_file(path: str | Path, model: str | None = None) -> ModelPredictions:
    """Read one prediction file; the model name defaults to the file stem."""
    return _load_file(Path(path), model, {})


def _load_file(path: Path, model: str | None, references: dict[str, str]) -> ModelPredictions:
    """``load_prediction_file``, with the references read so far shared across a set's files (a JSONL file's
    plain rows keep one copy of each: ``prediction_blocks``)."""
    name = model or path.stem
    if path.suffix.lower() in (".jsonl", ".json") and path.is_file() and not _is_json_array(path):
        rows, skipped = jsonl_predictions(path, references=references)
    else:
        rows, skipped = _kept_rows(_checked_rows(path, _prediction), path)
    _refuse_lone_surrogates(rows, path)
    return ModelPredictions(name, path, rows, skipped)


_CLIP_ID, _REFERENCE, _HYPOTHESIS = attrgetter("clip_id"), attrgetter("reference"), attrgetter("hypothesis")


def _refuse_lone_surrogates(rows: Mapping[str, Prediction], path: Path) -> None:
    """A lone surrogate (``lone_surrogate``) in a clip id, reference or hypothesis, named by row and field.
    All of a file's texts are tested at once: an ASCII text holds none (``str.isascii`` reads a flag), and
    the others, joined, are encoded once (most files: a few, or none), all in C-level passes."""
    predictions = rows.values()
    hyps = map(_HYPOTHESIS, predictions)
    texts = chain(map(_CLIP_ID, predictions), map(_REFERENCE, predictions), filter(None, hyps))  # None: no text
    if lone_surrogate("\n".join(filterfalse(str.isascii, texts))) < 0:
        return
    for p in rows.values():
        for what, text in (("clip id", p.clip_id), ("reference", p.reference), ("hypothesis", p.hypothesis or "")):
            at = lone_surrogate(text)
            if at >= 0:
                raise lone_surrogate_error(what, text, at, path, p.row)


def prediction_files(paths: str | Path | Sequence[str | Path]) -> list[Path]:
    """The prediction files named by ``paths``: files as given, folders expanded (sorted, by suffix)."""
    return _expand(paths)


def _expand(paths: str | Path | Sequence[str | Path]) -> list[Path]:
    files: list[Path] = []
    for p in path_list(paths, "paths"):
        if p.is_dir() and _parts_folder(p):
            raise InputError(_parts_folder_error(p), p)
        if p.is_dir():
            # Hidden files are not a model's: macOS writes "._m.jsonl" (binary metadata) beside m.jsonl on other disks.
            named = sorted(f for f in p.iterdir() if f.suffix.lower() in SUFFIXES and not f.name.startswith("."))
            for f in named:
                # A link pointing nowhere or a FIFO named like a model's file was skipped without a word: that
                # model was missing from every table, as if it had never been run.  A folder is not a file.
                if not f.is_file() and not f.is_dir():
                    raise InputError(not_a_file(f, 'prediction file'), f)
            found = [f for f in named if f.is_file()]
            for f in sorted(p.iterdir()):
                if f.suffix.lower() in SUFFIXES and f.is_dir() and _parts_folder(f):
                    raise InputError(_parts_folder_error(f), f)
                why = _unread_prediction_file(f)
                if why:
                    raise InputError(why, f)
            if not found:
                raise InputError(f"no prediction files ({', '.join(SUFFIXES)}) in directory", p)
            files.extend(found)
        elif p.is_file():
            files.append(p)
        elif p.exists():  # a pipe or device
            raise InputError(not_a_file(p, "prediction file"), p)
        else:  # nothing there, or a symbolic link that loops or points nowhere
            why = not_a_file(p, "prediction file")
            raise InputError("no such file or directory" if why.startswith("no such") else why, p)
    # One file named twice (`m.jsonl m.jsonl`, `p p/m.jsonl`, a link beside its target) was refused further on as
    # "two prediction files for model 'm'", which sent the user looking for a second file (case 312).
    seen: dict[Path, Path] = {}
    for f in files:
        same = seen.setdefault(f.resolve(), f)
        if same is not f:
            also = "" if same == f else f" (as {same} and as {f})"
            raise InputError(f"the same prediction file is given twice{also}: name it once", f)
    # A model is its file's stem: two files of one stem (``a/m1.jsonl b/m1.jsonl``) are refused here, where the
    # files are listed, so no option's check meets them first (``preds --export`` called them "--export and
    # --export name the same file", case 318).
    by_model: dict[str, Path] = {}
    for f in files:
        first = by_model.setdefault(f.stem, f)
        if first is not f:
            raise InputError(f"two prediction files for model {f.stem!r}: {first} and {f}", f)
    return files


# Files a folder of prediction files holds that are a model's rows in a form asraudit does not read.  Passed over
# like a README, such a file's model was missing from every table and panel without a word, while the same file
# named on its own was refused (``unsupported prediction file type``).
_COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".zip", ".7z", ".lz4")
_OTHER_ROW_LAYOUTS = (".ndjson", ".jsonlines", ".tsv")


def _parts_folder(folder: Path) -> bool:
    """Whether ``folder``, named like a prediction file (``m.parquet/``), holds row files: one model's rows written
    in parts, as Spark, Dask and pyarrow's ``write_to_dataset`` write a Parquet (or JSON, CSV) dataset.  Named on its
    own, it was read as a folder of models, one per part (``part-00000``, ``part-00001``: each scored on its slice of
    the clips); inside a folder of prediction files, passed over like any subfolder (that model missing without a
    word).  An empty folder, or one without row files, is not one."""
    if folder.suffix.lower() not in SUFFIXES:
        return False
    for _root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        if any(Path(f).suffix.lower() in SUFFIXES and not f.startswith(".") for f in files):
            return True
    return False


def _parts_folder_error(folder: Path) -> str:
    return (f"prediction file is a folder of part files (one model's rows written in parts, as Spark, Dask or "
            f"pyarrow's write_to_dataset write a dataset), not one file: asraudit reads one file per model, named "
            f"after it: join the parts into one file {folder.name} outside this folder (for Parquet: "
            f"pandas.read_parquet(folder).to_parquet(file))")


def _unread_prediction_file(f: Path) -> str | None:
    """Why ``f``, an entry of a folder of prediction files, is a model's file that would be skipped, or None."""
    suffixes = [s.lower() for s in f.suffixes]
    if not suffixes or suffixes[-1] not in _COMPRESSED + _OTHER_ROW_LAYOUTS or f.name.startswith(".") or not f.is_file():
        return None
    if len(suffixes) >= 2 and suffixes[-1] in _COMPRESSED and suffixes[-2] in SUFFIXES + _OTHER_ROW_LAYOUTS:
        model = f.name[:-len("".join(f.suffixes[-2:]))]
        return (f"compressed prediction file ({suffixes[-1]}), which is not read, in a folder of prediction files: "
                f"model {model} would be left out of every table without a word: decompress it, or move it out of "
                "the folder")
    if suffixes and suffixes[-1] in _OTHER_ROW_LAYOUTS:
        return (f"unsupported prediction file type {suffixes[-1]!r} (use {', '.join(SUFFIXES)}) in a folder of "
                f"prediction files: model {f.stem} would be left out of every table without a word: convert it, or "
                "move it out of the folder")
    return None


@builds_in_bulk
def load_predictions(paths: str | Path | Sequence[str | Path]) -> PredictionSet:
    """Load prediction files from a directory or a list of files (model = file stem)."""
    models: dict[str, ModelPredictions] = {}
    references: dict[str, str] = {}
    for f in _expand(paths):
        preds = _load_file(f, None, references)
        if preds.model in models:
            raise InputError(
                f"two prediction files for model {preds.model!r}: {models[preds.model].source} and {f}", f
            )
        models[preds.model] = preds
    return _prediction_set(models)


@builds_in_bulk
def load_named_predictions(files: Mapping[str, str | Path]) -> PredictionSet:
    """Load prediction files whose model names are given (model name -> file).

    For names that are labels rather than file stems (an audit's ``org/model``
    is written to a file with a safe stem, and read back under its label)."""
    references: dict[str, str] = {}
    return _prediction_set({name: _load_file(Path(path), name, references) for name, path in files.items()})


def _prediction_set(models: dict[str, ModelPredictions]) -> PredictionSet:
    """The set, with a warning for each file without usable rows and for references that differ."""
    warnings: list[str] = []
    for preds in models.values():
        f = preds.source
        if not preds.rows:
            warnings.append(f"{f}: no rows with a hypothesis (an empty prediction file): model {preds.model} "
                            "ran no clips and is left out of every panel")
        elif preds.skipped_missing_hypothesis:
            warnings.append(
                f"{f}: {preds.skipped_missing_hypothesis} row(s) without a hypothesis treated as clips the model did not run"
            )
    pset = PredictionSet(models, warnings)
    ran = [p for p in models.values() if p.rows]
    # Every file of a benchmark runs the same clips: one C-level comparison of key views each, and nothing more.
    if any(p.rows.keys() != ran[0].rows.keys() for p in ran[1:]):
        spaced = spaced_clip_warning([(p.source, lambda p=p: ClipIds.of(p.rows)) for p in ran])
        if spaced:
            warnings.append(spaced)
    conflicts = pset.reference_conflicts()
    if conflicts:
        ids = ", ".join(c.clip_id for c in conflicts[:10])
        more = f" and {len(conflicts) - 10} more" if len(conflicts) > 10 else ""
        warnings.append(f"references differ across models on {len(conflicts)} clip(s): {ids}{more}")
    return pset


def write_leaderboard_jsonl(preds: ModelPredictions, path: str | Path) -> Path:
    """Write one model's predictions in the Open ASR Leaderboard's JSONL layout."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with written_whole(path) as tmp, tmp.open("w", encoding="utf-8") as fh:
        for p in preds.rows.values():
            rec = {"audio_filepath": p.clip_id, "text": p.reference, "pred_text": p.hypothesis}
            if p.duration is not None:
                rec["duration"] = p.duration
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path
