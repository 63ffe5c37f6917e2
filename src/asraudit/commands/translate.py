"""`asraudit translate`: the translation probe (is content a transcript dropped still there in another language?).

Each model transcribes the clips that carry a span the record drops or
invents, and renders them in the target language (a multilingual Whisper
with the target's language token forced, a speech LLM by a translation
prompt; see ``asraudit.models.target_language``); the bilingual lexicon says
whether a rendering holds the span.  Spans come from a truth file of planted
errors (``--truth``) or from mined edits (``--edits``, from ``asraudit refdis
--edits-out``).  Both passes go through the result store, so a rerun is free.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path

from asraudit.commands.common import OneInput, at_least, check_resampling, integer, load_corpus_edits, real
from asraudit.commands.mask import print_jobs
from asraudit.commands.transcribe import (STORE_NAME, add_grid_arguments, check_grid_outputs, executor_of,
                                         model_factories, open_corpus)
from asraudit.commands.transcribe import parse_options
from asraudit.data.paths import output_file, write_lines_whole, write_text_whole
from asraudit.errors import InputError
from asraudit.models.registry import load_model
from asraudit.models.target_language import prompt_use, renderer_options
from asraudit.probes.translation_probe import (TranslationParams, clusters_of, items_from_edits, items_from_truth,
                                               measure_translation, read_truth, truth_outside)
from asraudit.report.summary import to_plain
from asraudit.report.tables import fmt_interval, fmt_rate, render_table
from asraudit.terminal_text import one_line, warn
from asraudit.run.store import ResultStore
from asraudit.text.basic_language_codes import language_code
from asraudit.text.normalize import NORMALIZERS, get_normalizer


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "translate",
        help="translation probe: does a span the transcript dropped (or invented) appear when the model renders "
             "the clip in another language?",
        description="Transcribe and render in --target every clip with a planted (--truth) or mined (--edits) span; "
                    "count the renderings that hold the span, by whether the transcript held it.",
    )
    add_grid_arguments(p)
    spans = p.add_mutually_exclusive_group(required=True)
    spans.add_argument("--truth", type=Path, metavar="FILE", help='planted spans: JSON, clip -> {"edits": [...]}')
    spans.add_argument("--edits", type=Path, metavar="FILE", action=OneInput, help="mined edits JSONL from asraudit refdis --edits-out")
    p.add_argument("--target", default=TranslationParams.target, help="language to render in (default %(default)s)")
    p.add_argument("--lexicon", type=Path, metavar="FILE", help="lexicon TOML (default: the built-in one of --target)")
    p.add_argument("--prompt", help="a speech LLM's translation prompt with {audio} and {language}")
    p.add_argument("--max-english-overlap", type=real, default=TranslationParams.max_english_overlap, metavar="X",
                   help="a rendering sharing this share of its words with the English transcript is left out as "
                        "untranslated (default %(default)s)")
    p.add_argument("--max-clips", type=at_least(1), metavar="N", help="render at most N clips (a seeded sample)")
    p.add_argument("--cluster-field", metavar="FIELD",
                   help="a manifest field whose clips are not independent (e.g. sentence): the Wilson intervals count "
                        "its values, not clips, as the sample size")
    p.add_argument("--normalizer", choices=NORMALIZERS, default="whisper",
                   help="English normalizer for spans and transcripts (default whisper)")
    p.add_argument("--out", type=output_file, required=True, metavar="FILE", help="per-span outcomes JSONL")
    p.add_argument("--json", type=output_file, metavar="FILE", help="write the summary cells as JSON")
    p.add_argument("--seed", type=integer, default=0)
    p.set_defaults(func=run)


def _params(args: argparse.Namespace) -> TranslationParams:
    if not 0.0 <= args.max_english_overlap <= 1.0:
        raise InputError(f"--max-english-overlap must be in [0, 1], got {args.max_english_overlap}")
    return TranslationParams(target=args.target, lexicon=args.lexicon, truth=args.truth,
                             max_english_overlap=args.max_english_overlap, prompt=args.prompt,
                             max_clips=args.max_clips, cluster_field=args.cluster_field)


def _check_transcript_language(options: dict, spoken: str, target: str) -> None:
    """``--option language=X`` asks every model for its transcript in X, and the probe compares each transcript
    with the span in the language the spans are spoken in (the lexicon's source): ``language=es`` (read as the way
    to ask for Spanish) made every transcript the rendering, all "untranslated"; ``language=fr`` a French
    transcript, in which no English span was ever "contained"."""
    language = options.get("language")
    if language is None or language_code(language) == spoken:
        return
    also = (f"; --target {target} asks for the renderings in {target}, the transcripts stay in {spoken}"
            if language_code(language) == target else "")
    raise InputError(f"--option language={language} asks the models for transcripts in {language}, and the probe "
                     f"reads each transcript for a span spoken in {spoken} (the lexicon's source): leave the option "
                     f"out, or give language={spoken}{also}")


def run(args: argparse.Namespace) -> int:
    check_resampling(args)
    params = _params(args)
    # a broken lexicon or truth file fails before any model loads, as does a span two entries give
    lexicon = params.validate()
    lexicon.keyed(get_normalizer(args.normalizer))
    _check_transcript_language(parse_options(args.option), lexicon.source, params.target)
    check_grid_outputs(args, store=args.store or args.out.parent / STORE_NAME,
                       files=[("--out", args.out), ("--json", args.json)],
                       inputs=[("--truth", args.truth), ("--edits", args.edits), ("--lexicon", args.lexicon)])
    corpus = open_corpus(args)
    normalize = get_normalizer(args.normalizer)
    references = {c.id: c.reference for c in corpus if c.reference is not None}
    if args.truth:
        truth = read_truth(args.truth)
        outside = truth_outside(truth, (c.id for c in corpus), args.truth)
        if outside:  # as --edits on such clips are (load_corpus_edits)
            warn(outside)
        items = items_from_truth(truth, references, normalize, str(args.truth))
    else:
        items = items_from_edits(load_corpus_edits(args.edits, corpus, normalize)[0])
    if not items:
        raise InputError("no dropped or invented spans on the corpus's clips", args.truth or args.edits)
    if params.cluster_field is not None:  # a clip without the field stopped the run once the models had loaded
        spanned = {i.clip_id for i in items}
        clusters_of([c for c in corpus if c.id in spanned], params.cluster_field)
    options = parse_options(args.option)
    loaded = [f() for f in model_factories(args)]
    extras = [renderer_options(model, options, params.target, params.prompt) for model in loaded]
    # a prompt only a speech LLM reads: refused before any model runs when none does, a line when some do not
    unread = prompt_use(dict(zip(args.model, loaded)), params.target, params.prompt, "--prompt")
    if unread is not None:
        warn(unread)
    renderers = []
    for spec, extra in zip(args.model, extras):
        factory = functools.partial(load_model, spec, device=args.device, compute_type=args.compute_type, **extra)
        renderers.append(factory() if args.executor == "local" else factory)
    transcribers = loaded if args.executor == "local" else model_factories(args)
    with ResultStore(args.store or args.out.parent / STORE_NAME) as store:
        result = measure_translation(store, executor_of(args), transcribers, renderers, corpus.clips, items, normalize,
                                     params, seed=args.seed, description=f"translate {args.corpus}")
        print_jobs(result.jobs, labels=("transcribe", f"render {params.target}"))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_lines_whole(args.out, (json.dumps(o.to_json(), ensure_ascii=False) for o in result.outcomes))
    print(one_line(f"spans: {len(result.items)} on {len({i.clip_id for i in result.items})} clip(s); lexicon "
                   f"{result.lexicon}"))
    rows = [[c.model, c.kind, c.transcript, f"{c.k}/{c.n}", fmt_rate(c.k / c.n if c.n else float("nan"), 1),
             fmt_interval(c.interval.low, c.interval.high, 1) if c.n else "-"] for c in result.cells]
    method = f"Wilson, n = {params.cluster_field} values" if params.cluster_field else "Wilson over clips"
    render_table(["model", "span", "transcript", "in rendering", "rate", f"95% CI ({method})"], rows,
                 title=f"span rendered in {params.target}, by whether the transcript held it")
    for model, counts in result.excluded.items():
        print(one_line(f"{model}: " + ", ".join(f"{status} {n}" for status, n in counts.items())), file=sys.stderr)
    print(f"wrote {args.out} ({len(result.outcomes)} row(s))")
    if args.json:
        payload = {"target": result.target, "lexicon": result.lexicon, "excluded": result.excluded,
                   "cells": [{"model": c.model, "kind": c.kind, "transcript": c.transcript, "k": c.k, "n": c.n,
                              "rate": c.k / c.n if c.n else None, "interval": c.interval.to_json()}
                             for c in result.cells]}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        write_text_whole(args.json, json.dumps(to_plain(payload), indent=1, allow_nan=False))
    return 0
