"""Pieces several commands share (not a command itself)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from asraudit.arguments import STRAY_UNDERSCORE, number, stray_underscore
from asraudit.data.predictions import PredictionSet, load_predictions, outside_twin
from asraudit.errors import InputError
from asraudit.metrics.defaults import check_bootstrap_count
from asraudit.terminal_text import warn


def integer(text: str) -> int:
    """An argparse ``type`` for an integer (``--seed``, ``--layer``, ``--batch-size``): ``int``, less the
    underscores that group no thousands (:func:`stray_underscore`); argparse words any other failure as for
    ``int`` (``invalid int value: 'x'``)."""
    if stray_underscore(text):
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}: {STRAY_UNDERSCORE} (a typo?)")
    return int(text)


def real(text: str) -> float:
    """An argparse ``type`` for a float (``--pad``, ``--majority``): ``float``, less the underscores that group no
    thousands (:func:`stray_underscore`)."""
    if stray_underscore(text):
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}: {STRAY_UNDERSCORE} (a typo?)")
    return float(text)


integer.__name__, real.__name__ = "int", "float"  # argparse's own words for a value neither reads


def at_least(minimum: int):
    """An argparse ``type`` for a count: an integer of at least ``minimum``, refused in argparse's one line otherwise.

    A count of 0 or below was taken silently where a slice or a truth test read it: ``--limit -1`` kept every
    clip but the last (``clips[:-1]``), ``--limit 0`` and ``calibrate --sentences 0`` every clip, ``demo
    build-organism --epochs -1`` trained no epoch and saved the untrained adapter."""

    def count(text: str) -> int:
        try:
            value = integer(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    count.__name__ = f"count of at least {minimum}"  # argparse names the type in some messages
    return count


class OneInput(argparse.Action):
    """An option naming the one input file a run reads (``--corpus``, ``--edits``, ``--recipe``), refused when given
    twice with two values (case 304).  argparse keeps the last: ``mask --corpus a.jsonl --corpus b.jsonl`` (two
    halves of a benchmark, as ``--model`` is given once per model) masked b's clips only, exit 0, no word."""

    def __call__(self, parser, namespace, values, option_string=None):
        before = getattr(namespace, self.dest, None)
        if before is not None and before != values:
            raise argparse.ArgumentError(
                self, f"given twice ({str(before)!r} and {str(values)!r}); a run reads one, so the first would "
                "not be read: merge them into one, or run once for each")
        setattr(namespace, self.dest, values)


def frames_option(*kinds: str):
    """An argparse ``type`` for the encoder frames an intervention touches (``--frames``, ``--block-attention``):
    one of ``kinds`` (``all``, ``audio``, ``changed``, ``span`` for START-END), parsed as the intervention will
    parse it, and returned as typed (the checks against the clips quote it).

    ``steer induce|ablate --frames changed`` (the frames where a patch's source differs, and steering has no
    source) and a span ending at infinity (``--frames 0.5-inf``, "to the end") passed, and stopped the run with
    a ``ValueError`` or ``OverflowError`` traceback once the baseline had run."""
    from asraudit.models.whitebox.frames import Frames  # numpy only

    def frames(text: str) -> str:
        try:
            parsed = Frames.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        if parsed.kind not in kinds:
            if parsed.kind == "changed":
                raise argparse.ArgumentTypeError("'changed' is where a patch's source differs from the clip, and "
                                                 "steering has no source: give audio, all or START-END")
            raise argparse.ArgumentTypeError(f"takes START-END in seconds, got {text!r}")
        return text

    frames.__name__ = "frames"
    return frames


def resample_count(text: str) -> int:
    """An argparse ``type`` for a count of bootstrap resamples: 0, or ``MIN_BOOTSTRAP`` to ``MAX_BOOTSTRAP``."""
    value = at_least(0)(text)
    try:
        check_bootstrap_count(value, "the count")
    except InputError as exc:
        raise argparse.ArgumentTypeError(exc.message.removeprefix("the count ")) from None
    return value


def real_or_none(text: str) -> float | None:
    """``text`` as :func:`real` reads it, or None where ``float`` cannot (a stray underscore is refused)."""
    try:
        return real(text)
    except ValueError:
        return None


def finite_number(text: str) -> float:
    """An argparse ``type`` for a scale or a level: a float that is neither NaN nor infinite.

    ``steer induce --alpha nan`` (or ``inf``) ran every variant with a NaN (or infinite) residual stream and
    printed its table as if it measured something."""
    value = real_or_none(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
    return value


def add_preds_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--preds", nargs="+", required=True, metavar="PATH",
                   help="a directory of prediction files (model = file stem) or the files themselves")


