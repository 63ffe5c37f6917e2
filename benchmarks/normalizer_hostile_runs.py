"""Normalizers on long runs of one character (a model caught in a loop): time grows with the length, not its square.

For each run (spaces, tabs, no-break spaces, an apostrophe then spaces,
unclosed ``[``, ``<`` and ``(``) and each normalizer, the CPU seconds of one
call at n and 2n characters, and their ratio (about 2 when the work is
linear, 4 when it is quadratic).  Then the rules that were quadratic (fault
case 111), as transformers writes them, against asraudit's, on the same run
at the smallest n, with the same output checked: one ``RATIO`` line.

    .venv/bin/python benchmarks/normalizer_hostile_runs.py [--sizes 100000,1000000]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from asraudit.text import symbols  # noqa: E402
from asraudit.text.normalize import get_normalizer  # noqa: E402

RUNS = {
    "spaces": lambda n: " " * n,
    "tabs": lambda n: "\t" * n,
    "no-break spaces": lambda n: "\u00a0" * n,
    "apostrophe, spaces": lambda n: " 'cat" + " " * n + "dog",
    "open [": lambda n: "the [cat " + "[" * n,
    "open <": lambda n: "<" * n + " the cat",
    "open (": lambda n: "the cat " + "(" * n,
}
NORMALIZERS = ("whisper", "basic", "leaderboard", "basic-fr")

ORIGINAL_APOSTROPHE = re.compile(r"\s+'")
ORIGINAL_BRACKETS = re.compile(r"[<\[][^>\]]*[>\]]")
ORIGINAL_PARENTHESES = re.compile(r"\(([^)]+?)\)")


def cpu(fn, arg) -> tuple[float, object]:
    t0 = time.process_time()
    out = fn(arg)
    return time.process_time() - t0, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100000,1000000", help="run lengths n (each is also timed at 2n)")
    ap.add_argument("--original-size", type=int, default=20_000,
                    help="run length for the original (quadratic) rules: they take minutes at 100,000")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    normalizers = {name: get_normalizer(name) for name in NORMALIZERS}
    print(f"{'run':20} {'normalizer':12} " + " ".join(f"{f'n={n:,}':>12} {'2n/n':>6}" for n in sizes))
    worst = 0.0
    for run, make in RUNS.items():
        for name, normalize in normalizers.items():
            cells = []
            for n in sizes:
                t1, _ = cpu(normalize, make(n))
                t2, _ = cpu(normalize, make(2 * n))
                ratio = t2 / t1 if t1 > 0.005 else float("nan")  # below 5 ms the clock's grain dominates
                worst = max(worst, ratio) if ratio == ratio else worst
                cells.append(f"{t1:11.3f}s {ratio:6.2f}")
            print(f"{run:20} {name:12} " + " ".join(cells), flush=True)
    print(f"worst 2n/n ratio above 5 ms: {worst:.2f} (2: linear, 4: quadratic)")

    n = args.original_size
    rules = [
        ("apostrophe", " " * n, lambda s: ORIGINAL_APOSTROPHE.sub("'", s),
         lambda s: symbols.SPACE_BEFORE_APOSTROPHE.sub("'", s)),
        ("brackets", "[" * n + "(" * n, lambda s: ORIGINAL_PARENTHESES.sub("", ORIGINAL_BRACKETS.sub("", s)),
         symbols.remove_bracketed),
    ]
    total_original = total_ours = 0.0
    for name, text, original, ours in rules:
        t_orig, out_orig = cpu(original, text)
        t_ours, out_ours = cpu(ours, text)
        assert out_orig == out_ours, name
        total_original += t_orig
        total_ours += t_ours
        print(f"{name}: original rule {t_orig:.3f} s, asraudit {t_ours:.4f} s on {len(text):,} characters")
    print(f"RATIO normalizer-hostile-runs: original rules {total_original:.3f} s, asraudit {total_ours:.4f} s "
          f"({n:,}-character runs), {total_original / max(total_ours, 1e-6):,.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
