"""`asraudit calibrate`: validate asraudit on parliament-mini, whose truth is known."""

from __future__ import annotations

import argparse
from pathlib import Path

from asraudit.commands.common import at_least
from asraudit.data.paths import output_folder
from asraudit.demo.calibrate import calibration_summary, print_calibration, run_calibration
from asraudit.demo.calibration_report import proven_on_for

DEFAULT_OUT = Path("asraudit-calibration")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "calibrate",
        help="asraudit's own validation: every probe on parliament-mini, clean models vs the model organisms, "
             "one row per detector with its target, pass or fail",
        description="Audit parliament-mini's test split with the embedded calibration spec (clean embedded models "
                    "as the panel, the model organisms under suspicion, every probe; all through the result store, "
                    "so a rerun is free), then score the miner against the planted truth and measure the switch "
                    "rate on mixed-arm references.",
    )
    p.add_argument("--out", type=output_folder, default=DEFAULT_OUT,
                   help="folder for the store, the audit outputs and calibration.json (default %(default)s)")
    p.add_argument("--sentences", type=at_least(1), default=None, metavar="N",
                   help="only the first N sentences of the split (in every voice): a quicker, noisier run")
    p.add_argument("--heldout", action="store_true",
                   help="read out on the held-out split (parliament_mini_heldout: sentences written after every "
                        "test-split readout) with the organisms whose recipes the test split chose; "
                        "see docs/calibration-heldout.md")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    result = run_calibration(args.out, progress=not args.no_progress, sentences=args.sentences,
                             heldout=args.heldout)
    print_calibration(calibration_summary(result, proven_on=proven_on_for(args.heldout)))
    print(f"wrote {args.out / 'calibration.json'}")
    print(f"report: {args.out / 'report.html'}")
    return 0
