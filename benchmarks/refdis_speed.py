"""Reference-error mining at paper scale: 1,800 clips x 40 models.

The shared VoxPopuli-150 predictions (5 models) are replicated 12 times with
fresh clip ids, and each model into 8 variants: the original plus 7 copies
with seeded word-level perturbations (drops, substitutions, repeats at 3%),
so no two clip x model texts are identical and the aligner cannot coast.
Text is normalized before the clock starts: normalization is shared with
every other probe and cached per string; this measures the miner.

Speed is reported as clips/s and as a ratio against a peer measured in the
same run on the same clip x model pairs: plain WER counting (one
edit-distance pass per pair), the least any audit of these predictions does.
Linearity: the cost per clip x model pair is printed for several grid sizes;
it should stay flat (the miner aligns each model once per clip).

    .venv/bin/python benchmarks/refdis_speed.py [--preds DIR] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from asraudit.data.predictions import load_predictions
from asraudit.metrics.model_wer import NormalizedCache
from asraudit.probes.refdis import ClipInput, mine, prepare_clips
from asraudit.text.align import edit_counts
from asraudit.text.normalize import get_normalizer

_HERE = Path(__file__).resolve()
DEFAULT_PREDS = next((b / "reference" / "hume-voxpopuli-150" / "predictions" for b in (_HERE.parents[2] / "shared",
                      _HERE.parents[3] / "shared") if (b / "reference").is_dir()), _HERE.parents[2] / "shared")
PANEL = ["wav2vec2-base-960h", "whisper-tiny.en", "whisper-base.en", "whisper-small.en"]
REPLICAS = 12
VARIANTS = 8
RATE = 0.03


def perturb(words: tuple[str, ...], vocab: list[str], rng: random.Random) -> tuple[str, ...]:
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
    return tuple(out)


def paper_scale(base: list[ClipInput], replicas: int, variants: int, seed: int = 0) -> list[ClipInput]:
    """``replicas`` copies of every clip with fresh ids; every model in ``variants`` versions.

    Variant 0 of each model keeps its name and text, so the panel is the
    real one; the others are ``model~k`` with perturbed text.
    """
    rng = random.Random(seed)
    vocab = sorted({w for c in base for h in c.hyps.values() for w in h})
    out = []
    for k in range(replicas):
        for c in base:
            hyps = {}
            for m, h in c.hyps.items():
                hyps[m] = perturb(h, vocab, rng) if k else h
                for v in range(1, variants):
                    hyps[f"{m}~{v}"] = perturb(h, vocab, rng)
            out.append(ClipInput(f"{c.clip_id}#r{k}", c.ref, hyps))
    return out


def restrict(clips: list[ClipInput], n_clips: int, n_models: int) -> list[ClipInput]:
    """The first ``n_clips`` clips with the panel plus the first other models, ``n_models`` in all."""
    names = list(clips[0].hyps)
    keep = PANEL + [m for m in names if m not in PANEL][: max(0, n_models - len(PANEL))]
    return [ClipInput(c.clip_id, c.ref, {m: c.hyps[m] for m in keep}) for c in clips[:n_clips]]


def time_best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def wer_pass(clips: list[ClipInput]) -> int:
    errors = 0
    for c in clips:
        for h in c.hyps.values():
            s, d, i = edit_counts(c.ref, h)
            errors += s + d + i
    return errors


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preds", type=Path, default=DEFAULT_PREDS)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per measurement; the best is kept")
    args = ap.parse_args()
    if not args.preds.is_dir():
        print(f"prediction folder {args.preds} not found (the shared VoxPopuli-150 data)", file=sys.stderr)
        return 2

    t0 = time.perf_counter()
    base = prepare_clips(load_predictions(args.preds), NormalizedCache(get_normalizer("whisper")))
    t_norm = time.perf_counter() - t0
    full = paper_scale(base, REPLICAS, VARIANTS)
    n_clips, n_models = len(full), len(full[0].hyps)
    print(f"base: {len(base)} clips x {len(base[0].hyps)} models (load + normalize {t_norm:.2f} s)")
    print(f"paper scale: {n_clips} clips x {n_models} models = {n_clips * n_models} clip-model pairs, "
          f"panel {len(PANEL)}")

    result = mine(full, PANEL)
    t_mine = time_best(lambda: mine(full, PANEL), args.repeat)
    t_wer = time_best(lambda: wer_pass(full), args.repeat)
    print(f"edits: {len(result.full_panel_edits())} by the whole panel, {len(result.edits)} with leave-one-out")
    print(f"mining:   {t_mine:7.2f} s  {n_clips / t_mine:8.1f} clips/s  "
          f"{1e6 * t_mine / (n_clips * n_models):6.1f} us per clip-model")
    print(f"WER pass: {t_wer:7.2f} s  {n_clips / t_wer:8.1f} clips/s  (peer: edit-distance counts only)")
    print(f"mining costs {t_mine / t_wer:.1f}x a plain WER pass over the same pairs")
    print(f"RATIO refdis-mining: peer (edit-distance WER pass) {n_clips / t_wer:,.0f} clips/s, asraudit miner "
          f"{n_clips / t_mine:,.0f} clips/s, the miner takes {t_mine / t_wer:.1f}x the peer's time")

    print("\nlinearity (cost per clip-model pair should stay flat):")
    print(f"{'clips':>6} {'models':>6} {'pairs':>7} {'seconds':>8} {'us/pair':>8}")
    for c, m in [(450, 10), (900, 20), (1800, 10), (450, 40), (1800, 20), (n_clips, n_models)]:
        sub = restrict(full, c, m)
        t = time_best(lambda: mine(sub, PANEL), args.repeat)
        print(f"{c:>6} {m:>6} {c * m:>7} {t:>8.2f} {1e6 * t / (c * m):>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
