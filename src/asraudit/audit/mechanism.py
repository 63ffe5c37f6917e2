"""Running the audit's white-box experiments (``[[mechanism]]``, parsed by ``audit.spec_mechanism``).

A plan (``plan_steer``) says, from the corpus alone, which pairs a direction
is learned from and which clips it is ablated on or added to; ``check_mechanism``
makes every plan before any model runs.  Running an experiment learns (or
loads from ``OUT/mechanism/``) its direction, transcribes every variant
through the audit's store and reads each readout out with the mechanism
readout's one recipe (``mechanism.experiment.measure_readout``): accept-ref on
the panel's edits over those clips with its Wilson interval, and the paired
change against the baseline on the same edits.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from asraudit.audit.context import AuditContext
from asraudit.audit.results import MechanismStage
from asraudit.audit.mechanism_sweeps import add_sweeps, curves, learn_main, uses_sweeps
from asraudit.audit.spec_mechanism import MechanismSpec, SteerSpec
from asraudit.audit.spec_reader import SpecError
from asraudit.display_paths import display_path
from asraudit.errors import InputError
from asraudit.model_clock import model_call
from asraudit.mechanism.experiment import (ReadoutParams, Variant, check_frames_reach, check_one_window,
                                          check_source_reaches, check_windows, measure_readout, parse_audio_source,
                                          run_variants)
from asraudit.mechanism.pairs import (ClipPair, Selection, clip_field, clip_pairs, group_of, split_groups,
                                     unpaired_positives)
from asraudit.mechanism.steering import Direction, alpha_label, learn_direction
from asraudit.probes.battery_donors import check_donor_source
from asraudit.metrics.stats import Interval
from asraudit.models.registry import load_model
from asraudit.models.token_counts import token_counter
from asraudit.models.whitebox.frames import Frames
from asraudit.report.rows import MechanismRow, bounds, finite, flat_row

CACHE_FORMAT = "asraudit-mechanism-direction/1"


# ------------------------------------------------------------------ the plan


@dataclass(frozen=True)
class SteerPlan:
    """What a steer experiment learns from and reads out on, from the corpus alone."""

    spec: SteerSpec
    learn: tuple[ClipPair, ...]
    learned_groups: frozenset[str]
    held_out_groups: frozenset[str]
    ablate_clips: tuple
    induce_clips: tuple
    # positive clips no pair holds: no negative shares their pair_by value (or they have none)
    unpaired: tuple = ()
    positives: int = 0

    def unpaired_note(self) -> str | None:
        """One line for the audit's notes when positives were left out of learning for want of a negative."""
        if not self.unpaired:
            return None
        spec, n = self.spec, len(self.unpaired)
        shown = ", ".join(repr(c.id) for c in self.unpaired[:3]) + (", ..." if n > 3 else "")
        return (f"mechanism {spec.name}: {n} of {self.positives} positive clip(s) ({spec.positive.describe()}) have no "
                f"negative ({spec.negative.describe()}) of the same {spec.pair_by} and are not learned from "
                f"({shown}); the direction is learned from {len(self.learn)} pair(s)")


def _capped(clips: Sequence, cap: int | None) -> tuple:
    return tuple(clips if cap is None else clips[:cap])


def _induce_models(spec: SteerSpec) -> tuple[str, ...]:
    return ((spec.model,) if spec.induce_model else ()) + spec.apply_to


def _frames_span(spec: SteerSpec) -> bool:
    return spec.site == "encoder" and Frames.parse(spec.frames).kind == "span"


