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
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    print(done.stdout)
    if done.returncode:
        sys.exit(done.stderr)
    peak_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time .*: (\S+)", done.stderr).group(1)
    print(f"{path}: {size / 1e6:.1f} MB, {args.rows:,} rows; normalizer {args.normalizer}")
    print(f"peak RSS {peak_kb / 1e3:.1f} MB = {peak_kb * 1e3 / size:.2f}x the file; wall {wall}")


if __name__ == "__main__":
    main()
