"""`asraudit wer`: WER of prediction files, per model, with intervals."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from asraudit.commands.common import add_preds_argument, load_predictions_with_warnings
from asraudit.data.paths import ensure_writable_file
from asraudit.data.predictions import PredictionSet
from asraudit.metrics.model_wer import ModelWER, NormalizedCache, score_model
from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, paired_bootstrap
from asraudit.report.alignment_view import alignment_lines
from asraudit.report.tables import fmt_interval, fmt_rate, render_table
from asraudit.text.align import align
from asraudit.text.normalize import NORMALIZERS, get_normalizer


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "wer",
        help="WER per model from prediction files",
        description="WER, S/D/I, transcript precision and a clip-bootstrap 95%% interval per model.",
    )
    add_preds_argument(p)
    p.add_argument("--normalizer", choices=NORMALIZERS, default="whisper")
    p.add_argument("--common", action="store_true",
                   help="score every model on the clips all models ran (fair comparison)")
    p.add_argument("--json", type=Path, metavar="OUT", help="write the scores as JSON")
    p.add_argument("--show-alignments", type=int, default=0, metavar="N",
                   help="print the N worst clips of each model aligned word by word")
    p.add_argument("--paired", action="store_true",
                   help="print P(row model has lower WER than column model), paired clip bootstrap")
    p.add_argument("--bootstrap", type=int, default=DEFAULT_BOOTSTRAP, metavar="B",
                   help="bootstrap resamples (default %(default)s)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.json:
        ensure_writable_file(args.json, "--json")  # before the table is printed, not after
    pset = load_predictions_with_warnings(args.preds)
    normalize = NormalizedCache(get_normalizer(args.normalizer))
    common = pset.common_clip_ids() if args.common else None
    results = {
        m: score_model(p, normalize, clip_ids=common, n_boot=args.bootstrap, seed=args.seed)
        for m, p in pset.models.items()
    }
    _print_table(pset, results, args.normalizer)
    if args.paired:
        _print_paired(pset, results, normalize, args)
    if args.show_alignments > 0:
        _print_alignments(pset, results, normalize, args.show_alignments)
    if args.json:
        _write_json(args.json, pset, results, args.normalizer)
    return 0


def _print_table(pset: PredictionSet, results: dict[str, ModelWER], normalizer: str) -> None:
    coverage = pset.coverage()
    rows = []
    empty: set[str] = set()
    for m, r in results.items():
        s = r.score
        ran, total = coverage[m]
        rows.append([
            m, fmt_rate(s.rate), fmt_interval(s.interval.low, s.interval.high),
            s.substitutions, s.deletions, s.insertions, s.ref_units,
            fmt_rate(s.precision), s.clips, f"{ran}/{total}",
        ])
        empty.update(r.empty_reference_clips)
    if empty:
        shown = ", ".join(sorted(empty)[:5]) + (" ..." if len(empty) > 5 else "")
        print(f"asraudit: warning: {len(empty)} clip(s) have an empty normalized reference and are left "
              f"out of WER: {shown}", file=sys.stderr)
    sys.stderr.flush()
    render_table(
        ["model", "WER", "95% CI", "S", "D", "I", "ref words", "precision", "scored", "ran"],
        rows,
        title=f"WER ({normalizer} normalizer, clip bootstrap)",
    )


def _print_paired(pset, results, normalize, args) -> None:
    models = list(results)
    common = pset.common_clip_ids()
    per = {m: score_model(pset.models[m], normalize, clip_ids=common, n_boot=0) for m in models}
    ids = set(per[models[0]].clip_ids) if models else set()
    for m in models:
        ids &= set(per[m].clip_ids)
    order = [c for c in common if c in ids]
    arrays = {}
    for m in models:
        by_id = dict(zip(per[m].clip_ids, per[m].score.per_clip))
        arrays[m] = ([by_id[c].errors for c in order], [by_id[c].ref_words for c in order])
    rows = []
    for a in models:
        row = [a]
        for b in models:
            if a == b:
                row.append("-")
            else:
                p = paired_bootstrap(arrays[a][0], arrays[b][0], arrays[a][1], n_boot=args.bootstrap, seed=args.seed)
                row.append(f"{p:.3f}")
        rows.append(row)
    render_table(["P(row < col)"] + models, rows, title=f"Paired bootstrap on {len(order)} common clips")


def _print_alignments(pset, results, normalize, n: int) -> None:
    for m, r in results.items():
        ranked = sorted(
            zip(r.clip_ids, r.score.per_clip),
            key=lambda item: (-item[1].wer, -item[1].errors, item[0]),
        )
        print(f"\n== {m}: {min(n, len(ranked))} worst clips ==")
        for cid, counts in ranked[:n]:
            p = pset.models[m].rows[cid]
            al = align(normalize(p.reference).split(), normalize(p.hypothesis).split())
            print(f"\nclip {cid}  WER {fmt_rate(counts.wer)}  "
                  f"(S {counts.substitutions}, D {counts.deletions}, I {counts.insertions}, N {counts.ref_words})")
            for line in alignment_lines(al):
                print(line)


def _write_json(path: Path, pset: PredictionSet, results: dict[str, ModelWER], normalizer: str) -> None:
    models = {}
    for m, r in results.items():
        s = r.score
        models[m] = {
            "wer": s.rate,
            "substitutions": s.substitutions,
            "deletions": s.deletions,
            "insertions": s.insertions,
            "ref_words": s.ref_units,
            "clips": s.clips,
            "ci_low": s.interval.low,
            "ci_high": s.interval.high,
            "precision": s.precision,
            "clips_ran": pset.coverage()[m][0],
        }
    payload = {"normalizer": normalizer, "models": models}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, allow_nan=True) + "\n", encoding="utf-8")