def _check_learning_windows(spec: SteerSpec, learn: Sequence, clips: Sequence) -> None:
    """Learning inputs longer than the model's window (from its files; ``learn_direction`` and the sweeps'
    ``paired_differences`` check the others once the model has loaded), from the clips' headers: the encoder would
    see their first window only.  A splice pair's inputs are its clip with the donors spliced in
    (``splice_pairs.splice_lengths``): a clip within the window could pass it once they were added."""
    from asraudit.mechanism.steering import too_long_to_learn
    from asraudit.models.layer_counts import window_seconds

    window = window_seconds(spec.model)
    if window is None or Frames.parse(spec.frames).kind == "span":
        return
    if spec.splice is not None:
        from asraudit.mechanism.splice_pairs import splice_lengths

        lengths = splice_lengths(learn, spec.splice.donors.select(list(clips)), spec.splice)
    else:
        lengths = []
        for pair in learn:
            seconds = [s for c in (pair.positive, pair.negative)
                       if c is not None and (s := c.header_seconds()) is not None]
            if seconds:
                lengths.append((pair.label, max(seconds)))
    problem = too_long_to_learn(window, lengths, Frames.parse(spec.frames))
    if problem:
        raise InputError(problem)


def plan_steer(spec: SteerSpec, clips: Sequence) -> SteerPlan:
    """Pairs to learn from and clips to intervene on; a SpecError when the corpus cannot supply them."""
    where = spec.entry
    for sel_name in ("positive", "negative", "ablate", "induce"):
        sel = getattr(spec, sel_name)
        if sel is not None and not sel.everything and not sel.select(clips):
            seen = sorted({v for c in clips if (v := clip_field(c, sel.field)) is not None})[:8]
            hint = f"; values seen: {', '.join(seen)}" if seen else f"; no clip has a field {sel.field!r}"
            raise SpecError(f"{where}: {sel_name} selects no clip of the corpus ({sel.describe()}){hint}", None)
    try:
        pairs = clip_pairs(clips, spec.positive, spec.negative, spec.pair_by)
    except ValueError as exc:
        raise SpecError(f"{where}: {exc}", None) from None
    if not pairs:
        raise SpecError(f"{where}: no learning pairs: no {spec.pair_by} value has both a positive and a negative clip",
                        None)
    learned, held = split_groups([p.group for p in pairs], spec.holdout, spec.seed)
    learn = [p for p in pairs if p.group in learned]
    if spec.max_pairs is not None:
        learn = learn[: spec.max_pairs]
    if len(learn) < spec.rank:
        raise SpecError(f"{where}: rank {spec.rank} needs at least {spec.rank} learning pairs, the corpus gives "
                        f"{len(learn)}", None)
    learned = frozenset(p.group for p in learn)

    def readable(sel: Selection | None) -> tuple:
        if sel is None:
            return ()
        chosen = [c for c in sel.select(clips) if spec.holdout <= 0 or group_of(c, spec.pair_by) not in learned]
        return _capped(chosen, spec.max_clips)

    ablate, induce = readable(spec.ablate), readable(spec.induce)
    if spec.site == "decoder":
        check_forced_tokens(spec, [p.positive for p in learn])
    if spec.splice is not None:  # the other donor audio loads and speaks now, not when the last stage builds pairs
        # (and before the spliced inputs are measured against the window)
        try:
            check_donor_source(spec.splice.other)
        except InputError as exc:
            raise SpecError(f"{where}: splice.other {spec.splice.other!r}: {exc}", None) from None
    try:  # spans that start after a clip ends: a mask that pairs the clip with itself, frames the clip lacks
        if spec.negative_source:
            check_source_reaches(parse_audio_source(spec.negative_source), spec.negative_source,
                                 [p.positive for p in learn], "negative")
        if spec.site == "encoder":
            used = list({c.id: c for c in [q for p in learn for q in (p.positive, p.negative) if q is not None]
                         + list(ablate) + list(induce)}.values())
            check_frames_reach(Frames.parse(spec.frames), spec.frames, used, "frames")
            _check_learning_windows(spec, learn, clips)
        if _frames_span(spec):  # a span acts in each window the model decodes a longer clip in
            check_windows((spec.model,), ablate, f"frames {spec.frames!r}")
            check_windows(_induce_models(spec), induce, f"frames {spec.frames!r}")
    except InputError as exc:
        raise SpecError(f"{where}: {exc.message}", None) from None
    for name, sel, chosen in (("ablate", spec.ablate, ablate), ("induce", spec.induce, induce)):
        if sel is not None and not chosen:
            raise SpecError(f"{where}: no {name} clip is left outside the learned pair groups (holdout "
                            f"{spec.holdout}); raise holdout or lower max_pairs", None)
    unpaired = tuple(unpaired_positives(clips, spec.positive, pairs)) if spec.negative is not None else ()
    return SteerPlan(spec, tuple(learn), learned, frozenset(held) - learned, ablate, induce, unpaired,
                     len(spec.positive.select(clips)))


