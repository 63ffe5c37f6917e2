"""`asraudit mask`: masked-entity recovery and the hidden word's audio lift.

Targets (numbers by default) are found in what each clip says
(``--text-field``, default the reference), timed by a recipe file or a
forced aligner, hidden by a span mask, and every model transcribes the
clip clean, masked, and with a control word masked; models with likelihoods
also teacher-force the hidden text under the masked, clean and silent clip.
All model calls go through the result store (``<out>/asraudit.sqlite``) and
aligned timings through ``<out>/word_timings.jsonl``, so a rerun recomputes
nothing.  Writes ``<out>/mask_recipe.jsonl`` (the targets, in the paper's
mask format, reusable with ``--recipe``) and ``<out>/mask_outcomes.jsonl``
(one row per model and target).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from asraudit.audio.timing import TimingCache, align_clips, timing_agreement
from asraudit.data.paths import output_file, output_folder, write_lines_whole, write_text_whole
from asraudit.report.summary import to_plain
from asraudit.commands.common import OneInput, at_least, check_option_ranges, check_resampling, integer, real
from asraudit.commands.transcribe import (STORE_NAME, add_grid_arguments, check_grid_outputs, executor_of,
                                          load_models, open_corpus)
from asraudit.data.mask_recipe import RecipeRow, write_recipe
from asraudit.errors import InputError
from asraudit.metrics.stats import DEFAULT_BOOTSTRAP
from asraudit.models.aligners import make_aligner
from asraudit.models.candidate_check import score_window
from asraudit.probes.masked_probe import MaskedParams, measure_masked, plan_masked, refuse_silent_targets
from asraudit.report.tables import fmt_interval, fmt_rate, render_table
from asraudit.terminal_text import note, warn
from asraudit.run.store import ResultStore
from asraudit.text.normalize import NORMALIZERS, get_normalizer

TIMINGS_NAME = "word_timings.jsonl"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "mask",
        help="masked-entity recovery: hide numbers (or names, or listed words) and see if models still write them",
        description="Hide target words with a span mask and measure how often each model still writes them "
                    "(recovery, with a masked control word as the base rate), and the hidden word's audio lift "
                    "under the mask. Results are stored, so reruns are free.",
    )
    add_grid_arguments(p)
    add_mask_arguments(p)
    p.add_argument("--out", type=output_folder, required=True, metavar="DIR", help="folder for the store, recipe and outcomes")
    p.add_argument("--json", type=output_file, metavar="FILE", help="write the summary as JSON")
    p.set_defaults(func=run)


def add_mask_arguments(p: argparse.ArgumentParser) -> None:
    """Options shared with `asraudit battery`: where targets come from and how they are hidden."""
    p.add_argument("--text-field", metavar="FIELD",
                   help="manifest field holding what was said (e.g. spoken); default: the reference text")
    p.add_argument("--recipe", type=Path, metavar="FILE", action=OneInput,
                   help="targets from a recipe (clip, t0, t1, hidden word; JSONL/CSV/Parquet) instead of aligning")
    p.add_argument("--align", default="pocketsphinx", metavar="SPEC",
                   help="aligner for word timings: pocketsphinx (default) or a Whisper model (whisper-tiny.en, "
                        "ct2:<dir>) for cross-attention alignment")
    p.add_argument("--timings", type=output_file, metavar="FILE", help=f"word-timing cache (default <out>/{TIMINGS_NAME})")
    p.add_argument("--compare-aligner", metavar="SPEC",
                   help="also align with this aligner and print the timing agreement of the two")
    p.add_argument("--targets", choices=("numbers", "names", "listed"), default="numbers",
                   help="which words to hide (default numbers)")
    p.add_argument("--words", metavar="W1,W2", help="the words to hide with --targets listed")
    p.add_argument("--keep-trivial", action="store_true",
                   help="also hide targets a language prior could guess (repeated words, idioms, parts of numbers)")
    p.add_argument("--fill", choices=("silence", "noise"), default="silence", help="what replaces the word")
    p.add_argument("--attenuation-db", type=real, default=20.0, help="noise fill level below the clip RMS")
    p.add_argument("--pad", type=real, default=0.02, help="seconds added to each side of the span")
    p.add_argument("--guard", type=real, default=0.05,
                   help="seconds beyond the span that may be touched at most (neighbouring words never are)")
    p.add_argument("--no-control", action="store_true", help="skip the masked control word")
    p.add_argument("--no-lift", action="store_true", help="skip teacher-forced lift (transcription only)")
    p.add_argument("--limit", type=at_least(1), metavar="N", help="only the first N clips of the corpus")
    p.add_argument("--normalizer", choices=NORMALIZERS, default="whisper", help="text normalizer for scoring words")
    p.add_argument("--bootstrap", type=integer, default=DEFAULT_BOOTSTRAP, metavar="B", help="bootstrap resamples")
    p.add_argument("--seed", type=integer, default=0)


# The options of `add_mask_arguments` that only finding and hiding masked targets reads (`--text-field`,
# `--limit`, `--normalizer`, `--bootstrap` and `--seed` are read by the battery's edit probes too).
MASK_ONLY_OPTIONS = {"recipe": "--recipe", "align": "--align", "timings": "--timings",
                     "compare_aligner": "--compare-aligner", "targets": "--targets", "words": "--words",
                     "keep_trivial": "--keep-trivial", "fill": "--fill", "attenuation_db": "--attenuation-db",
                     "pad": "--pad", "guard": "--guard"}


# The options that find and time targets: a recipe gives both (its rows name the targets and their spans).
RECIPE_REPLACES = {"targets": "--targets", "words": "--words", "keep_trivial": "--keep-trivial", "align": "--align",
                   "timings": "--timings", "compare_aligner": "--compare-aligner"}


def mask_only_options_given(args: argparse.Namespace, options: dict[str, str] = MASK_ONLY_OPTIONS) -> list[str]:
    """The mask-only options (of ``options``) whose value is not their default (given on the command line), in
    help order."""
    defaults = argparse.ArgumentParser(add_help=False)
    add_mask_arguments(defaults)
    default = defaults.parse_args([])
    return [flag for dest, flag in options.items()
            if getattr(args, dest, None) != getattr(default, dest)]


def _not_a_text(clip_id: str, field: str, value, metadata) -> str:
    """What is wrong with ``--text-field``'s ``field`` in a row (case 308): a field holding a number, a list or
    null was said to be missing ("has no text field 'n'"), sending the user to look for a field that is there."""
    if field not in metadata:
        return f"clip {clip_id!r} has no text field {field!r}"
    held = "null" if value is None else ("a number" if isinstance(value, (int, float)) and not isinstance(value, bool)
                                         else f"a {type(value).__name__}")
    return (f"clip {clip_id!r}: its field {field!r} (--text-field) holds {held}, {json.dumps(value, default=str)[:60]}, "
            "not a text: name the field that holds what the clip says")


def clip_texts(corpus, text_field: str | None, limit: int | None = None, *,
               reference_column: str | None = None) -> dict[str, str]:
    """clip id -> what the clip says (a manifest field, or the reference).  ``reference_column``: the column the
    corpus read its references from (``--text-column``, default ``text``); ``--text-field`` naming it reads the
    references (case 308: the loader keeps that column as the reference, so it was "has no text field 'text'")."""
    if text_field is not None and text_field == (reference_column or "text"):
        text_field = None
    out = {}
    for clip in list(corpus)[: limit if limit else None]:
        if text_field:
            value = clip.metadata.get(text_field)
            if not isinstance(value, str):
                raise InputError(_not_a_text(clip.id, text_field, value, clip.metadata), clip.source, clip.row)
        else:
            value = clip.reference
            if value is None:
                raise InputError(f"clip {clip.id!r} has no reference text to mask", clip.source, clip.row)
        out[clip.id] = value
    return out


def mask_params(args: argparse.Namespace) -> MaskedParams:
    """The probe's parameters from the command line (shared with `asraudit battery`)."""
    words = tuple(w.strip() for w in (args.words or "").split(",") if w.strip())
    if args.targets == "listed" and not words:
        raise InputError("--targets listed needs --words W1,W2,...")
    # Options another option makes unread were taken and never read (case 302): the run hid other words than asked.
    if args.recipe is not None:
        if unread := mask_only_options_given(args, RECIPE_REPLACES):
            raise InputError(f"--recipe gives the targets and their times, so {', '.join(unread)} would not be "
                             "used: leave them out, or leave --recipe out to find and time the targets")
    if words and args.targets != "listed":
        raise InputError(f"--words are hidden with --targets listed only, and --targets {args.targets} hides "
                         f"{args.targets}, so the words would not be used: give --targets listed, or leave --words out")
    params = MaskedParams(targets=args.targets, words=words, align=args.align, recipe=args.recipe, fill=args.fill,
                          attenuation_db=args.attenuation_db, pad=args.pad, guard=args.guard,
                          control=not getattr(args, "no_control", False), lift=not getattr(args, "no_lift", False),
                          skip_trivial=not args.keep_trivial)
    check_option_ranges(params, {"attenuation_db": "--attenuation-db", "pad": "--pad", "guard": "--guard"})
    return params


