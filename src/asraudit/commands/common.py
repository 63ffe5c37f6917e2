"""Pieces several commands share (not a command itself)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from asraudit.data.predictions import PredictionSet, load_predictions


def add_preds_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--preds", nargs="+", required=True, metavar="PATH",
                   help="a directory of prediction files (model = file stem) or the files themselves")


def prediction_inputs(files) -> list[tuple[str, Path]]:
    """The expanded prediction files as inputs an output must not overwrite (``ensure_outputs_apart``)."""
    return [(f"the prediction file of model {Path(f).stem}", Path(f)) for f in files]


def load_predictions_with_warnings(paths) -> PredictionSet:
    """Load prediction files and print the loader's warnings to stderr before any table."""
    pset = load_predictions(paths)
    for w in pset.warnings:
        print(f"asraudit: warning: {w}", file=sys.stderr)
    sys.stderr.flush()
    return pset