def check_forced_tokens(spec: SteerSpec, clips: Sequence) -> None:
    """``positions = "first:N"`` or ``"each:N"`` forces the first N - 1 tokens of every learning clip's reference
    in the model and its contrast: a reference with fewer stopped the mechanism stage, the last, after every
    other stage ran.  Counted with the tokenizers in the models' files (``token_counts``), where they say."""
    head, _, count = spec.positions.partition(":")  # first, all (no count), first:N, each:N (spec_mechanism)
    if head not in ("first", "each") or not count.isdigit() or int(count) <= 1:
        return
    count = int(count)
    for model in (spec.model, spec.contrast):
        try:
            counter = token_counter(model)
        except InputError as exc:  # its tokenizer files cannot be read: the stage could not load it either
            raise SpecError(f"{spec.entry}: {model}: {exc.message}", None) from None
        if counter is None:
            continue
        for clip in clips:
            try:
                n = counter(clip.reference or "")
            except ValueError as exc:  # a transducer's characters outside its vocabulary
                raise SpecError(f"{spec.entry}: clip {clip.id}'s reference cannot be forced in {model}: {exc}",
                                None) from None
            if n < count - 1:
                raise SpecError(f"{spec.entry}: positions {spec.positions!r} force the first {count - 1} tokens of "
                                f"each learning clip's reference, but clip {clip.id}'s has {n} in {model}'s "
                                f"tokenizer ({clip.reference!r}): use fewer positions, or select longer clips", None)


def check_mechanism(specs: Sequence[MechanismSpec], clips: Sequence, source: str | None = None) -> list[SteerPlan]:
    """Before any model runs: the corpus supplies every experiment's pairs and clips, and torch is installed."""
    if not specs:
        return []
    missing = [m for m in ("torch", "transformers") if importlib.util.find_spec(m) is None]
    if missing:
        raise SpecError(f"[[mechanism]] experiments need the white-box model ({', '.join(missing)} missing): "
                        "pip install 'asraudit[hf]'", source)
    plans = []
    for spec in specs:
        try:
            check_spec_layers(spec)
            if spec.kind == "patch":
                from asraudit.audit.mechanism_patch import plan_patch

                plans.append(plan_patch(spec, clips))
                continue
            plans.append(plan_steer(spec, clips))
        except SpecError as exc:
            raise SpecError(exc.message if hasattr(exc, "message") else str(exc), source) from None
    return plans


