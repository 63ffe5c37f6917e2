"""`asraudit transcribe`: run models over a corpus, store raw transcripts, write prediction files.

Every transcript goes into the result store first (one SQLite file, by
default ``<out>/asraudit.sqlite``), then ``<out>/<model>.jsonl`` is written
from the store in the Open ASR Leaderboard layout (``audio_filepath`` as the
manifest gives it, ``text``, ``pred_text``, ``duration``), which ``asraudit
wer --preds <out>`` and every other prediction-file command read.  Because
the prediction files come from the store, a rerun after a crash or a kill
skips what is done and still writes complete files.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path
from typing import Any

from asraudit.commands.common import OneInput, integer
from asraudit.data.corpus import HF_TEXT_COLUMNS, Corpus, load_corpus
from asraudit.data.paths import (ensure_outputs_apart, ensure_outputs_apart_from_audio, ensure_writable_dir,
                                  ensure_writable_file, output_file, output_folder)
from asraudit.data.prediction_writer import preds_file_stem
from asraudit.data.predictions import SUFFIXES
from asraudit.errors import InputError
from asraudit.models.weights_digest import refuse_outputs_in_model_folders
from asraudit.terminal_text import note, one_line, warn
from asraudit.run.executor import parse_executor, ray_address
from asraudit.run.grid import RunSummary, identify
from asraudit.run.prediction_files import write_predictions
from asraudit.run.spec import Transcribe
from asraudit.run.store import STORE_NAME, ResultStore



# --- arguments shared with `asraudit score` ------------------------------------------


def add_grid_arguments(p: argparse.ArgumentParser) -> None:
    """Model, corpus and executor options common to every command that runs models."""
    p.add_argument("--model", action="append", required=True, metavar="SPEC",
                   help="model to run (repeat for several): an embedded name such as whisper-tiny.en, "
                        "pocketsphinx, replay:<file>, ct2:<dir>, hf:<dir>, http://host:port; see `asraudit models`")
    p.add_argument("--corpus", required=True, metavar="PATH", action=OneInput,
                   help="a manifest (JSONL/CSV/Parquet with audio_filepath, text[, duration]), a folder of audio "
                        "(+ .txt transcripts), a saved Hugging Face dataset folder, or hf:NAME")
    add_dataset_arguments(p)
    p.add_argument("--store", type=output_file, metavar="PATH", help=f"result store (default: {STORE_NAME} next to --out)")
    p.add_argument("--executor", default="local", metavar="local|ray[:ADDRESS]",
                   help="where models run: this process (default), or Ray (a local instance, or ray:auto / "
                        "ray:ray://host:10001 for a cluster)")
    p.add_argument("--batch-size", type=integer, default=8, metavar="N", help="clips per model call (default %(default)s)")
    p.add_argument("--device", default="cpu", help="cpu (default), cuda, cuda:1, ...")
    p.add_argument("--compute-type", metavar="TYPE",
                   help="precision: CTranslate2 compute type (float32 default, int8, float16) or torch dtype")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="backend option, e.g. beam_size=1 (VALUE is read as JSON when it parses, else as text)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def add_dataset_arguments(p: argparse.ArgumentParser) -> None:
    """What to read of a Hugging Face dataset given as ``--corpus``: its split, configuration and columns (each
    refused for a manifest or a folder of audio, by ``load_corpus``)."""
    p.add_argument("--split", help="dataset split (Hugging Face datasets)")
    p.add_argument("--hf-config", help="dataset configuration (Hugging Face hub datasets)")
    p.add_argument("--audio-column", metavar="NAME", help="the dataset's audio column (default: audio)")
    p.add_argument("--text-column", metavar="NAME",
                   help=f"the dataset's reference column (default: the first of {', '.join(HF_TEXT_COLUMNS)} it has), "
                        "or a manifest's reference field (default: text)")
    p.add_argument("--id-column", metavar="NAME",
                   help="the dataset's clip id column (default: id when it has one, else the row number)")


def open_corpus(args: argparse.Namespace) -> Corpus:
    """``--corpus`` with the dataset options ``add_dataset_arguments`` gave; how it was read is noted on stderr."""
    corpus = load_corpus(args.corpus, split=args.split, config=args.hf_config, audio_column=args.audio_column,
                         text_column=args.text_column, id_column=args.id_column)
    for line in corpus.notes:
        note(f"note: {corpus.source}: {line}")
    # the outputs check_grid_outputs was given, against the clips' audio files (inputs it could not see)
    ensure_outputs_apart_from_audio(getattr(args, "grid_outputs", ()), corpus.clips)
    return corpus


def parse_options(pairs: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--option expects KEY=VALUE, got {pair!r}")
        if key.strip() in options:  # the last one was used without a word: which did the user mean?
            raise InputError(f"--option {key.strip()} is given twice ({key.strip()}={options[key.strip()]!r} and "
                             f"{pair.strip()}): give it once")
        try:
            options[key.strip()] = json.loads(value)
        except ValueError:  # not JSON (a JSONDecodeError), or an integer longer than Python converts
            options[key.strip()] = value
    return options


def load_named_model(spec: str, **kwargs):
    """``load_model`` with a refused option named after its ``--model`` (one line, not a backend's traceback)."""
    from asraudit.models.registry import load_model

    try:
        return load_model(spec, **kwargs)
    except InputError as exc:
        if exc.source is not None or repr(spec) in exc.message:  # it names its file, or the model already
            raise
        raise InputError(f"--model {spec}: {exc.message}") from None


def _refuse_repeated_models(args: argparse.Namespace) -> None:
    repeated = next((m for i, m in enumerate(args.model) if m in args.model[:i]), None)
    if repeated is not None:  # it ran, then `transcribe` refused to write two files of one name
        raise InputError(f"--model {repeated} is given more than once: give each model once")


def model_factories(args: argparse.Namespace) -> list:
    """Zero-argument loaders, so that the Ray executor loads each model inside its own actor."""
    _refuse_repeated_models(args)
    options = parse_options(args.option)
    for key, flag in (("device", "--device"), ("compute_type", "--compute-type")):
        if key in options:  # load_model takes them as its own arguments, which the flags give
            raise InputError(f"--option {key}=...: give it as {flag} {options[key]}")
    return [functools.partial(load_named_model, spec, device=args.device, compute_type=args.compute_type, **options)
            for spec in args.model]


def load_models(args: argparse.Namespace) -> list:
    """Loaded once for the local executor (every probe step reuses them); factories for Ray actors."""
    factories = model_factories(args)
    return [f() for f in factories] if args.executor == "local" else factories


def executor_of(args: argparse.Namespace):
    actor_options = {"num_gpus": 1} if str(args.device).startswith("cuda") else None
    return parse_executor(args.executor, batch_size=args.batch_size, progress=not args.no_progress,
                          actor_options=actor_options)


def replay_inputs(args: argparse.Namespace) -> list[tuple[str, Path]]:
    """The prediction files ``--model replay:FILE`` reads: inputs an output must not replace (``transcribe
    --model replay:o/mine.jsonl --out o`` rewrote the file it replayed with the corpus's clips only, the rows of
    every other clip lost)."""
    return [(f"the file --model {spec} replays", Path(spec.split(":", 1)[1])) for spec in args.model
            if spec.startswith("replay:") and spec.split(":", 1)[1]]


def check_grid_outputs(args: argparse.Namespace, *, store: Path, files=(), folders=(), inputs=()) -> None:
    """Every output of a model-running command checked before the corpus is read and any model runs.

    ``files`` and ``folders`` are (option, path) pairs (a None path: not given); ``inputs`` the command's own
    input files besides the corpus.  Each output must be writable (a file where its folder should be, or a
    folder where the file should be, failed only when the results were written, after every model had run),
    and none may be an input, the corpus manifest or the result store: ``score --out`` named after its
    ``--texts`` or the manifest replaced that input with the scores."""
    _refuse_repeated_models(args)  # every model-running command calls this first
    # The executor options were read by `executor_of`, after the corpus was read, the models loaded and the
    # store created in the output folder: `--batch-size 0` (or `--executor bogus`) was refused only then.
    if args.batch_size < 1:
        raise InputError(f"--batch-size must be at least 1, got {args.batch_size}")
    ray_address(args.executor)
    for what, path in folders:
        ensure_writable_dir(path, what)
    for what, path in files:
        if path is not None:
            ensure_writable_file(path, what)
    ensure_writable_file(store, "the result store")
    corpus = Path(args.corpus)
    sources = [("the corpus manifest", corpus)] if corpus.is_file() else []
    ensure_outputs_apart([*files, ("the result store", store)], [*sources, *inputs, *replay_inputs(args)])
    refuse_outputs_in_model_folders([(f"--model {m}", m) for m in args.model], [*files, ("the result store", store)],
                                    folders)
    args.grid_outputs = [*files, ("the result store", store)]  # open_corpus checks them against the audio files


def print_run(summary: RunSummary, store: ResultStore, file=None) -> None:
    """One line per model: jobs run now and before, and RTFx over every run recorded in the store.

    ``file`` defaults to the standard error of the moment of the call, not of the import: a default bound at
    import time keeps a stream that a test harness (or a caller) may have replaced and closed since."""
    file = file if file is not None else sys.stderr
    recorded = {(t.model_id, t.config_hash): t for t in store.timings()}
    for stats in summary.models:
        total = recorded.get((stats.model_id, stats.config_hash))
        rtfx = f"RTFx {total.rtfx:.1f} ({total.audio_seconds:.1f} s audio / {total.compute_seconds:.1f} s compute)" \
            if total and total.compute_seconds > 0 else "RTFx -"
        shared = f", {stats.jobs_by_others} by a concurrent run" if stats.jobs_by_others else ""
        note(f"{stats.model_id}: {stats.jobs_run} job(s) run now, {stats.jobs_done_before} already stored{shared}; "
             f"{rtfx}", file=file)


# --- transcribe ----------------------------------------------------------------------------


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "transcribe",
        help="run models over a corpus; write <out>/<model>.jsonl prediction files",
        description="Transcribe every clip of a corpus with each model. Raw transcripts are kept in a result "
                    "store, so a rerun skips finished clips and a killed run resumes; prediction files in the "
                    "Open ASR Leaderboard layout are written from the store.",
    )
    add_grid_arguments(p)
    p.add_argument("--out", type=output_folder, required=True, metavar="DIR", help="folder for <model>.jsonl files")
    p.set_defaults(func=run)


