"""Corpus WER speed: asraudit against jiwer on the same normalized text.

The shared VoxPopuli-150 predictions are replicated to 150,000 clips with
fresh ids.  Both libraries score the same normalized strings, so the ratio
measures the scoring core (alignment + counting), which is what every probe
repeats.  Normalization is timed separately because it is shared work that
asraudit memoizes across models.

    .venv/bin/python benchmarks/wer_speed.py [--clips 150000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import jiwer

from asraudit.data.predictions import load_predictions
from asraudit.metrics.model_wer import NormalizedCache
from asraudit.metrics.wer import corpus_wer
from asraudit.text.normalize import get_normalizer

_HERE = Path(__file__).resolve()
SHARED = next((b / "reference" / "hume-voxpopuli-150" / "predictions" for b in (_HERE.parents[2] / "shared",
               _HERE.parents[3] / "shared") if (b / "reference").is_dir()), _HERE.parents[2] / "shared")


def best_of(fn, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preds", type=Path, default=SHARED)
    ap.add_argument("--model", default="whisper-tiny.en")
    ap.add_argument("--clips", type=int, default=150_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    preds = load_predictions(args.preds).models[args.model]
    normalize = NormalizedCache(get_normalizer("whisper"))
    base = [(normalize(p.reference), normalize(p.hypothesis)) for p in preds.rows.values()]
    base = [(r, h) for r, h in base if r]
    reps = -(-args.clips // len(base))
    # Ids only matter to loaders; for scoring, the replicated text pairs are the data.
    pairs = (base * reps)[: args.clips]
    refs = [r for r, _ in pairs]
    hyps = [h for _, h in pairs]
    words = sum(len(r.split()) for r in refs)
    print(f"{len(pairs):,} clips, {words:,} reference words ({args.model}, replicated from {len(base)} clips)")

    t_ours, ours = best_of(lambda: corpus_wer(refs, hyps, n_boot=0), args.repeats)
    t_jiwer, theirs = best_of(lambda: jiwer.process_words(refs, hyps), args.repeats)
    assert abs(ours.rate - theirs.wer) < 1e-9, (ours.rate, theirs.wer)
    print(f"asraudit corpus_wer : {t_ours:8.3f} s  ({len(pairs) / t_ours:,.0f} clips/s)  WER {ours.rate:.6f}")
    print(f"jiwer process_words : {t_jiwer:8.3f} s  ({len(pairs) / t_jiwer:,.0f} clips/s)  WER {theirs.wer:.6f}")
    print(f"speed-up over jiwer : {t_jiwer / t_ours:.2f}x (best of {args.repeats})")
    print(f"RATIO wer-scoring: jiwer {len(pairs) / t_jiwer:,.0f} clips/s, asraudit {len(pairs) / t_ours:,.0f} clips/s, "
          f"{t_jiwer / t_ours:.1f}x (same normalized text, equal WER)")

    t_boot, scored = best_of(lambda: corpus_wer(refs, hyps, n_boot=1000), 1)
    print(f"with 1000-resample clip bootstrap: {t_boot:.3f} s, 95% CI "
          f"[{scored.interval.low:.5f}, {scored.interval.high:.5f}]")

    fresh = get_normalizer("whisper")
    sample = [(p.reference, p.hypothesis) for p in preds.rows.values()] * 10

    def normalize_sample() -> None:
        for r, h in sample:
            fresh(r)
            fresh(h)

    t_norm, _ = best_of(normalize_sample, 2)
    per_clip = t_norm / len(sample)
    print(f"whisper normalization (no memo): {per_clip * 1e6:.0f} us per clip, both texts; "
          f"{per_clip * args.clips:.1f} s for {args.clips:,} distinct clips")

if __name__ == "__main__":
    main()