def check_spec_layers(spec: MechanismSpec) -> None:
    """Every layer the entry names exists in every model it runs in, where the models' files give the counts.

    The mechanism stage runs last; without this a layer the model lacks was found after every other stage."""
    from asraudit.models.layer_counts import check_layers

    if spec.kind == "patch":  # the encoder output is exchanged between the two models
        wanted = [(model, "encoder", spec.layer) for model in (spec.model, spec.contrast)]
        from asraudit.models.layer_counts import layer_counts

        depths = [(layer_counts(model) or {}).get("encoder") for model in (spec.model, spec.contrast)]
        if None not in depths and depths[0] != depths[1]:  # found by the stage, the last, when it loaded both
            raise SpecError(f"{spec.entry} ({spec.name!r}): {spec.model} has {depths[0]} encoder layers and "
                            f"{spec.contrast} {depths[1]}: an encoder exchange needs the model a fine-tune started "
                            "from (the same front end and depth)")
    elif spec.site == "decoder":
        wanted = [(model, "decoder", spec.layer) for model in (spec.model, spec.contrast, *spec.apply_to)]
    else:
        wanted = [(model, "encoder", layer) for model in (spec.model, *spec.apply_to)
                  for layer in (spec.layer, *spec.layers)]
    try:
        check_layers(wanted, f"{spec.entry} ({spec.name!r})")
    except SpecError:
        raise
    except InputError as exc:
        raise SpecError(str(exc)) from None
    if spec.kind != "patch" and spec.apply_to:
        check_apply_to_widths(spec)


def check_apply_to_widths(spec: SteerSpec) -> None:
    """Every ``apply_to`` model is as wide as the model the direction is learned in, where the models' files give
    the widths (``layer_counts.hidden_size``): the stage, the last, skipped a narrower or wider one with a note
    once it had learned the direction, after every other stage ran."""
    from asraudit.models.layer_counts import hidden_size

    width = hidden_size(spec.model)
    if width is None:
        return
    for name in spec.apply_to:
        other = hidden_size(name)
        if other is not None and other != width:
            raise SpecError(f"{spec.entry} ({spec.name!r}): apply_to {name!r} has width {other}, and the direction "
                            f"is learned in {spec.model}, of width {width}: it cannot be added to {name}; leave "
                            f"{name} out of apply_to, or learn a direction in it in another entry")


# ------------------------------------------------------------------ running


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:40] or "direction"


def direction_key(model, spec: SteerSpec, pairs: Sequence[ClipPair], contrast=None) -> str:
    """A hash of everything the learned direction depends on."""
    payload = {
        "format": CACHE_FORMAT,
        "model": model.model_id,
        "config": model.config_hash,
        "layer": spec.layer,
        "rank": spec.rank,
        "frames": spec.frames,
        "negative": spec.negative_id,
        "pairs": [p.label for p in pairs],
    }
    if spec.site == "decoder":
        payload.update(site="decoder", positions=spec.positions, contrast=contrast.model_id,
                       contrast_config=contrast.config_hash, pairs=[p.positive.id for p in pairs])
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def _pair_audio(pair: ClipPair, condition) -> tuple:
    audio = pair.positive.decode()
    return audio, (pair.negative.decode() if pair.negative is not None else condition(audio))


def _learn(spec: SteerSpec, plan: "SteerPlan", model, contrast):
    """Learn the plan's direction (the slow part: an encoder pass per clip of every pair)."""
    if spec.site == "decoder":
        from asraudit.mechanism.decoder_steering import learn_model_contrast, model_name  # torch

        clips = [(p.positive.id, p.positive.decode(), p.positive.reference) for p in plan.learn]
        return learn_model_contrast(model, contrast, clips, spec.layer, positions=spec.positions, rank=spec.rank,
                                    description=f"{model_name(model)} minus {model_name(contrast)} on "
                                                f"{spec.positive.describe()}")
    condition = parse_audio_source(spec.negative_source) if spec.negative_source else None
    pairs = [_pair_audio(p, condition) for p in plan.learn]
    return learn_direction(model, pairs, spec.layer, frames=Frames.parse(spec.frames), rank=spec.rank,
                           pair_labels=[p.label for p in plan.learn],
                           description=f"{spec.positive.describe()} vs "
                                       f"{spec.negative.describe() if spec.negative else spec.negative_source}"
                                       f"{f', paired by {spec.pair_by}' if spec.pair_by else ''}")


def _load_direction(spec: SteerSpec, path: Path):
    if spec.site == "decoder":
        from asraudit.mechanism.decoder_steering import load_any_direction  # torch

        return load_any_direction(path)
    return Direction.load(path)


