"""`asraudit preds`: check a set of prediction files and export them.

Before any probe compares models, the user needs to know which clips each
model ran and whether all files carry the same references; this command says
so, and can rewrite every file in the Open ASR Leaderboard's JSONL layout.
"""

from __future__ import annotations

import argparse

from asraudit.commands.common import (add_preds_argument, ensure_outside_prediction_folders, integer,
                                      load_predictions_with_warnings, prediction_inputs)
from asraudit.data.paths import ensure_outputs_apart, ensure_writable_dir, output_folder
from asraudit.data.predictions import SUFFIXES, prediction_files, write_leaderboard_jsonl
from asraudit.errors import InputError
from asraudit.report.tables import render_table
from asraudit.terminal_text import one_line


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "preds",
        help="coverage and reference conflicts of prediction files; export to leaderboard JSONL",
        description="Summarize prediction files (clips per model, missing clips, references that "
                    "disagree across models) and optionally export them as leaderboard JSONL.",
    )
    add_preds_argument(p)
    p.add_argument("--export", type=output_folder, metavar="DIR",
                   help="write <DIR>/<model>.jsonl with audio_filepath, text, pred_text, duration")
    p.add_argument("--show-conflicts", type=integer, default=5, metavar="N",
                   help="print up to N clips whose references disagree (default %(default)s)")
    p.set_defaults(func=run)


def _ensure_no_other_layout_beside(exports) -> None:
    """Refuse an export ``DIR/m.jsonl`` where ``DIR`` already holds ``m.csv`` or ``m.parquet`` (another layout's file
    of model m): ``--preds DIR/m.csv --export DIR`` (a file named on its own, so case 250's folder check let it
    through) or an older conversion left there.  The folder would then hold two files of model m, and every later
    command reading it stops on "two prediction files for model 'm'"."""
    for _, out in exports:
        folder = out.parent
        if not folder.is_dir():
            continue
        for other in folder.iterdir():
            if (other.stem == out.stem and other.suffix.lower() in SUFFIXES and other.name != out.name
                    and not other.name.startswith(".")):
                raise InputError(f"--export would write {out.name} beside {other.name}, another file of model "
                                 f"{out.stem!r}: every later read of the folder {folder} would stop on two prediction "
                                 f"files for model {out.stem!r}; write it to another folder", out)


def run(args: argparse.Namespace) -> int:
    if args.show_conflicts < 0:  # a negative slice bound listed every conflict but the last ones
        raise InputError(f"--show-conflicts must be at least 0, got {args.show_conflicts}")
    files = prediction_files(args.preds)
    if args.export:
        ensure_writable_dir(args.export, "--export")
        # each model's export is <DIR>/<model>.jsonl: never one of the files it is read from
        exports = [("--export", args.export / f"{f.stem}.jsonl") for f in files]
        ensure_outputs_apart(exports, prediction_inputs(files))
        # Into a folder --preds names, m.jsonl lands beside the model's own m.csv (or m.parquet): the folder then
        # holds two files of model m, and every later command reading it stops (case 250).
        ensure_outside_prediction_folders(exports, args.preds)
        _ensure_no_other_layout_beside(exports)
    pset = load_predictions_with_warnings(files)
    all_ids = pset.clip_ids()
    rows = []
    for m, preds in pset.models.items():
        missing = len(all_ids) - len(preds)
        empty_hyp = sum(1 for p in preds.rows.values() if not p.hypothesis.strip())
        rows.append([m, str(preds.source), len(preds), missing, empty_hyp])
    render_table(["model", "file", "clips", "missing", "empty hyp"], rows,
                 right_align=[False, False, True, True, True],
                 title=f"{len(pset.models)} prediction file(s), {len(all_ids)} distinct clip(s), "
                       f"{len(pset.common_clip_ids())} run by every model")
    conflicts = pset.reference_conflicts()
    if conflicts:
        print(f"\n{len(conflicts)} clip(s) with references that differ across models:")
        for c in conflicts[: args.show_conflicts]:
            print("  " + one_line(c.describe()))
    else:
        print("\nreferences agree across models on every shared clip")
    if args.export:
        for preds in pset.models.values():
            out = write_leaderboard_jsonl(preds, args.export / f"{preds.model}.jsonl")
            print(f"wrote {out}")
    return 0