def build_items(args: argparse.Namespace, corpus, texts: dict[str, str], out_dir: Path):
    """Mask items from a recipe or from aligned timings; prints alignment failures and agreement."""
    params = mask_params(args)
    plan = plan_masked(corpus, texts, params, timings_cache=args.timings or out_dir / TIMINGS_NAME,
                       device=args.device, seed=args.seed)
    if plan.failures:
        warn(f"{len(plan.failures)} of {len(plan.wanted)} clip(s) could not be aligned with {args.align}, "
             f"e.g. {plan.failures[0].clip_id}: {plan.failures[0].reason}")
    if args.compare_aligner and not params.recipe:
        other = make_aligner(args.compare_aligner, device=args.device)
        cache = TimingCache(args.timings or out_dir / TIMINGS_NAME)
        second, _ = align_clips(other, [(cid, corpus[cid], plan.wanted[cid]) for cid in plan.timings], cache)
        agreement = timing_agreement((plan.timings[c], second[c]) for c in plan.timings if c in second)
        print_agreement(args.align, args.compare_aligner, agreement)
    return plan.items, plan.timings


def print_agreement(name_a: str, name_b: str, ag) -> None:
    rows = [[f"{name_a} vs {name_b}", ag.n_clips, ag.n_words, f"{ag.median_ms:.0f}", f"{ag.start_median_ms:.0f}",
             f"{ag.end_median_ms:.0f}", f"{ag.p90_ms:.0f}"]
            + [fmt_rate(ag.within[t], 1) for t in sorted(ag.within)] + [f"{ag.mean_overlap:.2f}"]]
    render_table(["aligners", "clips", "words", "median |Δ| ms", "start", "end", "p90 ms"]
                 + [f"≤{t} ms" for t in sorted(ag.within)] + ["mean IoU"], rows, title="word timing agreement")