def learned_direction(ctx: AuditContext, plan: SteerPlan, model, contrast=None):
    """The plan's direction: from the cache under ``OUT/mechanism`` when present, else learned and saved there."""
    spec = plan.spec
    key = direction_key(model, spec, plan.learn, contrast)
    path = Path(ctx.out) / "mechanism" / f"{_slug(spec.name)}-{key}.safetensors"
    if path.is_file():
        try:
            direction = _load_direction(spec, path)
            ctx.log(f"mechanism {spec.name}: direction {direction.id} from {display_path(path, Path.cwd())}")
            return direction, path
        except InputError as exc:
            ctx.log(f"mechanism {spec.name}: cached direction unreadable ({exc}); learning it again")
    started = time.perf_counter()
    try:
        if uses_sweeps(spec):  # splice pairs or sweeps: every layer's paired differences in one pass
            direction = learn_main(ctx, plan, model, key)
        else:
            with model_call():  # forward passes of the white-box models: model time, not the audit's
                direction = _learn(spec, plan, model, contrast)
    except ValueError as exc:
        raise SpecError(f"{spec.entry}: cannot learn the direction: {exc}", ctx.spec.source) from None
    direction.save(path)
    ctx.log(f"mechanism {spec.name}: learned {direction.id} at {spec.site} layer {direction.layer} from "
            f"{len(plan.learn)} pairs in {time.perf_counter() - started:.1f} s (|v| {direction.norm:.3g}); saved {path}")
    return direction, path


@dataclass
class _Run:
    """One run of the experiments: the context, the panel's transcripts, the white-box models loaded so far, and
    the rows collected."""

    ctx: AuditContext
    transcripts: dict[str, dict[str, str]]
    models: dict = field(default_factory=dict)
    rows: list[MechanismRow] = field(default_factory=list)
    table: list[dict] = field(default_factory=list)
    curves: list = field(default_factory=list)   # MechanismCurve: the sweeps
    by_kind: list = field(default_factory=list)  # MechanismKindRow: patching and masking per edit kind

    def whitebox(self, name: str):
        if name not in self.models:
            executor = self.ctx.spec.executor
            self.models[name] = load_model(f"whitebox:{name}", device=executor.device, batch_size=executor.batch_size)
        return self.models[name]


