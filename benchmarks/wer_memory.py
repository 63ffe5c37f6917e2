"""Peak memory of `asraudit wer` on a large prediction file, against the file's size.

Writes a leaderboard-layout JSONL of ``--rows`` rows (~190 bytes each, like
the Open ASR Leaderboard's: an audio path, a reference, a hypothesis with a
few errors, a duration) unless ``--file`` exists, then runs ``asraudit wer``
on it under ``/usr/bin/time -v`` and prints the peak resident memory next
to the file size.  The goal (issue: faults, case 9) is at most 2x the file.

    .venv/bin/python benchmarks/wer_memory.py [--rows 1000000] [--normalizer whisper]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = ("the commission must present its report before the autumn madam president we have twenty "
         "three member states and mister smith said that on the first of may the council will vote "
         "against this proposal because it is late").split()


def write_file(path: Path, rows: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(rows):
            ref = " ".join(rng.choices(WORDS, k=rng.randint(12, 18))).capitalize() + "."
            hyp = [w for w in ref.rstrip(".").lower().split() if rng.random() > 0.05]
            fh.write(json.dumps({"audio_filepath": f"audio/clip-{i:07d}.flac", "text": ref,
                                 "pred_text": " ".join(hyp), "duration": round(rng.uniform(2, 15), 2)}) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--file", type=Path, help="prediction file to use (written if absent)")
    ap.add_argument("--normalizer", default="whisper", choices=("whisper", "basic", "none"))
    ap.add_argument("--bootstrap", type=int, default=1000)
    args = ap.parse_args()
    path = args.file or Path(tempfile.gettempdir()) / f"asraudit-wer-{args.rows}.jsonl"
    if not path.exists():
        write_file(path, args.rows)
    size = path.stat().st_size
    src = Path(__file__).resolve().parents[1] / "src"
    env = dict(os.environ, PYTHONPATH=f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "asraudit", "wer", "--preds", str(path),
           "--normalizer", args.normalizer, "--bootstrap", str(args.bootstrap)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    tree_peak = 0
    while proc.poll() is None:  # the workers' memory counts too: sum the whole process tree
        tree_peak = max(tree_peak, tree_rss_kb(proc.pid))
        time.sleep(0.05)
    stdout, stderr = proc.communicate()
    print(stdout)
    if proc.returncode:
        sys.exit(stderr)
    peak_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time .*: (\S+)", stderr).group(1)
    cpu = float(re.search(r"User time \(seconds\): (\S+)", stderr).group(1)) + float(
        re.search(r"System time \(seconds\): (\S+)", stderr).group(1))
    print(f"{path}: {size / 1e6:.1f} MB, {args.rows:,} rows; normalizer {args.normalizer}")
    print(f"peak RSS {peak_kb / 1e3:.1f} MB = {peak_kb * 1e3 / size:.2f}x the file (largest process, /usr/bin/time); "
          f"whole process tree {tree_peak / 1e3:.1f} MB = {tree_peak * 1e3 / size:.2f}x (sampled every 50 ms)")
    print(f"wall {wall}, CPU {cpu:.1f} s (all processes)")
    print(f"RATIO wer-{args.rows:,}-rows: goal (1,000,000 rows) <= 30 s and <= 2x the file ({size / 1e6:.0f} MB); asraudit {wall} "
          f"wall, {cpu:.0f} s CPU, peak RSS {tree_peak / 1e3:.0f} MB for all processes = {tree_peak * 1e3 / size:.2f}x")


def tree_rss_kb(pid: int) -> int:
    """Resident memory of ``pid`` and all its descendants, from /proc (0 where it cannot be read)."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            status = Path(f"/proc/{p}/status").read_text()
            total += int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) if "VmRSS" in status else 0
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, AttributeError, ValueError):
            continue
    return total


if __name__ == "__main__":
    main()
