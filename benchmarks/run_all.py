"""Every benchmark, one after another, then one line per ratio: what `make bench` runs.

Each benchmark prints its own report and ends with ``RATIO`` lines (the
peer's figure, asraudit's, and the ratio, measured in the same run); this
collects them into a summary.  A benchmark whose data or peer is missing
here (the shared VoxPopuli predictions, faster-whisper from the ``bench``
extra) is reported as skipped, with the reason, not as a failure.

    .venv/bin/python benchmarks/run_all.py [--quick] [--reference-cli CMD]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def shared_predictions() -> Path | None:
    for base in (HERE.parents[1] / "shared", HERE.parents[2] / "shared"):
        folder = base / "reference" / "hume-voxpopuli-150" / "predictions"
        if folder.is_dir():
            return folder
    return None


def plan(quick: bool, reference_cli: str | None = None) -> list[tuple[str, list[str], str | None]]:
    """(name, arguments, reason to skip or None)."""
    preds = shared_predictions()
    no_preds = None if preds else "the shared VoxPopuli-150 predictions are not here"
    p = ["--preds", str(preds)] if preds else []
    fw = None if importlib.util.find_spec("faster_whisper") else "faster-whisper is not installed (the bench extra)"
    hf = None if importlib.util.find_spec("transformers") and importlib.util.find_spec("torch") \
        else "transformers and torch are not installed (the hf extra)"
    return [
        ("normalizer", ["normalizer_speed.py", *p, "--repeat", "1" if quick else "3"], None),
        ("normalizer hostile runs", ["normalizer_hostile_runs.py", *(["--sizes", "100000"] if quick else [])], None),
        ("wer 1M rows", ["wer_memory.py", "--rows", "100000" if quick else "1000000"], None),
        ("wer scoring", ["wer_speed.py", *p, *(["--clips", "20000"] if quick else [])], no_preds),
        ("refdis mining", ["refdis_speed.py", *p, "--repeat", "1" if quick else "3",
                           *(["--sizes", "150,1800"] if quick else []),
                           *(["--reference-cli", reference_cli] if reference_cli else [])], no_preds),
        ("audit overhead", ["audit_overhead.py", *(["--no-mechanism"] if quick else [])], None),
        ("transcribe", ["transcribe_speed.py", *(["--repeat", "1", "--rounds", "1"] if quick else [])], fw),
        ("scoring", ["score_speed.py", *(["--clips", "1", "--candidates", "8", "--rounds", "1"] if quick else [])], hf),
        ("organism step", ["organism_step_cost.py", *(["--batch", "2", "--rounds", "1"] if quick else [])], hf),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller corpora and one round (a smoke run)")
    ap.add_argument("--reference-cli", metavar="CMD",
                    help="the reference implementation's command, for the mining benchmark's peer (not on PyPI)")
    args = ap.parse_args()
    ratios: list[str] = []
    failed = []
    for name, argv, skip in plan(args.quick, args.reference_cli):
        print(f"\n=== {name}: {' '.join(argv)}", flush=True)
        if skip:
            print(f"skipped: {skip}")
            ratios.append(f"{name}: skipped, {skip}")
            continue
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, str(HERE / argv[0]), *argv[1:]], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        for line in proc.stdout:
            print(line, end="", flush=True)
            if line.startswith("RATIO "):
                ratios.append(line[len("RATIO "):].rstrip())
        if proc.wait():
            failed.append(name)
            ratios.append(f"{name}: FAILED (exit {proc.returncode})")
        print(f"({name}: {time.perf_counter() - t0:.0f} s)")
    print("\n=== ratios (peer, asraudit, ratio; same run, same data)")
    for line in ratios:
        print(f"  {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