def _refuse_clashing_stems(stems: list[str], note: str) -> None:
    clashes = sorted({s for s in stems if stems.count(s) > 1})
    if clashes:
        raise InputError(f"several models would write {clashes[0]}.jsonl; run them with separate --out folders{note}")


def _refuse_store_read_as_predictions(store: Path, out: Path) -> None:
    """A result store in ``--out`` named as a prediction file (``--store out/whisper-tiny.en.jsonl``,
    ``out/results.json``): the model's prediction file ``out/<model>.jsonl`` replaced the store it was written
    from (its results lost but for what SQLite's write-ahead log still held), and every later ``--preds out``
    read the store as a model's predictions."""
    if store.suffix.lower() in SUFFIXES and store.resolve().parent == out.resolve():
        raise InputError(f"the result store is in --out {out}, whose every {store.suffix} file is read as a model's "
                         f"predictions: `asraudit wer --preds {out}` would read it as model {store.stem!r}, and a "
                         f"model's {store.stem}.jsonl would replace it: name the store {store.stem}.sqlite or put it "
                         "in another folder", store)


def _check_prediction_files(args: argparse.Namespace, corpus: Corpus, store: Path, stems: list[str]) -> None:
    """The prediction files ``<out>/<model>.jsonl`` checked as outputs once the models' names are known (before
    any model runs with the local executor): ``check_grid_outputs`` cannot name them.  A folder there was found
    when the file was written, after every model had run (``o/.whisper-tiny.en.jsonl.11918.c2cc16e4.tmp: Is a
    directory``, a temporary name); a symbolic link there to the corpus manifest or a clip's audio (a file is
    written through its link) had that input replaced with the predictions."""
    outputs = [(f"the prediction file of model {stem}", args.out / f"{stem}.jsonl") for stem in stems]
    for what, path in outputs:
        ensure_writable_file(path, what)
    manifest = Path(args.corpus)
    fix = "the file is named after the model: remove what is there (a link?), or choose another --out"
    ensure_outputs_apart([*outputs, ("the result store", store)],
                         ([("the corpus manifest", manifest)] if manifest.is_file() else []) + replay_inputs(args), fix)
    ensure_outputs_apart_from_audio(outputs, corpus.clips, fix)


