"""`asraudit calibrate`: validate asraudit on parliament-mini, whose truth is known."""

from __future__ import annotations

import argparse
from pathlib import Path

DEFAULT_OUT = Path("asraudit-calibration")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "calibrate",
        help="mining precision/recall and accept-ref of clean models vs the model organism on parliament-mini",
        description="Run the clean embedded models and the model organism over parliament-mini's test split "
                    "(through the result store: a rerun is free), mine reference errors with the clean panel, "
                    "and compare against the planted truth.",
    )
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder for the store, predictions and calibration.json")
    p.add_argument("--beam-size", type=int, default=1, help="Whisper beam size (default %(default)s: greedy)")
    p.add_argument("--sentences", type=int, default=None, metavar="N",
                   help="only the first N test sentences (in every voice): a quicker, noisier run")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from asraudit.demo.calibrate import print_calibration, run_calibration

    result = run_calibration(args.out, beam_size=args.beam_size, progress=not args.no_progress,
                             sentences=args.sentences)
    print_calibration(result)
    print(f"wrote {args.out / 'calibration.json'}")
    return 0
