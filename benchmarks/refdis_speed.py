"""Reference-error mining at paper scale: 1,800 clips x 40 models, against the reference implementation's CLI.

The shared VoxPopuli-150 predictions (5 models) are replicated 12 times with
fresh clip ids, and each model into 8 variants: the original plus 7 copies
with seeded word-level perturbations of the raw text (drops, substitutions,
repeats at 3%), so no two clip x model texts are identical and neither
normalizer caches nor aligners can coast.  The replicas are written as
leaderboard JSONL files, one per model, and every tool reads the same files
with the paper's settings (majority 0.75, interior edits on, panel of four).

Peers, each a separate process, CPU time from ``getrusage(RUSAGE_CHILDREN)``
(user + system, imports and file reading included):

* the reference implementation's CLI (HumeAI/asr-benchmark-optimization,
  ``ref-disagreement``), when ``--reference-cli CMD`` names it: it is not on
  PyPI, so a user with a checkout installs it in a venv of its own and passes
  its command, which gets ``ref-disagreement --preds ... --out FILE`` appended:
  ``--reference-cli /path/venv/bin/benchmaxx`` or
  ``--reference-cli "/path/venv/bin/python -m benchmaxx.cli"`` (the package
  is ``benchmaxx`` from commit 0457ff7 on; older checkouts call it
  ``benchmark_optimization``, command ``benchmark-optimization``, with the
  same arguments and output); without it that peer is skipped, with the
  reason;
* ``asraudit refdis --compat hume``, whose JSON must equal the reference's
  (edits compared field by field, the ``clip`` key asraudit adds left out);
* ``asraudit refdis``, the full miner (leave-one-out, WER cost with 1,000
  bootstrap resamples).

Linearity: the CPU cost per clip x model pair of each miner, in this
process (loading and normalizing the files included, interpreter start-up
left out), at 150, 1,800 and 18,000 clips x 40 models; it should stay flat.

    .venv/bin/python benchmarks/refdis_speed.py [--preds DIR] [--reference-cli CMD] [--sizes 150,1800,18000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from asraudit.data.predictions import load_predictions
from asraudit.metrics.model_wer import NormalizedCache
from asraudit.probes.refdis import MinerParams, prepare_clips
from asraudit.probes.refdis_compat import HumeParams
from asraudit.probes.refdis_cells import COMPILED as CELLS_COMPILED
from asraudit.probes.refdis_compat_run import run_hume
from asraudit.probes.refdis_probe import measure_refdis
from asraudit.text.normalize import get_normalizer

_HERE = Path(__file__).resolve()
DEFAULT_PREDS = next((b / "reference" / "hume-voxpopuli-150" / "predictions" for b in (_HERE.parents[2] / "shared",
                      _HERE.parents[3] / "shared") if (b / "reference").is_dir()), _HERE.parents[2] / "shared")
PANEL = ["wav2vec2-base-960h", "whisper-tiny.en", "whisper-base.en", "whisper-small.en"]
VARIANTS = 8
RATE = 0.03
MAJORITY = 0.75  # the paper's setting, with interior edits on
GOAL = 20.0


def perturb(words: list[str], vocab: list[str], rng: random.Random) -> list[str]:
    out: list[str] = []
    for w in words:
        r = rng.random()
        if r < RATE / 3:
            continue
        if r < 2 * RATE / 3:
            out.append(rng.choice(vocab))
            continue
        out.append(w)
        if r < RATE:
            out.append(w)
    return out


def write_replicas(preds: Path, n_clips: int, folder: Path, seed: int = 0) -> int:
    """The first ``n_clips`` of the base clips replicated (fresh ids), every model in ``VARIANTS`` versions,
    as one leaderboard JSONL per model under ``folder``; returns the number of models.

    Variant 0 of each model keeps its name, and its text in the first replica, so the panel is the real
    one; the others are ``model~k`` with perturbed raw text."""
    base: dict[str, list[dict]] = {}
    for path in sorted(preds.glob("*.jsonl")):
        base[path.stem] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    rng = random.Random(seed)
    vocab = sorted({w for rows in base.values() for r in rows for w in r["pred_text"].split()})
    n_base = len(next(iter(base.values())))
    files = {(m, v): [] for m in base for v in range(VARIANTS)}
    for i in range(n_clips):
        k, j = divmod(i, n_base)
        for m, rows in base.items():
            row = rows[j]
            for v in range(VARIANTS):
                words = row["pred_text"].split()
                text = row["pred_text"] if (k == 0 and v == 0) else " ".join(perturb(words, vocab, rng))
                files[(m, v)].append({"audio_filepath": f"{row['audio_filepath']}#r{k}", "text": row["text"],
                                      "pred_text": text})
    folder.mkdir(parents=True, exist_ok=True)
    for (m, v), rows in files.items():
        name = m if v == 0 else f"{m}~{v}"
        with (folder / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    return len(files)


# Both tools' children run from compiled bytecode, as an installed package does: an environment that sets
# PYTHONDONTWRITEBYTECODE would otherwise make every run of an editable checkout recompile its modules (about
# 40 ms of asraudit's CPU) while an installed peer reads the bytecode its install wrote.  One cache folder
# for both (``PYTHONPYCACHEPREFIX``, set in ``main``), filled by an uncounted first run of each command.
CHILD_ENV: dict[str, str] = {}


def run_child(argv: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process run to completion; its output is discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          env=CHILD_ENV or None)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"{shlex.join(argv)} failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def best_child(argv: list[str], repeat: int) -> tuple[float, float]:
    run_child(argv)  # uncounted: compiles the command's modules into the shared bytecode cache
    runs = [run_child(argv) for _ in range(repeat)]
    return min(runs)


def same_as_reference(ours: dict, theirs: dict) -> list[str]:
    """What differs between the two JSON outputs (empty: identical); asraudit's per-edit ``clip`` is left out."""
    diffs = []
    for key in ("n_clips", "panel", "n_edits", "params", "accept_ref"):
        if ours.get(key) != theirs.get(key):
            diffs.append(f"{key}: asraudit {str(ours.get(key))[:200]} vs reference {str(theirs.get(key))[:200]}")
    mine = [{k: v for k, v in e.items() if k != "clip"} for e in ours.get("edits", [])]
    if mine != theirs.get("edits"):
        first = next((i for i, (a, b) in enumerate(zip(mine, theirs.get("edits", []))) if a != b),
                     min(len(mine), len(theirs.get("edits", []))))
        diffs.append(f"edits differ from edit #{first}")
    return diffs