def run(args: argparse.Namespace) -> int:
    store_path = args.store or args.out / STORE_NAME
    check_grid_outputs(args, store=store_path, folders=[("--out", args.out)])  # before any model runs
    _refuse_store_read_as_predictions(store_path, args.out)
    manifest = Path(args.corpus)
    if manifest.is_file() and args.out.is_dir() and manifest.resolve().parent == args.out.resolve():
        raise InputError(f"--out is the folder of the manifest {manifest.name}: the prediction files would lie "
                         "beside it, `asraudit wer --preds` would read it as a model's, and a model named like it "
                         "would replace it: choose another --out", args.out)
    corpus = open_corpus(args)
    models = model_factories(args)
    if args.executor == "local":  # loaded here (the executor takes them as they are): file names known before any run
        models = [factory() for factory in models]
        stems = [preds_file_stem(identify(m).model_id) for m in models]
        _refuse_clashing_stems(stems, "")
        _check_prediction_files(args, corpus, store_path, stems)
    with ResultStore(store_path) as store:
        summary = executor_of(args).run(store, models, corpus.clips, Transcribe(),
                                        description=f"transcribe {corpus.source}")
        stems = [preds_file_stem(i.model_id) for i in summary.identities]
        _refuse_clashing_stems(stems, " (their results are stored)")  # Ray actors load their models themselves
        _check_prediction_files(args, corpus, store_path, stems)
        print_run(summary, store)
        without_reference = sum(1 for c in corpus if c.reference is None)
        if without_reference:
            warn(f"{without_reference} clip(s) have no reference transcript; their 'text' is empty")
        for ident, stem in zip(summary.identities, stems):
            path, missing = write_predictions(store, corpus, ident.model_id, ident.config_hash,
                                              args.out / f"{stem}.jsonl")
            lacking = f" ({missing} clip(s) without a result)" if missing else ""
            print(one_line(f"wrote {path}{lacking}"))  # the file is named after the model
    return 0
