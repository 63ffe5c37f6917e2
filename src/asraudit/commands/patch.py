"""`asraudit patch`: activation patching and cross-attention masking on a white-box model (Whisper, the other
encoder-decoder families, Qwen2-Audio, Parakeet).

Patching replaces one layer's activations with those computed on a second
input made from each clip (``--source``: silence, noise, a masked span, or
one fixed clip), over chosen encoder frames or decoder positions.  Is the
behaviour written into the encoder's representation, or imposed by the
decoder?  ``--block-attention START-END`` adds variants in which the
decoder may not attend to that span: does the information survive
elsewhere?  Every variant runs through the result store next to the
baseline and a transparency control (patching from the clip itself, which
must change nothing), and the readout table compares them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from asraudit.audio.conditions import Original, SpanMask
from asraudit.commands.common import STRAY_UNDERSCORE, frames_option, integer, stray_underscore
from asraudit.commands.steer import (add_experiment_arguments, check_layer_from_files, check_outputs, corpus_clips,
                                     experiment_outputs, load_panel, load_whitebox, parse_frames, run_experiment)
from asraudit.data.corpus import load_other_corpus
from asraudit.data.paths import ensure_outputs_apart_from_audio
from asraudit.errors import InputError
from asraudit.mechanism.experiment import (Variant, check_frames_reach, check_one_window, check_source_reaches,
                                          parse_audio_source)
from asraudit.models.whitebox.frames import Frames, SourcesByAudio
from asraudit.terminal_text import warn

# The sites an activation patch can replace (interventions.PATCH_SITES; listed here so the CLI imports no torch).
PATCH_SITES = ("encoder", "decoder", "projector", "decoder-audio")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "patch",
        help="activation patching / cross-attention masking on a white-box model, with controls",
        description="Patch a layer's activations from a second input, or block cross-attention to a span, and "
                    "compare transcripts, WER and accept-ref with the baseline.",
    )
    add_experiment_arguments(p)
    p.add_argument("--source", metavar="SOURCE",
                   help="the input activations come from, made from each clip: silence, noise:SNR[:SEED], "
                        "mask:T0-T1 (that span silenced), audio:PATH (one fixed clip), or corpus:PATH (each "
                        "clip's own source: the clip with the same id in that corpus, e.g. re-voiced)")
    p.add_argument("--layer", type=integer, help="layer to patch (0-based; default -1, the last; not for --site projector)")
    p.add_argument("--site", choices=PATCH_SITES, default="encoder",
                   help="encoder layer output over --frames; decoder layer output at --positions; for speech LLMs "
                        "also projector (its output over --frames) and decoder-audio (an LM layer's output at the "
                        "prompt's audio positions over --frames)")
    p.add_argument("--frames", type=frames_option("all", "audio", "changed", "span"), metavar="FRAMES",
                   help="encoder frames or audio tokens (--site encoder, projector, decoder-audio): all (default), "
                        "audio, changed (where each clip's source differs from it), START-END in seconds")
    p.add_argument("--positions", default="", metavar="I,J,...",
                   help="decoder text positions (--site decoder; 0 = first text token; default every position)")
    p.add_argument("--block-attention", type=frames_option("span"), action="append", default=[], metavar="START-END",
                   help="add a variant whose decoder cannot attend to this span (seconds; repeatable)")
    p.set_defaults(func=run)


def _positions(text: str) -> tuple[int, ...]:
    if not text.strip():
        return ()
    stray = next((x for x in text.split(",") if stray_underscore(x)), None)
    if stray is not None:  # int() read "1_0" (a typo for "1,0") as position 10, without a word (case 336)
        raise InputError(f"--positions {text}: {stray.strip()!r} is not a position: {STRAY_UNDERSCORE} (a typo for "
                         "','?)")
    try:
        positions = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise InputError(f"--positions expects comma-separated integers, got {text!r}") from None
    if any(p < 0 for p in positions):
        raise InputError("--positions are text positions, 0 or more")
    # A position given twice is patched once, and the table's label said "at 1,1": a typo for another position
    # (1,2) went unseen, as a value given twice to --alpha or --block-attention is refused (refuse_repeated).
    twice = next((p for i, p in enumerate(positions) if p in positions[:i]), None)
    if twice is not None:
        raise InputError(f"--positions {text}: position {twice} is given twice: each position is patched once, so "
                         "the list names fewer positions than it seems (a typo for another?): give each once")
    return positions


def _check_where(args: argparse.Namespace) -> tuple[int, ...]:
    """The patch's place options, before anything loads: ``--positions`` places a decoder patch and ``--frames``
    the others, and a patch ignored the one its site does not read (``--positions 3`` without ``--site decoder``
    patched every encoder frame, the table saying nothing of it); the projector has no layers; and without
    ``--source`` there is no patch to place (``--block-attention`` blocks every layer's cross-attention)."""
    positions = _positions(args.positions)
    if not args.source:
        given = [name for name, value in (("--layer", args.layer is not None), ("--positions", bool(positions)),
                                          ("--frames", args.frames is not None)) if value]
        if given:
            raise InputError(f"{given[0]} places an activation patch, and there is none: give --source (the input "
                             "the patch takes its activations from); --block-attention takes its span alone (it "
                             "blocks the cross-attention of every decoder layer)")
    elif positions and args.site != "decoder":
        raise InputError(f"--positions {args.positions}: decoder text positions place a patch of --site decoder, "
                         f"not --site {args.site} (placed by --frames): give --site decoder, or leave --positions out")
    elif args.layer is not None and args.site == "projector":
        raise InputError(f"--layer {args.layer}: the projector is one module, not a stack of layers, so a patch of "
                         "--site projector has no layer: leave --layer out, or give --site decoder-audio (an LM "
                         "layer's output at the audio positions)")
    elif args.frames is not None and args.site == "decoder":
        raise InputError(f"--frames {args.frames}: a patch of --site decoder is placed by --positions (decoder text "
                         "positions), not by audio frames: give --positions, or another --site")
    return positions


def _check_positions_fit(positions: tuple[int, ...], model) -> None:
    """A position the decoder never reaches: ``max_new_tokens`` tokens are generated at most, and the last of them
    is never fed back, so positions from ``max_new_tokens - 1`` on are never computed (checked once the model has
    loaded, before any variant runs)."""
    limit = getattr(model, "max_new_tokens", None)
    if positions and limit is not None and max(positions) >= limit - 1:
        raise InputError(f"--positions {','.join(map(str, positions))}: position {max(positions)} is never decoded: "
                         f"{getattr(model, 'name', None) or model.model_id} writes at most {limit} tokens, so its text "
                         f"positions are 0..{limit - 2}: give positions inside a transcript")


def _positions_reached(positions: tuple[int, ...], model, clips):
    """After the baseline ran: a decoder patch at positions past every clip's baseline transcript acts on nothing
    (the patched run is the baseline until its first patched position, so it ends where the baseline did), and the
    table reported an intervention that changed no transcript. Clips whose transcript ends before every position
    are named in a warning: the patch leaves them as they are."""
    first = min(positions)

    def check(transcripts: dict[str, str]) -> None:
        lengths = {c.id: len(model.text_token_ids(transcripts[c.id])) for c in clips if c.id in transcripts}
        if not lengths:
            return
        longest = max(lengths, key=lengths.get)
        given = ",".join(map(str, positions))
        if first >= lengths[longest]:
            raise InputError(f"--positions {given}: the longest baseline transcript (clip {longest!r}) has "
                             f"{lengths[longest]} tokens, text positions 0..{lengths[longest] - 1}: the decoder patch "
                             "would act at no position of any clip and change nothing: give positions inside the "
                             "transcripts")
        short = [cid for cid, n in lengths.items() if n <= first]
        if short:
            warn(f"--positions {given}: {len(short)} of {len(lengths)} clip(s) have a baseline transcript that ends "
                 f"before position {first} (first: {short[0]!r}, {lengths[short[0]]} tokens): the patch leaves those "
                 "transcripts as they are")

    return check


def _per_clip_sources(spec: str, clips, outputs=()):
    """Each clip's source: the clip with the same id in another corpus (looked up by audio at run time)."""
    path = spec.split(":", 1)[1]
    others = load_other_corpus(path, f"--source {spec}")
    ensure_outputs_apart_from_audio(outputs, others.clips)  # a source clip's audio is an input too
    missing = [c.id for c in clips if c.id not in others]
    if missing:
        raise InputError(f"{len(missing)} clip(s) have no source with the same id, e.g. {missing[0]!r}", path)
    pairs = [(c.decode(), others[c.id].decode()) for c in clips]
    same = [c.id for c, (audio, source) in zip(clips, pairs) if np.array_equal(audio, source)]
    if same:  # the same manifest again, or a copy of its audio: those clips would be patched from themselves
        raise InputError(f"{len(same)} of {len(clips)} clip(s) have a source with the same samples as the clip "
                         f"(first: {same[0]!r}), on which the patch would exchange the layer with itself and change "
                         "nothing: give a corpus of other audio under the same clip ids (re-voiced, masked...)", path)
    return SourcesByAudio.from_pairs(pairs, label=Path(path).stem)


def _source_inputs(spec: str | None) -> list[tuple[str, Path]]:
    """The file ``--source`` reads, an input the outputs must not replace: a ``corpus:`` manifest, an ``audio:``
    clip."""
    kind, _, path = (spec or "").partition(":")
    if kind in ("corpus", "audio") and path and Path(path).is_file():
        return [(f"--source {spec}", Path(path))]
    return []


def run(args: argparse.Namespace) -> int:
    if not args.source and not args.block_attention:
        raise InputError("nothing to do: give --source (activation patching) and/or --block-attention START-END")
    positions = _check_where(args)
    args.layer = -1 if args.layer is None else args.layer
    # What the files and options alone tell, before the model loads: the corpus, the source (a corpus's clips
    # matched by id and decoded; a mask's span against the clips) and every span against the clips' lengths.
    # A `--source corpus:` of other clip ids was refused only once the model had loaded.
    check_outputs(args, experiment_outputs(args), _source_inputs(args.source))
    if args.source and args.site in ("encoder", "decoder"):  # a speech LLM's sites: checked once it has loaded
        check_layer_from_files(args, args.site)
    clips = corpus_clips(args)
    source = frames = None
    if args.source:
        if args.source.startswith("corpus:"):
            source = _per_clip_sources(args.source, clips, args.experiment_outputs)
        else:
            source = parse_audio_source(args.source)
            check_source_reaches(source, args.source, clips, "--source")
        frames = parse_frames(args.frames or "all")
        check_frames_reach(frames, args.frames, clips, "--frames")
    blocked = []
    for span in args.block_attention:
        block = parse_frames(span)
        if block.kind != "span":
            raise InputError(f"--block-attention takes START-END in seconds, got {span!r}")
        again = next((given for given, b in blocked if b.id == block.id), None)
        if again is not None:  # one variant twice: refused ("variant labels repeat") once the model had loaded
            same = "given twice" if again == span else f"the span of --block-attention {again} again"
            raise InputError(f"--block-attention {span} is {same} ({block.id}): each span is one variant of the "
                             "table: give each once")
        check_frames_reach(block, span, clips, "--block-attention")
        blocked.append((span, block))
    load_panel(args, clips)

    model = load_whitebox(args)
    from asraudit.models.whitebox.interventions import ActivationPatch, CrossAttentionMask  # torch

    sites = model.intervention_sites()
    for site in ([args.site] if args.source else []) + (["cross-attention"] if args.block_attention else []):
        try:
            sites.require(site)  # before any clip is decoded
        except ValueError as exc:
            raise InputError(f"model {args.model!r}: {exc}") from None
    if args.site == "decoder":
        _check_positions_fit(positions, model)
    variants = [Variant("baseline", "baseline", model)]
    if args.source:
        if isinstance(source, SpanMask):
            check_one_window(model, clips, f"--source {args.source!r}")
        if frames.kind == "span":
            check_one_window(model, clips, f"--frames {args.frames!r}")
        where = dict(layer=args.layer, site=args.site, frames=frames, positions=positions)
        # Short labels for the table; the model id (and the JSON) carry the full source id.
        label = f"patch {args.site} L{args.layer} <- {getattr(source, 'name', None) or source.id}"
        try:
            patched = model.variant(ActivationPatch(source=source, **where))
            itself = model.variant(ActivationPatch(source=Original(), **where))
        except ValueError as exc:
            raise InputError(str(exc)) from None
        variants.append(Variant(label, "intervention", patched))
        variants.append(Variant(f"patch {args.site} L{args.layer} <- itself", "control", itself, control_of=label))
    for span, block in blocked:
        check_one_window(model, clips, f"--block-attention {span!r}")
        variants.append(Variant(f"no attention {block.id}", "intervention",
                                model.variant(CrossAttentionMask(frames=Frames("span", block.start_s, block.end_s)))))
    check = _positions_reached(positions, model, clips) if args.source and args.site == "decoder" and positions else None
    return run_experiment(args, variants, clips, f"patch on {getattr(model, 'name', model.model_id)}",
                          check_baseline=check)
