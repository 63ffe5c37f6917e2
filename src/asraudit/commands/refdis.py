"""`asraudit refdis`: reference-error mining, accept-ref and what the errors cost."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from asraudit.bulk import cycle_collector_paused
from asraudit.commands.common import (check_resampling, ensure_outside_prediction_folders, integer,
                                      load_predictions_with_warnings, model_names, prediction_inputs, real)
from asraudit.data.paths import (ensure_outputs_apart, ensure_writable_file, output_file, write_text_whole,
                                  written_whole)
from asraudit.data.predictions import (ClipIds, PredictionSet, no_shared_clips, prediction_files, space_twin,
                                       space_twin_words)
from asraudit.errors import InputError
from asraudit.metrics.defaults import DEFAULT_BOOTSTRAP
from asraudit.metrics.normalized_cache import NormalizedCache
from asraudit.probes.refdis_params import MinerParams, distinct_panel
from asraudit.report.tables import fmt_interval, fmt_rate, render_table
from asraudit.terminal_text import one_line, warn
from asraudit.text.normalize import NORMALIZERS, get_normalizer

# The full miner, its scoring and the summary serializer are imported where they run (``_run_full``,
# ``_print_review``): they load numpy and the report layer, which ``--compat hume`` never uses and would pay
# for in start-up CPU on every run.

_DEFAULTS = MinerParams()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "refdis",
        help="mine reference errors with a model panel; accept-ref per model",
        description=(
            "Where a supermajority of a panel of models makes the same edit to the reference, the "
            "reference is taken to be wrong there. Each model is then scored on those edits: accept-ref "
            "is the share where it wrote the reference's error instead of the audio."
        ),
    )
    p.add_argument("--preds", nargs="+", metavar="PATH",
                   help="a directory of prediction files (model = file stem) or the files themselves")
    p.add_argument("--panel", type=model_names,
                   help="comma-separated panel models (choose them independently of the models under test)")
    p.add_argument("--models", type=model_names, help="comma-separated models to score (default: every model)")
    p.add_argument("--compat", choices=["hume"],
                   help="reproduce the paper's released implementation exactly (its JSON layout with --json)")
    p.add_argument("--normalizer", choices=NORMALIZERS, default=None,
                   help="text normalizer for the full miner (default whisper; --compat hume always uses its own, and "
                        "refuses this option)")
    p.add_argument("--majority", type=real, default=_DEFAULTS.majority,
                   help="share of the panel that must make the same edit (default %(default)s)")
    p.add_argument("--min-run-len", type=integer, default=_DEFAULTS.min_run_len,
                   help="shortest edit, in reference tokens (inserted tokens for insertions; default %(default)s)")
    # One or the other: given both, argparse's last one won, with no word (case 247).
    where = p.add_mutually_exclusive_group()
    where.add_argument("--include-middle", dest="include_middle", action="store_const", const=True, default=None,
                       help="also mine edits inside the reference (default for the full miner; off for --compat hume)")
    where.add_argument("--boundary-only", dest="include_middle", action="store_const", const=False,
                       help="only edits touching the start or end of the reference (the paper's view)")
    p.add_argument("--min-ref-match", type=real, default=_DEFAULTS.min_ref_match,
                   help="share of reference tokens a model must match to be eligible on a clip (default %(default)s)")
    p.add_argument("--min-consensus-cer", type=real, default=_DEFAULTS.min_consensus_cer,
                   help="drop substitutions closer than this character distance to the reference (default %(default)s)")
    p.add_argument("--min-panel", type=integer, default=_DEFAULTS.min_panel,
                   help="eligible panel members a clip needs (default %(default)s)")
    p.add_argument("--no-leave-one-out", action="store_true",
                   help="judge panel members by edits their own vote helped mine (not recommended)")
    p.add_argument("--corrected", type=Path, metavar="FILE",
                   help="human-corrected references (clip id + text): edits come from diffing them, no panel")
    p.add_argument("--edits-out", type=output_file, metavar="FILE", help="write every edit as JSONL")
    p.add_argument("--corrected-out", type=output_file, metavar="FILE",
                   help="write the corrected benchmark (mined edits applied) as JSONL")
    p.add_argument("--review-sheet", type=output_file, metavar="FILE", help="write a CSV sheet for human review of the edits")
    p.add_argument("--review", type=Path, metavar="FILE", help="read a filled review sheet; report the miner's precision")
    p.add_argument("--json", type=output_file, metavar="OUT", help="write the results as JSON")
    p.add_argument("--bootstrap", type=integer, default=None, metavar="B",
                   help=f"bootstrap resamples for the WER intervals (default {DEFAULT_BOOTSTRAP}; not with --compat "
                        "hume, whose intervals are Wilson's)")
    p.add_argument("--cluster-bootstrap", action="store_true",
                   help="add a clip-clustered bootstrap interval to accept-ref (edits in one clip are not independent)")
    p.add_argument("--seed", type=integer, default=0)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # The whole command with the cycle collector paused (``bulk``): its stages build their data paused anyway,
    # and between them the collector's first pass would walk every object they built (tens of milliseconds
    # at leaderboard scale, twice).  Resumed once ``_run``'s data is freed, with nothing left to walk.
    with cycle_collector_paused():
        return _run(args)


def _unread_by_hume(normalizer: str | None, bootstrap: int | None) -> None:
    """Options ``--compat hume`` never reads, given by the user with another value than one that changes nothing
    (the default; ``--bootstrap 0``, no resamples): it normalizes as the paper's release does and gives Wilson
    intervals, so ``--normalizer basic`` mined under the release's Whisper normalizer, and ``--bootstrap 5000``
    drew nothing, without a word."""
    given = [f"{flag} {value}" for flag, value, unread in (("--normalizer", normalizer, normalizer != "whisper"),
                                                           ("--bootstrap", bootstrap,
                                                            bootstrap not in (0, DEFAULT_BOOTSTRAP)))
             if value is not None and unread]
    if given:
        one = len(given) == 1
        raise InputError(f"{', '.join(given)}: --compat hume reproduces the paper's release, which normalizes with "
                         "its own Whisper English normalizer and gives Wilson intervals (no resamples), so "
                         f"{'this option is' if one else 'these options are'} not read: leave "
                         f"{'it' if one else 'them'} out, or drop --compat hume to use {'it' if one else 'them'}")


def _run(args: argparse.Namespace) -> int:
    given = args.normalizer, args.bootstrap  # None: not given (the defaults are filled in here)
    args.normalizer = args.normalizer if args.normalizer is not None else "whisper"
    args.bootstrap = args.bootstrap if args.bootstrap is not None else DEFAULT_BOOTSTRAP
    check_resampling(args)
    if args.compat == "hume":
        _unread_by_hume(*given)
        if args.review and args.preds:  # its precision was printed under the compat run's table, whatever it found
            raise InputError("--review reads a sheet of the full miner's edits (written by --review-sheet), which "
                             "--compat hume does not mine, so the sheet's precision would be printed as this run's: "
                             "read it beside the run without --compat hume, or alone (refdis --review FILE)")
    outputs = (("--edits-out", args.edits_out), ("--corrected-out", args.corrected_out),
               ("--review-sheet", args.review_sheet), ("--json", args.json))
    for flag, path in outputs:
        if path is not None:
            ensure_writable_file(path, flag)
    panel = args.panel
    if panel:
        panel = distinct_panel(panel)  # before any file is read
    files = prediction_files(args.preds) if args.preds else []
    ensure_outputs_apart(outputs, [*prediction_inputs(files), ("--corrected", args.corrected),
                                   ("--review", args.review)])
    ensure_outside_prediction_folders(outputs, args.preds)
    if not args.preds:
        if args.review:
            named = [flag for flag, path in outputs if path is not None]
            if named:  # they were silently not written
                raise InputError(f"{', '.join(named)} need --preds: --review alone only prints the miner's precision")
            _print_review(args.review)
            return 0
        raise InputError("--preds is required (only --review can run without it)")
    pset = load_predictions_with_warnings(files)
    pset.require_some_rows(pset.model_names)
    if panel:
        pset.require_models(panel)
        panel = pset.models_with_rows(panel)  # an empty file (warned about above) casts no vote
    models = args.models
    if models:
        pset.require_models(models)
    if panel and not args.corrected:  # --corrected takes its edits from the correction, not a vote
        pset.require_shared_clips(panel, models or pset.model_names)
    if args.compat == "hume":
        return _run_hume(args, pset, panel, models)
    return _run_full(args, pset, panel, models)


# ------------------------------------------------------------------ compat


def _run_hume(args, pset: PredictionSet, panel, models) -> int:
    from asraudit.probes.refdis_compat import HumeParams
    from asraudit.probes.refdis_compat_run import run_hume

    unsupported = [flag for flag, value in (
        ("--corrected", args.corrected), ("--corrected-out", args.corrected_out),
        ("--review-sheet", args.review_sheet), ("--cluster-bootstrap", args.cluster_bootstrap),
        ("--no-leave-one-out", args.no_leave_one_out),
    ) if value]
    if unsupported:
        raise InputError(f"{', '.join(unsupported)} not available with --compat hume")
    if not panel:
        raise InputError("--panel is required with --compat hume")
    params = HumeParams(
        majority=args.majority, min_run_len=args.min_run_len, include_middle=bool(args.include_middle),
        min_ref_match=args.min_ref_match, min_consensus_cer=args.min_consensus_cer, min_panel=args.min_panel,
    )
    scored = models or pset.model_names
    _warn_overlap(panel, scored, "--compat hume judges them by their own vote, as the release does")
    result = run_hume(pset, panel, params, models=models)
    kinds = Counter((e.kind, e.position) for e in result.edits)
    print(one_line(f"clips: {result.n_clips}   panel: {', '.join(panel)} ({len(panel)})   "
                   f"reference errors found: {len(result.edits)}"))
    print("edits: " + ", ".join(f"{k} {p} {n}" for (k, p), n in sorted(kinds.items())) if kinds else "edits: none")
    rows = [
        [m, f"{s['rate']:.3f}", f"[{s['lo']:.3f}, {s['hi']:.3f}]", s["n_ref"], s["n_eligible"]]
        for m, s in result.accept_ref.items()
    ]
    render_table(["model", "accept-ref", "95% CI (Wilson)", "n_ref", "n_eligible"], rows,
                 title="accept-ref (--compat hume)")
    if args.edits_out:
        _write_jsonl(args.edits_out, (e.to_json() for e in result.edits))
    if args.json:
        _write_json(args.json, result.to_json())  # the paper's released layout, NaN and all, on purpose
    return 0


# -------------------------------------------------------------------- full


def _run_full(args, pset: PredictionSet, panel, models) -> int:
    from asraudit.blas_threads import import_numpy_single_threaded

    import_numpy_single_threaded()  # no OpenBLAS thread pool spinning at start-up (blas_threads.py)
    from asraudit.probes.corrected import load_corrected_references, write_corrected_benchmark
    from asraudit.probes.refdis import prepare_clips
    from asraudit.probes.refdis_probe import measure_refdis
    from asraudit.probes.refdis import plain_edit
    from asraudit.plain_json import to_plain

    params = MinerParams(
        majority=args.majority, min_run_len=args.min_run_len,
        include_middle=_DEFAULTS.include_middle if args.include_middle is None else args.include_middle,
        min_ref_match=args.min_ref_match, min_consensus_cer=args.min_consensus_cer,
        min_panel=args.min_panel, leave_one_out=not args.no_leave_one_out,
    )
    params.validate()
    normalize = NormalizedCache(get_normalizer(args.normalizer))
    scored = models or pset.model_names
    corrected_tokens = None
    if args.corrected:
        raw = load_corrected_references(args.corrected, args.normalizer, normalize)
        known = set(pset.clip_ids())
        unknown = [cid for cid in raw if cid not in known]
        if raw and len(unknown) == len(raw) and known:  # ids spelled otherwise: no reference would be corrected
            first = next(p for p in pset.models.values() if len(p))
            raise no_shared_clips((first.source, next(iter(first.rows))), (args.corrected, unknown[0]), "--corrected",
                                  f"{args.corrected.name} corrects no clip the models ran",
                                  twin=space_twin(ClipIds.of(first.rows), ClipIds.of(raw)))
        if unknown:
            twin = next(filter(None, (space_twin(ClipIds.of(p.rows), ClipIds.of(unknown)) for p in pset.models.values())),
                        None)
            why = (f": {space_twin_words('the predictions', twin[0], args.corrected, twin[1])}" if twin else
                   f", e.g. {unknown[0]!r}")
            warn(f"{len(unknown)} corrected clip(s) not in the predictions{why}")
        corrected_tokens = {cid: tuple(normalize(text).split()) for cid, text in raw.items()}
        clips = prepare_clips(pset, normalize, scored)
        if panel:
            warn("--panel is ignored with --corrected (edits come from the correction)")
    else:
        if not panel:
            raise InputError("--panel is required (or --corrected FILE, or --compat hume with --panel)")
        pset.require_models(panel)
        how = "each is scored leave-one-out, by edits mined without it" if params.leave_one_out else \
            "--no-leave-one-out judges them by edits their own vote helped mine"
        _warn_overlap(panel, scored, how)
        clips = prepare_clips(pset, normalize, list(dict.fromkeys(panel + scored)))
    sys.stderr.flush()

    measured = measure_refdis(clips, panel or [], params, scored=scored, corrections=corrected_tokens,
                              n_boot=args.bootstrap, accept_ref_boot=args.bootstrap if args.cluster_bootstrap else 0,
                              seed=args.seed, ran_nothing=[m for m in scored if not len(pset.models[m])])
    result, scores, by_kind, by_position = measured.mining, measured.accept_ref, measured.by_kind, measured.by_position
    fixed, cost = measured.corrected, measured.cost

    _print_summary(result, panel if not args.corrected else None)
    _print_scores(scores, cost, args.cluster_bootstrap)
    from asraudit.probes.refdis import KINDS, POSITIONS

    _print_breakdown("accept-ref by kind", by_kind, KINDS)
    _print_breakdown("accept-ref by position", by_position, POSITIONS)

    if args.edits_out:
        _write_jsonl(args.edits_out, (e.to_json() for e in result.edits))
    if args.corrected_out:
        raw_refs = pset.references()
        changed = write_corrected_benchmark(args.corrected_out, result, fixed, raw_refs,
                                            normalizer=args.normalizer)
        print(f"wrote {args.corrected_out} ({len(result.refs)} clips, {changed} corrected)", file=sys.stderr)
    if args.review_sheet:
        from asraudit.probes.review import write_review_sheet

        n = write_review_sheet(args.review_sheet, result.edits, result.refs)
        print(f"wrote {args.review_sheet} ({n} edits to review)", file=sys.stderr)
    if args.json:
        # NaN (a rate over no edits) as null, as in summary.json: the one serializer's rule
        payload = _full_json(result, scores, by_kind, by_position, cost, args)
        edits = payload.pop("edits")
        payload = to_plain(payload)
        payload["edits"] = [plain_edit(e) for e in edits]  # last, as before
        _write_json(args.json, payload)
    if args.review:
        _print_review(args.review, result.edits)
    return 0


def _warn_overlap(panel, scored, how: str) -> None:
    both = [m for m in scored if m in set(panel)]
    if both:
        warn(f"panel member(s) {', '.join(both)} are also under test; {how}")


def _print_summary(result, panel) -> None:
    from asraudit.probes.refdis import KINDS, POSITIONS

    s = result.status
    detail = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in s.items() if v)
    print(f"clips: {result.n_clips} ({detail})")
    if panel:
        print(one_line(f"panel: {', '.join(panel)} ({len(panel)})   majority {result.params.majority}, "
                       f"{'interior edits on' if result.params.include_middle else 'boundary edits only'}"))
    full = [e for e in result.edits if e.in_full_panel]
    extra = len(result.edits) - len(full)
    line = f"edits: {len(full)}" + (" by the whole panel" if panel else " from the correction")
    if extra:
        line += f", {extra} more by a panel without one member (scored for that member only)"
    print(line)
    counts = Counter((e.kind, e.position) for e in full)
    rows = [[k] + [counts.get((k, p), 0) for p in POSITIONS] + [sum(counts.get((k, p), 0) for p in POSITIONS)]
            for k in KINDS]
    render_table(["kind", *POSITIONS, "total"], rows, title="edits by kind and position")


def _print_scores(scores: dict, cost, with_boot: bool) -> None:
    columns = ["model", "accept-ref", "95% CI (Wilson)"]
    if with_boot:
        columns.append("95% CI (clip bootstrap)")
    columns += ["n_ref", "n_eligible", "other", "WER orig", "WER corrected", "WER gained", "gained 95% CI"]
    rows = []
    for m, s in scores.items():
        row = [m, fmt_rate(s.rate), fmt_interval(s.low, s.high) if s.n_eligible else "-"]
        if with_boot:
            row.append(fmt_interval(s.boot_low, s.boot_high) if s.boot_low is not None else "-")
        c = cost[m]
        row += [s.n_ref, s.n_eligible, s.n_other, fmt_rate(c.original.estimate), fmt_rate(c.corrected.estimate),
                fmt_rate(c.gained.estimate), fmt_interval(c.gained.low, c.gained.high)]
        rows.append(row)
    render_table(columns, rows, title="accept-ref = ref / (ref + audio); WER gained = WER had it followed the audio - WER")


def _print_breakdown(title: str, table: dict[str, dict], groups) -> None:
    models = list(next(iter(table.values())).keys()) if table else []
    rows = []
    for m in models:
        row = [m]
        for g in groups:
            s = table[g][m]
            row.append(f"{fmt_rate(s.rate, 1)} ({s.n_ref}/{s.n_eligible})" if s.n_eligible else "-")
        rows.append(row)
    render_table(["model", *groups], rows, title=title)


def _print_review(path: Path, edits=None) -> None:
    """The miner's precision from a filled sheet; with this run's ``edits``, over the sheet's judgements of
    them, and the judged rows of another run's edits named and left out."""
    from asraudit.probes.review import judgements_of, read_review_sheet

    summary = read_review_sheet(path)
    against = ""
    if edits is not None:
        summary, foreign = judgements_of(summary, edits)
        if foreign:
            warn(f"{path}: {len(foreign)} judged edit(s) are not edits of this run (first: {foreign[0]!r}): the sheet "
                 "was written for another run (other files or settings); they are left out of the precision")
        against = f" against this run's {len(edits)} edits"
    low, high = summary.interval
    print(one_line(f"review {path}{against}: {summary.n_judged} judged ({summary.n_skipped} skipped), miner "
                   f"precision {fmt_rate(summary.precision)} {fmt_interval(low, high)} (Wilson 95%)"))
    for kind, (genuine, false) in sorted(summary.by_kind.items()):
        print("  " + one_line(f"{kind}: {genuine} real / {genuine + false}"))


