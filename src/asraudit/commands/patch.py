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

from asraudit.audio.conditions import Original
from asraudit.commands.steer import add_experiment_arguments, corpus_clips, load_whitebox, parse_frames, run_experiment
from asraudit.data.corpus import load_corpus
from asraudit.errors import InputError
from asraudit.mechanism.experiment import Variant, check_frames_reach, check_source_reaches, parse_audio_source
from asraudit.models.whitebox.frames import Frames, SourcesByAudio

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
    p.add_argument("--layer", type=int, default=-1, help="layer to patch (0-based; default -1, the last)")
    p.add_argument("--site", choices=PATCH_SITES, default="encoder",
                   help="encoder layer output over --frames; decoder layer output at --positions; for speech LLMs "
                        "also projector (its output over --frames) and decoder-audio (an LM layer's output at the "
                        "prompt's audio positions over --frames)")
    p.add_argument("--frames", default="all",
                   help="encoder frames or audio tokens: all (default), audio, changed (where each clip's source "
                        "differs from it), START-END in seconds")
    p.add_argument("--positions", default="", metavar="I,J,...",
                   help="decoder text positions (0 = first text token; default every position)")
    p.add_argument("--block-attention", action="append", default=[], metavar="START-END",
                   help="add a variant whose decoder cannot attend to this span (seconds; repeatable)")
    p.set_defaults(func=run)


def _positions(text: str) -> tuple[int, ...]:
    if not text.strip():
        return ()
    try:
        positions = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise InputError(f"--positions expects comma-separated integers, got {text!r}") from None
    if any(p < 0 for p in positions):
        raise InputError("--positions are text positions, 0 or more")
    return positions


def _per_clip_sources(spec: str, clips):
    """Each clip's source: the clip with the same id in another corpus (looked up by audio at run time)."""
    path = spec.split(":", 1)[1]
    others = load_corpus(path)
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


def run(args: argparse.Namespace) -> int:
    if not args.source and not args.block_attention:
        raise InputError("nothing to do: give --source (activation patching) and/or --block-attention START-END")
    model = load_whitebox(args)
    from asraudit.models.whitebox.interventions import ActivationPatch, CrossAttentionMask  # torch

    sites = model.intervention_sites()
    for site in ([args.site] if args.source else []) + (["cross-attention"] if args.block_attention else []):
        try:
            sites.require(site)  # before any clip is decoded
        except ValueError as exc:
            raise InputError(f"model {args.model!r}: {exc}") from None
    clips = corpus_clips(args)
    variants = [Variant("baseline", "baseline", model)]
    if args.source:
        if args.source.startswith("corpus:"):
            source = _per_clip_sources(args.source, clips)
        else:
            source = parse_audio_source(args.source)
            check_source_reaches(source, args.source, clips, "--source")
        frames = parse_frames(args.frames)
        check_frames_reach(frames, args.frames, clips, "--frames")
        where = dict(layer=args.layer, site=args.site, frames=frames, positions=_positions(args.positions))
        # Short labels for the table; the model id (and the JSON) carry the full source id.
        label = f"patch {args.site} L{args.layer} <- {getattr(source, 'name', None) or source.id}"
        try:
            patched = model.variant(ActivationPatch(source=source, **where))
            itself = model.variant(ActivationPatch(source=Original(), **where))
        except ValueError as exc:
            raise InputError(str(exc)) from None
        variants.append(Variant(label, "intervention", patched))
        variants.append(Variant(f"patch {args.site} L{args.layer} <- itself", "control", itself, control_of=label))
    for span in args.block_attention:
        frames = parse_frames(span)
        if frames.kind != "span":
            raise InputError(f"--block-attention takes START-END in seconds, got {span!r}")
        check_frames_reach(frames, span, clips, "--block-attention")
        variants.append(Variant(f"no attention {frames.id}", "intervention",
                                model.variant(CrossAttentionMask(frames=Frames("span", frames.start_s, frames.end_s)))))
    return run_experiment(args, variants, clips, f"patch on {getattr(model, 'name', model.model_id)}")
