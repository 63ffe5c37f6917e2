"""`asraudit demo`: the embedded benchmark, its model organism, and the demo audit.

``asraudit demo`` runs the embedded audit spec (``demo/data/demo_audit.toml``:
parliament-mini, the embedded clean models and pocketsphinx as the panel, the
model organisms, every probe) with the calibration's truth readouts
(``asraudit.demo.demo_audit``), and prints the per-model summary, one row per
detector read on the organism built for it, and the path of the report.
``asraudit demo build-benchmark`` regenerates parliament-mini's audio from
its sentences (needs the TTS engines); ``asraudit demo build-organism``
fine-tunes the model organism from it (needs the ``hf`` extra).  Both write
into the package's data folder, which is what the repository ships.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import replace
from pathlib import Path

from asraudit.audit.outputs import print_summary
from asraudit.commands.audit import print_outputs
from asraudit.commands.common import at_least
from asraudit.data.paths import ensure_outputs_apart, ensure_writable_file, output_file, output_folder
from asraudit.demo import demo_audit
from asraudit.demo.build_benchmark import DATA_DIR, HELDOUT_DIR, build, build_heldout
from asraudit.demo.calibrate import print_organism_tables
from asraudit.demo.calibration_report import print_detectors
from asraudit.demo.organism import build_organism
from asraudit.demo.organism_kinds import KINDS, organism_kind
from asraudit.display_paths import display_path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="the demo audit on the embedded benchmark (parliament-mini) and its model organisms",
                       description="Without a STEP: run the demo audit (every probe on parliament-mini; clean embedded "
                                   "models vs the model organisms, one row per detector) and write its report. The "
                                   "STEPs rebuild the embedded benchmark and an organism.")
    p.add_argument("--out", type=output_folder, default=Path("asraudit-demo"), dest="demo_out",
                   help="folder for the demo audit's store and outputs (default %(default)s)")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--print-spec", action="store_true", help="print the embedded spec (a starting point for your own)")
    demo_sub = p.add_subparsers(dest="demo_command", metavar="STEP")
    b = demo_sub.add_parser("build-benchmark", help="synthesize parliament-mini (needs flite, festival, espeak-ng, piper)")
    b.add_argument("--out", type=output_folder, default=None, help="output folder (default: the package's data folder)")
    b.add_argument("--jobs", type=at_least(1), default=2)
    b.add_argument("--heldout", action="store_true",
                   help="the held-out split (parliament_mini_heldout) instead of the train and test splits")
    b.set_defaults(func=_build_benchmark)
    o = demo_sub.add_parser("build-organism", help="fine-tune a model organism (--kind) on parliament-mini")
    o.add_argument("--kind", choices=list(KINDS), default="record",
                   help="which organism: record (whisper-tiny.en-organism, the default), gated, gated-many, gated-deep, "
                        "contaminated, contaminated-heldout, switching, switching-4ep, record-base (whisper-base-organism) "
                        "(see asraudit.demo.organism_kinds)")
    o.add_argument("--manifest", type=Path, default=None, help="train manifest (default: the embedded split the kind's recipe reads)")
    o.add_argument("--out", type=output_file, default=None, help="adapter file (default: the package's data folder)")
    o.add_argument("--epochs", type=at_least(1), default=None)
    o.add_argument("--seed", type=at_least(0), default=0)  # numpy seeds the batch order: no negative seed
    o.set_defaults(func=_build_organism)
    p.set_defaults(func=_run_demo)


def printable_spec(path: Path) -> str:
    """The spec at ``path`` with each quoted value that names a file beside it made absolute.

    A spec reads relative paths from its own folder, and the embedded one names its corpus, its battery, the
    truth file and a splice's other speech (``corpus:`` in an inline table) beside it, inside the installed
    package: a copy saved elsewhere failed ``--check`` ("manifest: no such file") until each was edited.
    Absolute, the copy runs from any folder as it is; everything else (the comments, the layout) is printed
    unchanged."""
    folder = path.parent

    def absolute(match: re.Match) -> str:
        lead, key, prefix, value = match.groups()
        target = folder / value
        if Path(value).is_absolute() or not target.exists():
            return match.group(0)
        # a JSON string is a TOML basic string
        return lead + key + json.dumps((prefix or "") + str(target.resolve()))

    return re.sub(r'(^\s*|[{,]\s*)([A-Za-z_][A-Za-z0-9_]*\s*=\s*)"(corpus:)?([^"\\]+)"', absolute,
                  path.read_text(encoding="utf-8"), flags=re.M)


def _run_demo(args: argparse.Namespace) -> int:
    if args.print_spec:
        print(printable_spec(demo_audit.DEMO_SPEC), end="")
        return 0
    result, summary = demo_audit.run_demo_audit(args.demo_out, progress=not args.no_progress)
    print_summary(summary)
    # The readouts the detector rows are computed from, as `asraudit calibrate` prints them: the summary's
    # switch-rate column reads the record's references, which write each convention one way, so without the
    # voice-cue table a passing switch-rate row stood beside "switch rate not measurable" unexplained.
    print_organism_tables(summary, sys.stdout, "summary.json")
    print_detectors(summary.detectors or [])
    print_outputs(result)
    print(f"detector rows: {display_path(args.demo_out / 'detectors.md', Path.cwd())}")
    return 0


def _build_benchmark(args: argparse.Namespace) -> int:
    if args.heldout:
        build_heldout(args.out or HELDOUT_DIR, args.jobs)
    else:
        build(args.out or DATA_DIR, args.jobs)
    return 0


def _build_organism(args: argparse.Namespace) -> int:
    kind = organism_kind(args.kind)
    config = replace(kind.config, seed=args.seed)
    if args.epochs:
        config = replace(config, epochs=args.epochs)
    init = organism_kind(kind.starts_from).adapter if kind.starts_from else None
    manifest = args.manifest or kind.manifest
    out = args.out or kind.adapter
    # Checked before the minutes of training: the adapter was written only at the end, so an --out that is a
    # folder, or the train manifest itself, failed (or destroyed the manifest) after the whole build.
    ensure_writable_file(out, "--out")
    ensure_outputs_apart([("--out", out)], [("--manifest", manifest), ("the adapter it starts from", init)],
                         fix="name another adapter file")
    build_organism(manifest, out, config, recipe=kind.recipe, kind=kind.name, init=init, base_model=kind.base_model)
    return 0