def _full_json(result, scores, by_kind, by_position, cost, args) -> dict:
    p = result.params
    return {
        "n_clips": result.n_clips,
        "clip_status": result.status,
        "panel": result.panel,
        "models": result.models,
        "normalizer": args.normalizer,
        "source": "corrected" if args.corrected else "panel",
        "params": {
            "majority": p.majority, "min_run_len": p.min_run_len, "include_middle": p.include_middle,
            "min_ref_match": p.min_ref_match, "min_consensus_cer": p.min_consensus_cer,
            "min_panel": p.min_panel, "leave_one_out": p.leave_one_out,
        },
        "n_edits": len(result.edits),
        "n_edits_full_panel": len(result.full_panel_edits()),
        "accept_ref": {m: s.to_json() for m, s in scores.items()},
        "accept_ref_by_kind": {g: {m: s.to_json() for m, s in t.items()} for g, t in by_kind.items()},
        "accept_ref_by_position": {g: {m: s.to_json() for m, s in t.items()} for g, t in by_position.items()},
        "wer_cost": {m: c.to_json() for m, c in cost.items()},
        "edits": [e.to_json() for e in result.edits],
    }


def _write_json(path: Path, payload: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_whole(path, _dumps(payload) + "\n")
    print(f"wrote {path}", file=sys.stderr)


def _dumps(payload: dict) -> str:
    """The payload indented, except each edit of its last key ``edits`` on one line.

    The edits are most of the file (tens of thousands at leaderboard scale),
    and json's indenting encoder is pure Python, several times slower than
    the compact one; the content is the same JSON either way."""
    keys = list(payload)
    if not keys or keys[-1] != "edits" or not isinstance(payload["edits"], list) or not payload["edits"]:
        return json.dumps(payload, indent=2, ensure_ascii=False, allow_nan=True)
    head = json.dumps({k: payload[k] for k in keys[:-1]}, indent=2, ensure_ascii=False, allow_nan=True)
    encode = json.JSONEncoder(ensure_ascii=False, allow_nan=True).encode  # json.dumps's encoder, made once
    rows = ",\n    ".join(map(encode, payload["edits"]))
    return (head[:-2] + ",\n" if len(keys) > 1 else "{\n") + f'  "edits": [\n    {rows}\n  ]\n}}'


def _write_jsonl(path: Path, rows) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with written_whole(path) as tmp, tmp.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    print(f"wrote {path} ({n} edits)", file=sys.stderr)
