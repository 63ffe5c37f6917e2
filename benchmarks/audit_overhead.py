"""The audit's own overhead: the share of each stage's time spent outside model calls (goal: at most 5%).

Runs the demo audit (``asraudit demo``'s spec: the embedded Whisper panel,
pocketsphinx, the model organisms; every probe, the mechanism experiments
included) on fewer sentences, into a fresh folder, so every model call is
made and nothing comes from a store.  The split is the one the audit writes
into summary.json's ``timing``: model time is loading models, transcribing,
scoring, forced alignment and learning steering directions; the overhead is
the rest (the store, planning, decoding and conditioning audio, normalizing,
readouts, statistics, tables and the report).

The whole demo (fifteen sentences) took 22 minutes on two cores of a slow machine; two
sentences take a few.  The share shrinks as the corpus grows where the
overhead is fixed (loading the report's libraries, writing files) and stays
where it grows with the clips.

    .venv/bin/python benchmarks/audit_overhead.py [--sentences s001,s013] [--no-mechanism] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from asraudit.audit.pipeline import run_audit
from asraudit.audit.spec import load_spec
from asraudit.demo.demo_audit import DEMO_SPEC

GOAL = 0.05


def demo_spec(sentences: list[str], mechanism: bool, out: Path):
    """The demo's spec, read as `asraudit demo` reads it (its files beside it), narrowed to ``sentences``."""
    spec = load_spec(DEMO_SPEC, out=out)
    spec = replace(spec, corpus=replace(spec.corpus, select_field="sentence", select_values=tuple(sentences),
                                        select_first=None))
    return spec if mechanism else replace(spec, mechanism=())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sentences", default="s001,s013",
                    help="comma-separated demo sentences (each in seven voices; the demo has fifteen)")
    ap.add_argument("--no-mechanism", action="store_true", help="leave out the white-box experiments (torch)")
    ap.add_argument("--keep", type=Path, default=None, help="write the audit here instead of a temporary folder")
    args = ap.parse_args()
    sentences = [s.strip() for s in args.sentences.split(",") if s.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        out = args.keep or Path(tmp) / "audit"
        result = run_audit(demo_spec(sentences, not args.no_mechanism, out), progress=False)
        timing = json.loads((out / "summary.json").read_text(encoding="utf-8"))["timing"]
    print(f"\ndemo audit on {len(sentences)} sentence(s) ({', '.join(sentences)}), "
          f"{'with' if not args.no_mechanism else 'without'} mechanism; "
          f"{result.provenance.corpus.clips} clips, {len(result.provenance.models)} models")
    print(f"{'stage':<18}{'wall s':>9}{'model s':>9}{'overhead s':>12}{'share':>8}{'cpu s':>9}{'model cpu s':>13}")
    rows = list(timing["stages"].items()) + [("total", timing["total"])]
    for name, t in rows:
        share = "-" if t["overhead_share"] is None else f"{100 * t['overhead_share']:.1f}%"
        print(f"{name:<18}{t['wall_s']:>9.2f}{t['model_s']:>9.2f}{t['overhead_s']:>12.2f}{share:>8}"
              f"{t['cpu_s']:>9.2f}{t['model_cpu_s']:>13.2f}")
    total = timing["total"]
    met = "met" if total["overhead_share"] <= GOAL else "MISSED"
    print(f"RATIO audit overhead: {100 * total['overhead_share']:.1f}% of {total['wall_s']:.1f} s outside model calls "
          f"(goal <= {100 * GOAL:.0f}%, {met}; {len(sentences)} of the demo's 10 sentences)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
