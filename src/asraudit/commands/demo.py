"""`asraudit demo`: the embedded benchmark, its model organism, and the demo audit.

``asraudit demo build-benchmark`` regenerates parliament-mini's audio from
its sentences (needs the TTS engines); ``asraudit demo build-organism``
fine-tunes the model organism from it (needs the ``hf`` extra).  Both write
into the package's data folder, which is what the repository ships.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="the embedded benchmark (parliament-mini) and its model organism",
                       description="Build the embedded benchmark and the model organism.")
    demo_sub = p.add_subparsers(dest="demo_command", metavar="STEP")
    b = demo_sub.add_parser("build-benchmark", help="synthesize parliament-mini (needs flite, festival, espeak-ng, piper)")
    b.add_argument("--out", type=Path, default=None, help="output folder (default: the package's data folder)")
    b.add_argument("--jobs", type=int, default=2)
    b.set_defaults(func=_build_benchmark)
    o = demo_sub.add_parser("build-organism", help="fine-tune whisper-tiny.en-organism on the train split")
    o.add_argument("--manifest", type=Path, default=None, help="train manifest (default: the embedded benchmark)")
    o.add_argument("--out", type=Path, default=None, help="adapter file (default: the package's data folder)")
    o.add_argument("--epochs", type=int, default=None)
    o.add_argument("--seed", type=int, default=0)
    o.set_defaults(func=_build_organism)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _build_benchmark(args: argparse.Namespace) -> int:
    from asraudit.demo.build_benchmark import DATA_DIR, build

    build(args.out or DATA_DIR, args.jobs)
    return 0


def _build_organism(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from asraudit.demo.organism import BENCHMARK_DIR, ORGANISM_FILE, TrainConfig, build_organism

    config = TrainConfig(seed=args.seed)
    if args.epochs:
        config = replace(config, epochs=args.epochs)
    build_organism(args.manifest or BENCHMARK_DIR / "manifest.jsonl", args.out or ORGANISM_FILE, config)
    return 0