def print_jobs(summaries, labels=("transcribe", "score"), file=None) -> None:
    """Per model and step: jobs run now and jobs found in the store."""
    for label, summary in zip(labels, summaries):
        for stats in summary.models:
            note(f"{stats.model_id}: {label}: {stats.jobs_run} job(s) run now, {stats.jobs_done_before} already "
                 "stored", file=file)


def _lift_cell(summary) -> str:
    if summary.n == 0:
        return "-"
    return f"{summary.mean:+.3f} [{summary.interval.low:+.3f}, {summary.interval.high:+.3f}]"


def print_summaries(summaries) -> None:
    rows = []
    for s in summaries:
        rows.append([s.model, s.n_targets, f"{fmt_rate(s.clean.rate, 1)} ({s.clean.k}/{s.clean.n})",
                     f"{fmt_rate(s.masked.rate, 1)} {fmt_interval(s.masked.low, s.masked.high, 1)}",
                     f"{fmt_rate(s.masked_if_clean.rate, 1)} ({s.masked_if_clean.k}/{s.masked_if_clean.n})",
                     f"{fmt_rate(s.control.rate, 1)} {fmt_interval(s.control.low, s.control.high, 1)}"
                     if s.control.n else "-",
                     _lift_cell(s.lift_masked), _lift_cell(s.lift_clean)])
    render_table(["model", "targets", "clean correct", "masked recovery [95% CI]", "… if clean",
                  "control recovery [95% CI]", "λ masked [95% CI]", "λ clean [95% CI]"], rows,
                 title="masked-entity recovery (λ: audio lift per character, nats)")


def run(args: argparse.Namespace) -> int:
    check_resampling(args)
    mask_params(args)  # every option checked before the corpus is read and anything is aligned
    check_grid_outputs(args, store=args.store or args.out / STORE_NAME, folders=[("--out", args.out)],
                       files=[("--json", args.json), ("--out's outcomes", args.out / "mask_outcomes.jsonl"),
                              ("--timings", args.timings or args.out / TIMINGS_NAME)],
                       inputs=[("--recipe", args.recipe)])
    corpus = open_corpus(args)
    texts = clip_texts(corpus, args.text_field, args.limit, reference_column=args.text_column)
    items, _ = build_items(args, corpus, texts, args.out)
    if not items:
        raise InputError(f"no {args.targets} targets found in the corpus (after skipping trivial ones)", corpus.source)
    refuse_silent_targets(corpus.clips, items)  # before any model loads
    write_recipe(args.out / "mask_recipe.jsonl",
                 (RecipeRow(i.clip_id, i.target.start, i.target.end, i.target.word, i.target.index, i.target.kind)
                  for i in items))
    normalize = get_normalizer(args.normalizer)
    with ResultStore(args.store or args.out / STORE_NAME) as store:
        models = load_models(args)
        window = score_window(args.model, models)
        result = measure_masked(store, executor_of(args), models, corpus.clips, items, normalize,
                                mask_params(args), n_boot=args.bootstrap, seed=args.seed,
                                description=f"mask {corpus.source}", window=window)
        if (line := result.left_out_note(window)) is not None:
            warn(line)
        print_jobs(result.jobs)
    outcomes, summary = result.outcomes, result.summaries
    write_lines_whole(args.out / "mask_outcomes.jsonl",
                      (json.dumps(o.to_json(), ensure_ascii=False) for o in outcomes))
    n_clips = len({i.clip_id for i in items})
    print(f"targets: {len(items)} {args.targets} in {n_clips} clip(s); mask fill {args.fill}")
    print_summaries(summary)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        # NaN (a rate over no targets) as null, as in summary.json: the one serializer's rule
        write_text_whole(args.json, json.dumps(to_plain({"targets": len(items), "clips": n_clips,
                                                         "models": [s.to_json() for s in summary]}), indent=1,
                                               allow_nan=False))
    return 0