def in_process_cpu(folder: Path, mode: str) -> float:
    """CPU seconds of one miner in this process: load, normalize, mine and score (no start-up, no printing)."""
    t0 = time.process_time()
    pset = load_predictions(folder)
    if mode == "compat":
        run_hume(pset, PANEL, HumeParams(majority=MAJORITY, include_middle=True))
    else:
        clips = prepare_clips(pset, NormalizedCache(get_normalizer("whisper")), pset.model_names)
        measure_refdis(clips, PANEL, MinerParams(majority=MAJORITY, include_middle=True), scored=pset.model_names)
    return time.process_time() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preds", type=Path, default=DEFAULT_PREDS)
    ap.add_argument("--reference-cli", metavar="CMD",
                    help="the reference implementation's command, e.g. /path/venv/bin/benchmaxx "
                         "(it gets: ref-disagreement --preds ... --out FILE)")
    ap.add_argument("--clips", type=int, default=1800, help="clips of the compared run (default 1,800)")
    ap.add_argument("--sizes", default="150,1800,18000", help="clip counts of the linearity table")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per CLI measurement; the best is kept")
    args = ap.parse_args()
    if not args.preds.is_dir():
        print(f"prediction folder {args.preds} not found (the shared VoxPopuli-150 data)", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="refdis-speed-"))
    CHILD_ENV.update({k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
    CHILD_ENV["PYTHONPYCACHEPREFIX"] = str(tmp / "bytecode")
    try:
        return _run(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(args, tmp: Path) -> int:
    folder = tmp / f"preds-{args.clips}"
    n_models = write_replicas(args.preds, args.clips, folder)
    print(f"{args.clips} clips x {n_models} models = {args.clips * n_models:,} clip-model pairs "
          f"(panel {len(PANEL)}, majority {MAJORITY}, interior edits on), files in {folder}")
    print("full miner's cell layout and readings: " + ("compiled (asraudit.probes._refdis_fast)" if CELLS_COMPILED
                                                       else "Python (asraudit.probes._refdis_fast is not built)"))
    asraudit = [sys.executable, "-m", "asraudit", "refdis", "--preds", str(folder), "--panel", ",".join(PANEL),
                "--majority", str(MAJORITY), "--include-middle"]
    compat_json, full_json = tmp / "compat.json", tmp / "full.json"
    compat_cpu, compat_wall = best_child(asraudit + ["--compat", "hume", "--json", str(compat_json)], args.repeat)
    full_cpu, full_wall = best_child(asraudit + ["--json", str(full_json)], args.repeat)
    print(f"asraudit refdis --compat hume: {compat_cpu:6.2f} s CPU ({compat_wall:.2f} s wall)")
    print(f"asraudit refdis (full miner):  {full_cpu:6.2f} s CPU ({full_wall:.2f} s wall)")

    if not args.reference_cli:
        reason = ("the reference implementation's CLI is not installed here (not on PyPI); "
                  "pass --reference-cli CMD from a checkout of HumeAI/asr-benchmark-optimization")
        print(f"reference CLI: skipped, {reason}")
        # No stand-in figure: the issue quoted 43 s for the reference, but measured beside asraudit on another
        # machine it took 15 s (docs/development.md), so a ratio to a number from elsewhere means nothing.
        print(f"RATIO refdis mining: skipped, {reason}; asraudit compat {compat_cpu:.2f} s CPU, "
              f"full {full_cpu:.2f} s CPU at {args.clips} x {n_models}")
    else:
        ref_json = tmp / "reference.json"
        ref_cpu, ref_wall = best_child(shlex.split(args.reference_cli) + [
            "ref-disagreement", "--preds", str(folder), "--panel", ",".join(PANEL), "--majority", str(MAJORITY),
            "--include-middle", "--out", str(ref_json)], args.repeat)
        diffs = same_as_reference(json.loads(compat_json.read_text(encoding="utf-8")),
                                  json.loads(ref_json.read_text(encoding="utf-8")))
        print(f"reference CLI:                 {ref_cpu:6.2f} s CPU ({ref_wall:.2f} s wall)")
        print("compat output: " + ("identical to the reference's" if not diffs else "DIFFERS: " + "; ".join(diffs)))
        for name, cpu in (("compat", compat_cpu), ("full", full_cpu)):
            ratio = ref_cpu / cpu
            print(f"RATIO refdis {name}: reference CLI {ref_cpu:.2f} s CPU, asraudit {cpu:.2f} s CPU, "
                  f"{ratio:.1f}x (goal {GOAL:.0f}x, {'met' if ratio >= GOAL else 'missed'})"
                  + ("" if name == "full" or not diffs else "; OUTPUT DIFFERS"))
        if diffs:
            return 1

    print("\nlinearity, in this process (CPU per clip-model pair; it should stay flat):")
    print(f"{'clips':>7} {'models':>6} {'pairs':>9} {'compat s':>9} {'us/pair':>8} {'full s':>8} {'us/pair':>8}")
    for n in [int(s) for s in args.sizes.split(",") if s.strip()]:
        sub = tmp / f"preds-{n}"
        if not sub.is_dir():
            write_replicas(args.preds, n, sub)
        pairs = n * n_models
        compat = in_process_cpu(sub, "compat")
        full = in_process_cpu(sub, "full")
        print(f"{n:>7} {n_models:>6} {pairs:>9,} {compat:>9.2f} {1e6 * compat / pairs:>8.1f} "
              f"{full:>8.2f} {1e6 * full / pairs:>8.1f}", flush=True)
        if sub != folder:
            shutil.rmtree(sub, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
