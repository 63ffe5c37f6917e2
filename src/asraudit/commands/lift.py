"""`asraudit lift`: audio lift of the reference and of the audio rendering at every mined edit.

λ(r) = (log p(r | x) − log p(r | x_∅)) / chars(r): how much the clip's audio,
over silence of the same length, raised the likelihood of the reference's
words at the edit; λ(a) the same for what the panel says was spoken.  Edits
come from ``asraudit refdis --edits-out``; models must expose likelihoods.
Scores are kept in the result store, so a rerun is free.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from asraudit.report.summary import to_plain
from asraudit.commands.common import OneInput, check_candidates_fit, check_resampling, integer, load_corpus_edits
from asraudit.commands.mask import print_jobs
from asraudit.commands.transcribe import (STORE_NAME, add_grid_arguments, check_grid_outputs, executor_of, load_models,
                                          open_corpus)
from asraudit.data.paths import output_file, write_lines_whole, write_text_whole
from asraudit.errors import InputError
from asraudit.metrics.stats import DEFAULT_BOOTSTRAP
from asraudit.models.candidate_check import score_window
from asraudit.probes.lift_probe import measure_lift
from asraudit.probes.lift_run import refuse_silent_clips
from asraudit.report.tables import render_table
from asraudit.run.store import ResultStore
from asraudit.terminal_text import warn
from asraudit.text.normalize import NORMALIZERS, get_normalizer


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "lift",
        help="audio lift λ(r) and λ(a) at mined edits (does the audio or the prior write the reference?)",
        description="Teacher-force the reference and the reference with each edit applied, under the clip and "
                    "under silence; λ = log-likelihood gain per character. Edits from `asraudit refdis --edits-out`.",
    )
    add_grid_arguments(p)
    p.add_argument("--edits", type=Path, required=True, metavar="FILE", action=OneInput, help="edits JSONL from asraudit refdis")
    p.add_argument("--normalizer", choices=NORMALIZERS, default="whisper",
                   help="the normalizer refdis mined with (edits index its tokens; default whisper)")
    p.add_argument("--out", type=output_file, required=True, metavar="FILE", help="per-edit lift JSONL")
    p.add_argument("--json", type=output_file, metavar="FILE", help="write the summary as JSON")
    p.add_argument("--bootstrap", type=integer, default=DEFAULT_BOOTSTRAP, metavar="B", help="bootstrap resamples")
    p.add_argument("--seed", type=integer, default=0)
    p.set_defaults(func=run)


def _cell(s) -> str:
    if s.n == 0:
        return "-"
    return f"{s.mean:+.3f} [{s.interval.low:+.3f}, {s.interval.high:+.3f}]"


def _share(s) -> str:
    return "-" if s.n == 0 else f"{100 * s.share_positive:.0f}%"


def run(args: argparse.Namespace) -> int:
    check_resampling(args)
    check_grid_outputs(args, store=args.store or args.out.parent / STORE_NAME,
                       files=[("--out", args.out), ("--json", args.json)], inputs=[("--edits", args.edits)])
    corpus = open_corpus(args)
    normalize = get_normalizer(args.normalizer)
    items, outside = load_corpus_edits(args.edits, corpus, normalize)
    if not items and outside:  # "no edits in the file" said of a file that held some
        raise InputError(f"none of its {len(outside)} edit(s) is on a clip of the corpus (e.g. {outside[0]!r}): "
                         "edits and corpus of different benchmarks, or clip ids written differently?", args.edits)
    if not items:
        raise InputError("no edits in the file", args.edits)
    window = score_window(args.model)
    long_clips = window.too_long(c for c in corpus if c.id in {i.clip_id for i in items}) if window else {}
    if long_clips and all(i.clip_id in long_clips for i in items):  # said before any model loads
        raise InputError(f"none of its {len(items)} edit(s) can be scored: they are on {window.reason(long_clips)}",
                         args.edits)
    forced: dict[str, tuple[str, str, object, None]] = {}  # each text lift forces, checked before any model loads
    for i in items:
        if i.clip_id not in long_clips:
            forced.setdefault(" ".join(i.ref), (" ".join(i.ref), f"the reference of clip {i.clip_id!r} (normalized, "
                                                "as lift forces it)", args.edits, None))
            text = " ".join(i.audio_tokens)
            forced.setdefault(text, (text, f"edit {i.edit_id!r} applied to its reference", args.edits, None))
    check_candidates_fit(args.model, list(forced.values()))
    refuse_silent_clips(corpus.clips, [i for i in items if i.clip_id not in long_clips])
    with ResultStore(args.store or args.out.parent / STORE_NAME) as store:
        models = load_models(args)
        window = score_window(args.model, models)  # a loaded model's own window, now it is known
        measured = measure_lift(store, executor_of(args), models, corpus.clips, items,
                                n_boot=args.bootstrap, seed=args.seed, description=f"lift {args.edits}",
                                window=window)
        if (note := measured.left_out_note(window)) is not None:
            warn(note)
        print_jobs([measured.jobs], labels=("score",))
    rows, overall, by_kind = measured.values, measured.overall, measured.by_kind
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_lines_whole(args.out, (json.dumps(row.to_json(), ensure_ascii=False) for row in rows))
    scored = measured.items
    print(f"edits: {len(scored)} in {len({i.clip_id for i in scored})} clip(s)")
    table = []
    for rep in sorted(overall + by_kind, key=lambda r: (r.model, r.group != "all", r.group)):
        table.append([rep.model, rep.group, rep.lift_r.n, _cell(rep.lift_r), _share(rep.lift_r),
                      rep.lift_a.n, _cell(rep.lift_a), _share(rep.lift_a)])
    render_table(["model", "edits", "n r", "λ(r) [95% CI]", "λ(r)>0", "n a", "λ(a) [95% CI]", "λ(a)>0"], table,
                 title="audio lift per character (nats; > 0: the audio raised it over silence)")
    print(f"wrote {args.out} ({len(rows)} row(s))")
    if args.json:
        def js(s):
            return {"n": s.n, "mean": s.mean, "mean_interval": s.interval.to_json(),
                    "share_positive": s.share_positive}

        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = [{"model": r.model, "group": r.group, "lift_r": js(r.lift_r), "lift_a": js(r.lift_a)}
                   for r in overall + by_kind]
        write_text_whole(args.json, json.dumps(to_plain(payload), indent=1, allow_nan=False))  # NaN as null
    return 0