def check_resampling(args: argparse.Namespace) -> None:
    """``--bootstrap`` and ``--seed`` checked before any work: numpy's generator refuses a negative seed only
    when the first interval is drawn (a traceback after the tables began), and a negative count of resamples
    silently meant none."""
    boot = getattr(args, "bootstrap", 0)
    if boot < 0:
        raise InputError(f"--bootstrap must be at least 0 (0: no bootstrap intervals), got {boot}")
    check_bootstrap_count(boot, "--bootstrap")
    seed = getattr(args, "seed", 0)
    if seed < 0:
        raise InputError(f"--seed must be at least 0, got {seed}")


def check_option_ranges(params, flags: dict[str, str]) -> None:
    """The ranges a probe's Params declare for its spec keys (field metadata ``range``, ``minimum``), checked for
    the fields the command line set: ``flags`` maps a field to its option (``{"pad": "--pad"}``)."""
    import dataclasses

    for f in dataclasses.fields(params):
        flag = flags.get(f.name)
        value = getattr(params, f.name)
        if flag is None or value is None or isinstance(value, bool):
            continue
        if isinstance(value, float):
            number(value, flag, *f.metadata.get("range", (None, None)))
        elif isinstance(value, int) and value < f.metadata.get("minimum", value):
            raise InputError(f"{flag} must be at least {f.metadata['minimum']}, got {value}")


def model_names(text: str) -> list[str]:
    """An argparse ``type`` for a comma-separated list of model names (``--models``, ``--panel``), stripped, empty
    entries (``a,,b``) dropped.  One that names no model (``--models ""``: ``"$MODELS"`` with the variable unset;
    ``","``) is refused in argparse's one line: read as not given, it meant every model, with no word."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"names no model, got {text!r}: list the models, comma-separated, or leave "
                                         "the option out")
    return names


model_names.__name__ = "comma-separated model names"


def prediction_inputs(files) -> list[tuple[str, Path]]:
    """The expanded prediction files as inputs an output must not overwrite (``ensure_outputs_apart``)."""
    return [(f"the prediction file of model {Path(f).stem}", Path(f)) for f in files]


def ensure_outside_prediction_folders(outputs, preds) -> None:
    """Refuse an output file written into a folder that ``--preds`` names, where the next run reads it as a model.

    ``outputs`` are (option, path) pairs (None: not given).  A folder gives every file with a prediction-file
    suffix in it as one model's predictions, so ``refdis --edits-out preds/edits.jsonl`` made the next
    ``asraudit wer --preds preds/`` stop on ``edits.jsonl, row 1: missing column(s) for hypothesis`` (or, for an
    edits file with no rows, count a model ``edits`` that ran no clip).  Only a folder that ``--preds`` names
    counts: files named one by one are often kept in a working folder beside other outputs.  A file outside the
    folder, or one whose suffix the folder loader does not read, is fine."""
    from asraudit.data.predictions import SUFFIXES

    folders = {}
    for p in preds or []:
        p = Path(p)
        if p.is_dir():
            folders.setdefault(p.resolve(), p)
    for what, path in outputs:
        if path is None or Path(path).suffix.lower() not in SUFFIXES:
            continue
        folder = folders.get(Path(path).resolve().parent)
        if folder is not None:
            raise InputError(f"{what} is in the predictions folder {folder}, whose every {Path(path).suffix} file "
                             f"is read as a model's predictions: the next run would read it as model "
                             f"{Path(path).stem!r}; write it outside the folder", path)


def load_predictions_with_warnings(paths) -> PredictionSet:
    """Load prediction files and print the loader's warnings to stderr before any table."""
    pset = load_predictions(paths)
    for w in pset.warnings:
        warn(w)
    sys.stderr.flush()
    return pset


def load_corpus_edits(path: Path, corpus, normalize) -> tuple[list, list[str]]:
    """``--edits`` of the corpus's clips (``probes.lift_run.load_edits``) and the edits left out as on clips
    outside it (a subset of the benchmark), with one warning line saying how many: ``lift``, ``battery`` and
    ``translate`` share it, so none drops them silently.  An edit on a clip of the corpus that has no reference is
    refused (case 307)."""
    from asraudit.probes.lift_run import load_edits

    outside: list[str] = []
    references = {c.id: c.reference for c in corpus if c.reference is not None}
    ids = {c.id for c in corpus}
    items = load_edits(path, references, normalize, skipped=outside, clip_ids=ids)
    if outside:
        warn(f"{len(outside)} edit(s) on clips outside the corpus left out, e.g. {outside[0]}"
             f"{outside_twin(path, outside, ids)}")
    return items, outside


def check_candidates_fit(models: list[str], texts: list[tuple[str, str, object, int | None]]) -> None:
    """Each text to score, ``(text, what it is, its file, its row)``, checked against each model's tokenizer before
    any model loads (``models.candidate_check``): a text with a special token, or longer than the decoder, was
    refused only when its clip was scored, after the models before it had run, without the file or row."""
    from asraudit.models.candidate_check import candidate_checker

    for spec in models:
        check = candidate_checker(spec)
        if check is None:
            continue
        for text, what, source, row in texts:
            why = check(text)
            if why is not None:
                raise InputError(f"{what} cannot be scored by {spec.strip()}: {why}", source, row)