def _readout_rows(run: _Run, experiment: str, action: str, plan: SteerPlan, model_name: str, variants, clips,
                  direction, direction_path: Path, details: dict[str, dict]):
    """The rows of one readout (a sweep point's details may name its own direction and layer); the readout."""
    ctx = run.ctx
    spec = plan.spec
    params = ReadoutParams(normalizer=ctx.spec.normalizer, miner=ctx.spec.refdis, n_boot=ctx.spec.bootstrap,
                           seed=ctx.spec.seed)
    measured = measure_readout(ctx.store, variants, clips, params, panel=run.transcripts,
                               panel_models=list(ctx.panel))
    results, deltas, baseline = measured.variants, measured.deltas, measured.baseline
    for r in results:
        acc, d = r.accept, deltas[r.label]
        is_base = r.role == "baseline"
        row = MechanismRow(
            experiment=experiment, model=model_name, intervention=r.label, role=r.role, control_of=r.control_of,
            metric="accept-ref",
            value=None if acc is None else finite(acc.rate),
            value_interval=None if acc is None else bounds(acc.interval),
            n_ref=None if acc is None else acc.n_ref,
            n_eligible=None if acc is None else acc.n_eligible,
            changed=r.changed, clips=r.n_clips,
            wer=None if r.wer is None else finite(r.wer.rate),
            # beyond accept-ref: the paired change against the baseline on the same edits
            delta=None if is_base else finite(d.delta),
            delta_interval=None if is_base else bounds(Interval(d.delta, d.low, d.high)),  # paired bootstrap over clips
            delta_n=None if is_base else d.n,
            to_ref=None if is_base else d.to_ref,
            to_audio=None if is_base else d.to_audio,
            direction=details.get(r.label, {}).get("direction", direction.id),
            layer=details.get(r.label, {}).get("layer", direction.layer), action=action, site=spec.site)
        run.rows.append(row)
        run.table.append({
            **flat_row(row),
            "name": spec.name,
            "entry": spec.entry,
            "model_id": r.model_id,
            "config_hash": r.config_hash,
            "n_audio": None if acc is None else acc.n_audio,
            "n_other": None if acc is None else acc.n_other,
            "n_ineligible": None if acc is None else acc.n_ineligible,
            "wer_lo": None if r.wer is None else finite(r.wer.interval.low),
            "wer_hi": None if r.wer is None else finite(r.wer.interval.high),
            "site": spec.site,
            "where": spec.where,
            "contrast": spec.contrast,
            "direction_norm": direction.norm,
            "direction_file": display_path(direction_path, ctx.spec.spec_folder, Path.cwd()),
            "learn_pairs": len(plan.learn),
            "learned_groups": len(plan.learned_groups),
            "pair_by": spec.pair_by,
            "positive": spec.positive.id,
            "negative": spec.negative_id,
            **details.get(r.label, {}),
        })
    base = baseline.accept
    lines = [f"{r.label}: {'-' if r.accept is None else f'{r.accept.n_ref}/{r.accept.n_eligible}'}"
             + ("" if r.role == "baseline" or deltas[r.label].n == 0 else f" (Δ {100 * deltas[r.label].delta:+.1f} pts)")
             for r in results]
    ctx.log(f"mechanism {experiment}: accept-ref " + "; ".join(lines)
            + ("" if base is None else f" [panel edits judged on {len(clips)} clips]"))
    return measured


def _fits(spec: SteerSpec, target, direction) -> str | None:
    """Why ``direction`` cannot be applied to ``target`` (None when it can)."""
    # A model that does not state its width is checked by its layer count alone.
    width = getattr(target, "hidden_size", direction.vector.shape[-1])
    if spec.site == "decoder":  # a speech LLM's LM (Canary's decoder) is wider than its audio encoder
        width = getattr(target, "decoder_hidden_size", None) or width
    sites = target.intervention_sites()
    stack = sites.encoder_layers if spec.site == "encoder" else sites.decoder_layers
    if width != direction.vector.shape[-1] or not direction.layer < len(stack):
        return (f"{getattr(target, 'name', None) or target.model_id} has width {width} and {len(stack)} {spec.site} "
                f"layers; the direction (width {direction.vector.shape[-1]}, layer {direction.layer}) does not fit it")
    return None


def _interventions(spec: SteerSpec, direction):
    """(ablate(direction, k), add(direction, alpha)) for the spec's site."""
    if spec.site == "decoder":
        from asraudit.mechanism.decoder_steering import DecoderSteerAblate, DecoderSteerAdd  # torch

        return (lambda d, k: DecoderSteerAblate(direction=d, rank=k, layer=direction.layer, positions=spec.positions),
                lambda d, a: DecoderSteerAdd(direction=d, alpha=a, layer=direction.layer, positions=spec.positions))
    from asraudit.models.whitebox.interventions import SteerAblate, SteerAdd  # torch

    frames = Frames.parse(spec.frames)
    return (lambda d, k: SteerAblate(direction=d, rank=k, layer=direction.layer, frames=frames),
            lambda d, a: SteerAdd(direction=d, alpha=a, layer=direction.layer, frames=frames))


