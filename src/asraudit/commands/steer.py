"""`asraudit steer learn|induce|ablate`: steering directions in a white-box model's encoder.

Any model with ``intervention_sites()`` takes part (Whisper, and the other
white-box families ``asraudit models`` lists); seconds map to its encoder
frames through the model's ``frame_geometry``.


* ``learn``: a diff-in-means direction (and its rank-k basis) at one encoder
  layer from paired inputs: a corpus and either a second corpus matched by
  clip id or a condition applied to each clip (``--negative silence``).
  Saved as safetensors with its provenance.
* ``induce``: add the direction with scale alpha; ``ablate``: project its
  rank-k subspace out.  Each runs the baseline, the intervention and a
  random control of equal norm (or rank) over a corpus through the result
  store, and prints the readout table: transcripts changed, WER, and, with
  a panel of prediction files, accept-ref with Wilson intervals and the
  change relative to the baseline.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Sequence

import numpy as np

from asraudit.commands.common import (OneInput, at_least, ensure_outside_prediction_folders, finite_number,
                                      frames_option, integer, model_names, prediction_inputs, resample_count)
from asraudit.commands.transcribe import add_dataset_arguments, open_corpus
from asraudit.data.corpus import load_other_corpus
from asraudit.data.paths import (ensure_outputs_apart, ensure_outputs_apart_from_audio, ensure_writable_file,
                                 output_file, write_text_whole)
from asraudit.data.predictions import load_predictions, prediction_files
from asraudit.errors import InputError
from asraudit.mechanism.experiment import (Variant, VariantReadout, check_frames_reach, check_one_window,
                                          check_source_reaches, parse_audio_source, readout, run_variants,
                                          stored_transcripts)
from asraudit.mechanism.steering import (Direction, alpha_label, check_addable, check_encoder_direction, check_fits,
                                        check_learning_lengths, learn_direction, refuse_repeated)
from asraudit.models.weights_digest import refuse_outputs_in_model_folders
from asraudit.models.whitebox.frames import Frames
from asraudit.report.tables import fmt_interval, fmt_rate, render_table
from asraudit.run.store import STORE_NAME, ResultStore
from asraudit.text.normalize import NORMALIZERS

# What steering's --frames takes: no "changed", which needs a patch's source.
STEER_FRAMES = frames_option("all", "audio", "span")


# -- shared by steer and patch -----------------------------------------------------------


def add_model_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default="whisper-tiny.en", metavar="NAME|DIR",
                   help="embedded model (whisper-tiny.en, whisper-base), a CTranslate2 Whisper directory, a "
                        "converted transformers Whisper directory, or hf:<dir> of another white-box family "
                        "(Moonshine, Qwen2-Audio, Parakeet, ...; see `asraudit models`) (default %(default)s)")
    p.add_argument("--device", default="cpu", help="cpu (default), cuda, ...")
    p.add_argument("--batch-size", type=integer, default=8, metavar="N", help="clips per model call (default %(default)s)")
    p.add_argument("--corpus", required=True, metavar="PATH", action=OneInput,
                   help="a manifest (JSONL/CSV/Parquet with audio_filepath, text), a folder of audio, a saved dataset "
                        "folder, or hf:NAME")
    add_dataset_arguments(p)
    p.add_argument("--limit", type=at_least(1), metavar="N", help="use only the first N clips of the corpus")


def add_experiment_arguments(p: argparse.ArgumentParser) -> None:
    add_model_arguments(p)
    p.add_argument("--store", type=output_file, default=Path(STORE_NAME), metavar="PATH",
                   help="result store; finished variants are never recomputed (default ./%(default)s)")
    p.add_argument("--preds", nargs="+", metavar="PATH",
                   help="prediction files of a model panel (a folder or files): enables the accept-ref readout")
    p.add_argument("--panel", metavar="A,B,C", type=model_names,
                   help="panel models among --preds (default: all of them)")
    p.add_argument("--normalizer", choices=NORMALIZERS, default="whisper",
                   help="text normalizer for WER and edits (default %(default)s)")
    p.add_argument("--n-boot", type=resample_count, default=1000, metavar="N", help="bootstrap resamples for WER (default %(default)s)")
    p.add_argument("--json", type=output_file, metavar="FILE", help="also write the readout as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def require_whitebox() -> None:
    missing = [m for m in ("torch", "transformers") if importlib.util.find_spec(m) is None]
    if missing:
        raise InputError(f"the white-box model needs {', '.join(missing)}: pip install 'asraudit[hf]'")


def load_whitebox(args: argparse.Namespace):
    """Any model with intervention sites: a Whisper (embedded, registered, or a directory) or,
    as ``hf:<dir>`` or a transformers folder, another white-box encoder-decoder family.  Every command
    loads it first, so the ``--json`` output is checked here, before it."""
    if getattr(args, "json", None):
        ensure_writable_file(args.json, "--json")
    require_whitebox()
    from asraudit.models.registry import load_model

    spec = args.model[len("whitebox:"):] if args.model.startswith("whitebox:") else args.model
    model = load_model(f"whitebox:{spec}", device=args.device, batch_size=args.batch_size)
    if not callable(getattr(model, "intervention_sites", None)):
        raise InputError(f"model {args.model!r} takes no interventions: use a white-box model "
                         "(an embedded Whisper, a Whisper directory, or hf:<dir> of a family `asraudit models` "
                         "lists with white-box sites)")
    return model


def check_layer_from_files(args: argparse.Namespace, stack: str) -> None:
    """``--layer`` against the layers ``stack`` (``encoder``/``decoder``) has by the model's files, before the corpus
    is read and the model loads, as an audit's ``[[mechanism]]`` layer is (``models.layer_counts``): it was checked
    against the loaded model, after minutes of converting a large Whisper (case 324).  A model whose files do not
    say is checked once loaded, as before."""
    if args.layer is None:
        return
    from asraudit.models.layer_counts import check_layers

    check_layers([(args.model.removeprefix("whitebox:"), stack, args.layer)], "--layer")


def check_outputs(args: argparse.Namespace, outputs, inputs=()) -> None:
    """The output files of ``steer`` and ``patch`` (``outputs``: (option, path) pairs, None: not given), before the
    corpus is read and the model loads: each writable, none an input (the corpus manifest, the ``--preds`` files,
    the command's own ``inputs``) nor another output's file, none in a ``--preds`` folder.  ``steer learn --out
    m.jsonl`` replaced the corpus manifest with the direction, ``--json`` named after ``--store`` replaced the
    store of every finished variant with the readout (``--direction``: the direction with it), exit 0 each.
    ``corpus_clips`` checks them against the corpus's audio files once it is read.  ``--batch-size`` is checked
    here too, the first thing every steer and patch command does."""
    # The executor's check came after the corpus was read and the model loaded, naming no option, and `learn`
    # (which does not batch) took `--batch-size -2` without a word (case 323; case 259 for the other commands).
    if args.batch_size < 1:
        raise InputError(f"--batch-size must be at least 1, got {args.batch_size}")
    outputs = [(what, path) for what, path in outputs if path is not None]
    for what, path in outputs:
        ensure_writable_file(path, what)
    corpus = Path(args.corpus)
    preds = prediction_files(args.preds) if getattr(args, "preds", None) else []
    named = [("the corpus manifest", corpus)] if corpus.is_file() else []
    ensure_outputs_apart(outputs, [*named, *[(what, path) for what, path in inputs if path is not None],
                                   *prediction_inputs(preds)])
    if preds:
        ensure_outside_prediction_folders(outputs, args.preds)
    refuse_outputs_in_model_folders([(f"--model {args.model}", args.model)], outputs, redo="every variant")
    args.experiment_outputs = outputs


def experiment_outputs(args: argparse.Namespace) -> list[tuple[str, Path | None]]:
    """``--json`` and ``--store`` of ``steer induce|ablate`` and ``patch``."""
    return [("--json", args.json), ("--store", args.store)]


def corpus_clips(args: argparse.Namespace):
    corpus = open_corpus(args)
    clips = list(corpus.clips)
    if args.limit is not None:
        clips = clips[: args.limit]
    if not clips:
        raise InputError("the corpus has no clips", args.corpus)
    ensure_outputs_apart_from_audio(getattr(args, "experiment_outputs", ()), corpus.clips)
    return clips


def parse_frames(text: str) -> Frames:
    try:
        return Frames.parse(text)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def readout_rows(readouts: Sequence[VariantReadout]) -> tuple[list[str], list[list[str]]]:
    """Columns and rows for ``render_table``."""
    baseline = next(r for r in readouts if r.role == "baseline")
    columns = ["variant", "role", "clips", "changed", "WER", "WER 95% CI", "accept-ref", "ref/eligible",
               "Wilson 95%", "Δ points", "Δ relative"]
    rows = []
    for r in readouts:
        change = r.relative_change(baseline)
        points = r.accept_difference(baseline)
        rows.append([
            r.label,
            r.role,
            r.n_clips,
            r.changed,
            "-" if r.wer is None else fmt_rate(r.wer.rate),
            "-" if r.wer is None else fmt_interval(r.wer.interval.low, r.wer.interval.high),
            "-" if r.accept is None else fmt_rate(r.accept.rate),
            "-" if r.accept is None else f"{r.accept.n_ref}/{r.accept.n_eligible}",
            "-" if r.accept is None else fmt_interval(r.accept.low, r.accept.high),
            "-" if r.role == "baseline" or points != points else f"{100 * points:+.1f}",
            "-" if r.role == "baseline" or change != change else f"{100 * change:+.1f}%",
        ])
    return columns, rows


def check_panel_covers(panel, panel_models: Sequence[str], clips) -> None:
    """Every panel member must have transcripts of some clip of the corpus, before any variant runs: prediction
    files of another corpus were refused only by the readout, after every variant had run (the message naming
    the variants as the models that had transcripts)."""
    panel.require_models(panel_models)
    ids = {c.id for c in clips}
    for name in panel_models:
        member = panel.models[name]
        if not ids & set(member.rows):
            example = next(iter(member.rows), None)
            raise InputError(f"--preds: panel model {name}'s prediction file has no clip of the corpus (its first: "
                             f"{example!r}; the corpus's first: {clips[0].id!r}): prediction files of another corpus, "
                             "or clip ids written differently?", member.source)


def load_panel(args: argparse.Namespace, clips):
    """``(panel, its models)`` of ``--preds``/``--panel`` (``(None, [])`` without), each member checked to cover the
    corpus; read before the model loads (``args.loaded_panel``): a damaged prediction file, a ``--panel`` model
    without a file or a panel of another corpus was refused only once the model had loaded (and, on a cold cache,
    been converted)."""
    if not args.preds:
        if args.panel:
            raise InputError("--panel needs --preds (the panel's prediction files)")
        return None, []
    panel = load_predictions(args.preds)
    panel_models = args.panel if args.panel else panel.model_names
    check_panel_covers(panel, panel_models, clips)
    args.loaded_panel = (panel, panel_models)
    return panel, panel_models


def run_experiment(args: argparse.Namespace, variants, clips, title: str, check_baseline=None) -> int:
    """Run every variant through the store, then print (and optionally save) the readout. ``check_baseline``,
    given the baseline's transcripts (clip id -> text) once it has run, checks what only they tell before the
    other variants run."""
    panel, panel_models = getattr(args, "loaded_panel", None) or load_panel(args, clips)
    with ResultStore(args.store) as store:
        if check_baseline is not None:
            baseline = next(v for v in variants if v.role == "baseline")
            run_variants(store, [baseline], clips, batch_size=args.batch_size, progress=not args.no_progress,
                         description=f"{title}: baseline")
            check_baseline(stored_transcripts(store, baseline, clips))
        run_variants(store, variants, clips, batch_size=args.batch_size, progress=not args.no_progress,
                     description=title)
        results = readout(store, variants, clips, panel=panel, panel_models=panel_models,
                          normalizer=args.normalizer, n_boot=args.n_boot)
    columns, rows = readout_rows(results)
    render_table(columns, rows, title=title)
    if panel is None:
        print("(no --preds: accept-ref needs a panel's prediction files to mine the reference errors)", file=sys.stderr)
    if args.json:
        baseline = next(r for r in results if r.role == "baseline")
        payload = {"experiment": title, "store": str(args.store), "panel": panel_models,
                   "variants": [r.to_json(baseline) for r in results]}
        write_text_whole(args.json, json.dumps(payload, indent=2) + "\n")
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


# -- steer --------------------------------------------------------------------------------


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "steer",
        help="learn a steering direction in a white-box model; induce (add) or ablate (project out) it",
        description="Steering directions at an encoder layer of a white-box model (Whisper, the other encoder-decoder "
                    "families, Qwen2-Audio and Granite-Speech, Parakeet), with random controls.",
    )
    actions = p.add_subparsers(dest="steer_action", metavar="ACTION", required=True)

    learn = actions.add_parser("learn", help="diff-in-means direction (+ rank-k basis) from paired inputs")
    add_model_arguments(learn)
    pairing = learn.add_mutually_exclusive_group(required=True)
    pairing.add_argument("--negative-corpus", metavar="PATH",
                         help="the negative member of each pair: a corpus with the same clip ids")
    pairing.add_argument("--negative", metavar="SOURCE",
                         help="the negative member made from each clip: silence, noise:SNR[:SEED], mask:T0-T1")
    learn.add_argument("--layer", type=integer, required=True, help="encoder layer (0-based; -1 is the last)")
    learn.add_argument("--rank", type=at_least(1), default=1, help="basis size (default 1: the diff-in-means direction)")
    learn.add_argument("--frames", type=STEER_FRAMES, default="audio",
                       help="frames pooled per input: audio (default), all, START-END")
    learn.add_argument("--description", default="", help="what the pairs are, kept in the file's provenance")
    learn.add_argument("--out", type=output_file, required=True, metavar="FILE", help="where to save (.safetensors)")
    learn.set_defaults(func=run_learn)

    induce = actions.add_parser("induce", help="add the direction with scale alpha; baseline and random control too")
    _add_apply_arguments(induce, "steered", "direction")
    induce.add_argument("--alpha", type=finite_number, action="append", metavar="A",
                        help="scale (repeat for several; default 1.0)")
    induce.set_defaults(func=run_induce)

    ablate = actions.add_parser("ablate", help="project the direction's rank-k subspace out; baseline and random control too")
    _add_apply_arguments(ablate, "ablated", "subspace")
    ablate.add_argument("--rank", type=at_least(1), action="append", metavar="K",
                        help="number of basis vectors to remove (repeat for several; default all)")
    ablate.set_defaults(func=run_ablate)


def _add_apply_arguments(p: argparse.ArgumentParser, verb: str, control: str) -> None:
    """What induce and ablate share: the experiment, the direction file, where it applies, the control's seed."""
    add_experiment_arguments(p)
    p.add_argument("--direction", type=Path, required=True, metavar="FILE")
    p.add_argument("--layer", type=integer, help="apply at this layer instead of the one it was learned at")
    p.add_argument("--frames", type=STEER_FRAMES, default="audio", help=f"frames {verb}: audio (default), all, START-END")
    p.add_argument("--control-seed", type=at_least(0), default=0, help=f"seed of the random control {control}")


def _pairs(args: argparse.Namespace, clips):
    if args.negative_corpus:
        negatives = load_other_corpus(args.negative_corpus, "--negative-corpus")
        ensure_outputs_apart_from_audio(getattr(args, "experiment_outputs", ()), negatives.clips)
        missing = [c.id for c in clips if c.id not in negatives]
        if missing:  # learned from the pairs it had, without a word, where patch --source corpus: refuses the same
            raise InputError(f"{len(missing)} of {len(clips)} clip(s) of --corpus have no negative with the same id "
                             f"(first: {missing[0]!r}); pairs are matched by clip id: give each clip its negative, "
                             "or leave those clips out of --corpus", args.negative_corpus)
        matched = [(c, negatives[c.id]) for c in clips]
        pairs = [(c.decode(), n.decode()) for c, n in matched]
        same = [c.id for (c, _), (a, b) in zip(matched, pairs) if np.array_equal(a, b)]
        if same:  # a pair of a clip with itself differs by nothing: it pulls the learned direction towards zero
            raise InputError(f"{len(same)} of {len(pairs)} pair(s) have a negative with the same samples as the clip "
                             f"(first: {same[0]!r}), which would pair the clip with itself: give a corpus of other "
                             "audio under the same clip ids", args.negative_corpus)
        return pairs, [c.id for c, _ in matched]
    source = parse_audio_source(args.negative)
    pairs = []
    for clip in clips:
        audio = clip.decode()
        pairs.append((audio, source(audio)))
    return pairs, [f"{c.id} vs {source.id}" for c in clips]


def run_learn(args: argparse.Namespace) -> int:
    negative = Path(args.negative_corpus) if args.negative_corpus else None
    check_outputs(args, [("--out", args.out)],
                  [("the --negative-corpus manifest", negative if negative and negative.is_file() else None)])
    check_layer_from_files(args, "encoder")
    clips = corpus_clips(args)
    if args.negative:  # its spelling and its span against the clips, before the model loads
        check_source_reaches(parse_audio_source(args.negative), args.negative, clips, "--negative")
    frames = parse_frames(args.frames)
    check_frames_reach(frames, args.frames, clips, "--frames")
    pairs, labels = _pairs(args, clips)
    if args.rank > len(pairs):  # found by the learning, after every pair's activations had been computed
        how = "one per clip with its id in --negative-corpus" if args.negative_corpus else "one per clip"
        raise InputError(f"--rank {args.rank}: a basis of rank {args.rank} needs at least {args.rank} learning pairs, "
                         f"and the corpus gives {len(pairs)} ({how}): lower --rank, or learn from more clips")
    from asraudit.models.layer_counts import window_seconds

    # the model's window from its files, before it loads (learn_direction checks the others once it has)
    check_learning_lengths(window_seconds(args.model.removeprefix("whitebox:")), pairs, labels, frames)
    model = load_whitebox(args)
    try:
        direction = learn_direction(model, pairs, args.layer, frames=frames, rank=args.rank, pair_labels=labels,
                                    description=args.description)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    path = direction.save(args.out)
    spread = ", ".join(f"{s:.3g}" for s in direction.singular_values)
    print(f"wrote {path}: {direction.id}, encoder layer {direction.layer}, rank {direction.rank}, "
          f"{len(pairs)} pair{'s' if len(pairs) != 1 else ''}, |mean difference| {direction.norm:.4g}, RMS difference per basis vector [{spread}]")
    return 0


def _direction_and_model(args: argparse.Namespace, add: bool = False):
    """The direction file (a damaged one refused before the model loads; to ``add``, a zero vector too), the corpus's
    clips and the frames (checked against the clips' lengths), and then the model, the direction checked against it
    (its layer, its width) before any variant runs. The corpus was read once the model had loaded."""
    check_outputs(args, experiment_outputs(args), [("--direction", args.direction)])
    check_layer_from_files(args, "encoder")
    if add:
        refuse_repeated("--alpha", args.alpha, alpha_label)
    else:
        refuse_repeated("--rank", args.rank)
    direction = Direction.load(args.direction)
    check_encoder_direction(direction, args.direction)
    if add:
        check_addable(direction, args.direction, args.alpha or [1.0])
    else:
        for rank in args.rank or []:
            if not 1 <= rank <= direction.rank:
                raise InputError(f"--rank {rank} outside 1..{direction.rank} (the direction's basis)", args.direction)
    frames = parse_frames(args.frames)
    clips = corpus_clips(args)
    check_frames_reach(frames, args.frames, clips, "--frames")
    load_panel(args, clips)
    model = load_whitebox(args)
    check_fits(direction, model, args.layer, args.direction)
    if frames.kind == "span":
        check_one_window(model, clips, f"--frames {args.frames!r}")
    return direction, model, frames, clips


def run_induce(args: argparse.Namespace) -> int:
    direction, model, frames, clips = _direction_and_model(args, add=True)
    from asraudit.models.whitebox.interventions import SteerAdd

    control = direction.random_control(args.control_seed)
    variants = [Variant("baseline", "baseline", model)]
    for alpha in args.alpha or [1.0]:
        label = f"add a={alpha_label(alpha)}"
        variants.append(Variant(label, "intervention",
                                model.variant(SteerAdd(direction=direction, alpha=alpha, layer=args.layer, frames=frames))))
        variants.append(Variant(f"random a={alpha_label(alpha)}", "control",
                                model.variant(SteerAdd(direction=control, alpha=alpha, layer=args.layer, frames=frames)),
                                control_of=label))
    title = f"steer induce {direction.id} (layer {args.layer if args.layer is not None else direction.layer}) on {getattr(model, 'name', model.model_id)}"
    return run_experiment(args, variants, clips, title)


def run_ablate(args: argparse.Namespace) -> int:
    direction, model, frames, clips = _direction_and_model(args)
    from asraudit.models.whitebox.interventions import SteerAblate

    control = direction.random_control(args.control_seed)
    variants = [Variant("baseline", "baseline", model)]
    for rank in args.rank or [direction.rank]:
        label = f"ablate k={rank}"
        variants.append(Variant(label, "intervention",
                                model.variant(SteerAblate(direction=direction, rank=rank, layer=args.layer, frames=frames))))
        variants.append(Variant(f"random k={rank}", "control",
                                model.variant(SteerAblate(direction=control, rank=rank, layer=args.layer, frames=frames)),
                                control_of=label))
    title = f"steer ablate {direction.id} (layer {args.layer if args.layer is not None else direction.layer}) on {getattr(model, 'name', model.model_id)}"
    return run_experiment(args, variants, clips, title)
