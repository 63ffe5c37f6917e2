"""`asraudit battery --spec battery.toml`: re-run the probes under a list of conditions.

The clips are those that carry a mined edit (``--edits``, from ``asraudit
refdis --edits-out``) or a masked target (found as in ``asraudit mask``:
``--text-field``, ``--recipe`` or ``--align``).  ``--spec paper`` runs the
built-in battery (``asraudit/probes/data/battery_paper.toml``).  Every model
call goes through the result store, so conditions already run, and the
original condition of earlier ``transcribe``/``mask``/``lift`` runs, are free.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

from asraudit.report.summary import to_plain
from asraudit.arguments import number
from asraudit.commands.common import OneInput, load_corpus_edits, real
from asraudit.commands.mask import (TIMINGS_NAME, add_mask_arguments, build_items, clip_texts, mask_only_options_given,
                                    mask_params)
from asraudit.commands.transcribe import (STORE_NAME, add_grid_arguments, check_grid_outputs, executor_of, load_models,
                                          open_corpus)
from asraudit.data.paths import output_file, output_folder, write_text_whole
from asraudit.errors import InputError
from asraudit.models.candidate_check import score_window
from asraudit.probes.battery import (READOUTS, check_benchmark_donors, check_donor_seconds,
                                     check_outputs_apart_from_donors, check_probe_inputs, check_sources, load_spec)
from asraudit.probes.battery_run import (BatteryInputs, BatteryParams, check_clip_conditions, longer_splices,
                                        measure_battery, said_texts)
from asraudit.report.tables import render_table
from asraudit.terminal_text import note, one_line, warn
from asraudit.run.store import ResultStore
from asraudit.text.normalize import get_normalizer


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "battery",
        help="trigger battery: the probes re-run under noise, reverb, codecs, splices, re-voicing...",
        description="Apply each condition of a battery spec (TOML) to the clips carrying edits or masked targets, "
                    "re-run accept-ref, masked recovery and audio lift under each, and print per model the value "
                    "per condition, its change from the original and the difference in differences of each contrast.",
    )
    add_grid_arguments(p)
    p.add_argument("--spec", required=True, metavar="TOML|paper", help="battery spec file, or 'paper' (built in)")
    p.add_argument("--edits", type=Path, metavar="FILE", action=OneInput, help="edits JSONL from asraudit refdis (accept-ref, lift(r))")
    p.add_argument("--no-mask", action="store_true", help="no masked targets (only the edit probes)")
    p.add_argument("--min-ref-match", type=real, default=0.5,
                   help="share of the clip's reference a model must match to be eligible on its edits")
    add_mask_arguments(p)
    p.add_argument("--out", type=output_folder, required=True, metavar="DIR", help="folder for the store and the results")
    p.add_argument("--json", type=output_file, metavar="FILE", help="write the readout as JSON")
    p.set_defaults(func=run, no_control=True)


def _value(v) -> str:
    if v is None or v.n == 0 or v.estimate != v.estimate:
        return "-"
    return f"{v.estimate:+.3f} [{v.low:+.3f}, {v.high:+.3f}]" if v.low == v.low else f"{v.estimate:+.3f}"


def _rate(v) -> str:
    if v is None or v.n == 0 or v.estimate != v.estimate:
        return "-"
    return f"{100 * v.estimate:.1f}% [{100 * v.low:.1f}, {100 * v.high:.1f}]"


def _delta_rate(v) -> str:
    if v is None or v.estimate != v.estimate:
        return "-"
    low = f"{100 * v.low:+.1f}" if v.low == v.low else "-"
    high = f"{100 * v.high:+.1f}" if v.high == v.high else "-"
    return f"{100 * v.estimate:+.1f} pts [{low}, {high}]"


def print_result(result, file=None) -> None:
    for readout, kind in READOUTS.items():
        rows = [r for r in result.rows if r.readout == readout]
        if not rows:
            continue
        fmt, dfmt = (_rate, _delta_rate) if kind == "rate" else (_value, _value)
        render_table(["model", "condition", readout + " [95% CI]", "n", "Δ vs original [95% CI]"],
                     [[r.model, r.condition, fmt(r.value), r.value.n, dfmt(r.delta) if r.delta else "-"]
                      for r in rows],
                     title=f"battery {result.spec.name}: {readout}", file=file)
    if result.contrasts:
        render_table(["model", "readout", "contrast", "Δ(treatment) − Δ(control) [95% CI]", "n paired"],
                     [[c.model, c.readout, c.contrast,
                       (_delta_rate if READOUTS[c.readout] == "rate" else _value)(c.did), c.did.n]
                      for c in result.contrasts],
                     title="difference in differences (paired clip bootstrap)", file=file)
    for line in result.notes:
        print(one_line(f"note: {line}"), file=file)


def run(args: argparse.Namespace) -> int:
    spec = load_spec(args.spec)
    if args.no_lift:  # `--no-lift` (shared with `mask`) was accepted and the spec's lift readouts scored anyway
        if set(spec.probes) == {"lift"}:
            raise InputError("--no-lift leaves none of the spec's probes (probes = [\"lift\"]): the battery would "
                             "measure nothing: drop --no-lift, or add accept-ref or recovery to probes", spec.source)
        spec = replace(spec, probes=tuple(p for p in spec.probes if p != "lift"))
    if args.no_mask and (ignored := mask_only_options_given(args)):  # accepted and never read before
        raise InputError(f"--no-mask finds no masked targets, so {', '.join(ignored)} would not be used: "
                         f"drop --no-mask to probe masked targets, or drop {', '.join(ignored)}")
    check_probe_inputs(spec, no_edits=None if args.edits else "no --edits is given",
                       no_targets="--no-mask leaves no masked targets" if args.no_mask else None)
    number(args.min_ref_match, "--min-ref-match", 0.0, 1.0)  # NaN passes every comparison
    if not args.no_mask:
        mask_params(args)  # the mask options checked before the corpus is read and anything is aligned
    check_grid_outputs(args, store=args.store or args.out / STORE_NAME, folders=[("--out", args.out)],
                       files=[("--json", args.json)] + ([] if args.no_mask else [
                           ("--timings", args.timings or args.out / TIMINGS_NAME)]),
                       inputs=[("--edits", args.edits), ("--recipe", args.recipe),
                               ("--spec", Path(args.spec) if Path(args.spec).is_file() else None)])
    # Donor corpora and TTS voices, before the corpus is read and any model loads; after the options' own checks,
    # so a bad option reads the same line on a machine without a TTS engine as on one with it.
    check_sources(spec)
    check_outputs_apart_from_donors(spec, args.grid_outputs)  # a donor corpus is an input the spec names
    corpus = open_corpus(args)
    normalize = get_normalizer(args.normalizer)
    edits = []
    if args.edits:
        edits, _ = load_corpus_edits(args.edits, corpus, normalize)
        if args.limit:
            keep = {c.id for c in list(corpus)[: args.limit]}
            edits = [e for e in edits if e.clip_id in keep]
    said = said_texts(corpus, clip_texts(corpus, args.text_field, reference_column=args.text_column)
                      if args.text_field else None, edits)
    check_benchmark_donors(spec, corpus, said)  # before the aligner and the models run
    check_donor_seconds(spec, corpus, said, {e.clip_id for e in edits} if args.no_mask else None)
    texts = clip_texts(corpus, args.text_field, args.limit, reference_column=args.text_column)
    items, timings = ([], {}) if args.no_mask else build_items(args, corpus, texts, args.out)
    if not edits and not items:
        raise InputError("nothing to probe: give --edits FILE and/or clips with masked targets", corpus.source)
    print(one_line(f"battery {spec.name}: {len(spec.conditions)} condition(s), probes {', '.join(spec.probes)}; "
                   f"{len(edits)} edit(s), {len(items)} masked target(s)"), file=sys.stderr)
    inputs = BatteryInputs(corpus, edits, items, texts, said, timings)
    check_clip_conditions(spec, inputs)  # a re-voiced NUL, babble short of donors with sound: before models load
    for line in longer_splices(spec, inputs, score_window(args.model)):  # from the headers, before any model loads
        warn(f"battery: {line}")
    with ResultStore(args.store or args.out / STORE_NAME) as store:
        models = load_models(args)
        result = measure_battery(
            store, executor_of(args), models, inputs, normalize, BatteryParams(spec=str(args.spec)),
            min_ref_match=args.min_ref_match, n_boot=args.bootstrap, seed=args.seed,
            on_condition=lambda name: note(f"battery condition {name}"), window=score_window(args.model, models),
            spec=spec, checked=True,
        )
    print_result(result)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        write_text_whole(args.json, json.dumps(to_plain(result.to_json()), indent=1, allow_nan=False))  # NaN: null
    return 0