def _run_steer(run: _Run, plan: SteerPlan) -> None:
    ctx = run.ctx
    spec = plan.spec
    unpaired = plan.unpaired_note()
    if unpaired is not None:
        ctx.note(unpaired)
    model = run.whitebox(spec.model)
    contrast = run.whitebox(spec.contrast) if spec.contrast else None
    direction, path = learned_direction(ctx, plan, model, contrast)
    if plan.induce_clips:  # the scale against the learned norm, before any variant of the entry runs
        from asraudit.models.whitebox.steer_limits import scale_problem

        for alpha in spec.alphas:
            problem = scale_problem(alpha, direction.norm)
            if problem:
                raise InputError(f"[[mechanism]] {spec.name!r}: alphas: {problem}")
    control = direction.random_control(spec.control_seed)
    ablation, addition = _interventions(spec, direction)
    batch = ctx.spec.executor.batch_size

    def go(action: str, model_name: str, variants, clips, details):
        title = f"{spec.name}: {action} in {model_name}"
        run_variants(ctx.store, variants, clips, batch_size=batch, progress=ctx.progress, description=title)
        return title, _readout_rows(run, title, action, plan, model_name, variants, clips, direction, path, details)

    def one_window(target, clips) -> None:  # models whose files did not give their window (check_windows)
        if _frames_span(spec):
            try:
                check_one_window(target, clips, f"frames {spec.frames!r}")
            except InputError as exc:
                raise SpecError(f"{spec.entry}: {exc.message}", ctx.spec.source) from None

    if plan.ablate_clips:
        one_window(model, plan.ablate_clips)
        variants = [Variant("baseline", "baseline", model)]
        details: dict[str, dict] = {"baseline": {}}
        for k in spec.ablate_ranks:
            label = f"ablate k={k}"
            variants.append(Variant(label, "intervention", model.variant(ablation(direction, k))))
            variants.append(Variant(f"random k={k}", "control", model.variant(ablation(control, k)), control_of=label))
            details[label] = details[f"random k={k}"] = {"rank": k}
        sweeps = add_sweeps(ctx, plan, model, direction, variants, details,
                            direction_key(model, spec, plan.learn)) if spec.site == "encoder" else {}
        title, measured = go("ablate", spec.model, variants, plan.ablate_clips, details)
        run.curves.extend(curves(measured, title, spec.model, sweeps))

    if plan.induce_clips:
        for name in _induce_models(spec):
            target = run.whitebox(name)
            problem = _fits(spec, target, direction)
            if problem:
                ctx.note(f"mechanism {spec.name}: {problem}; induction in {name} skipped")
                continue
            one_window(target, plan.induce_clips)
            variants = [Variant("baseline", "baseline", target)]
            details = {"baseline": {}}
            for alpha in spec.alphas:
                label = f"add a={alpha_label(alpha)}"
                variants.append(Variant(label, "intervention", target.variant(addition(direction, alpha))))
                variants.append(Variant(f"random a={alpha_label(alpha)}", "control",
                                        target.variant(addition(control, alpha)), control_of=label))
                details[label] = details[f"random a={alpha_label(alpha)}"] = {"alpha": alpha}
            go("induce", name, variants, plan.induce_clips, details)


def run_mechanism(ctx: AuditContext, specs: Sequence[MechanismSpec],
                  transcripts: dict[str, dict[str, str]]) -> MechanismStage | None:
    """Run every experiment through ``ctx.store``; accept-ref on the edits of the panel's ``transcripts``."""
    if not specs:
        return None
    if not ctx.panel:
        ctx.note("mechanism experiments skipped: accept-ref needs the panel's transcripts (no panel)")
        return None
    plans = check_mechanism(specs, list(ctx.corpus.clips), ctx.spec.source)
    run = _Run(ctx, transcripts)
    for plan in plans:
        started = time.perf_counter()
        if plan.spec.kind == "patch":
            from asraudit.audit.mechanism_patch import run_patch

            run_patch(run, plan)
        else:
            _run_steer(run, plan)
        ctx.log(f"mechanism {plan.spec.name}: done in {time.perf_counter() - started:.1f} s")
    return MechanismStage(run.rows, run.table, run.curves, run.by_kind)
