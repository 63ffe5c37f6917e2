"""The paper's mechanism in the audit: splice pairs, and the pair-count, layer and rank sweeps of an ablation.

An encoder steer entry with ``splice``, ``pair_counts`` or ``layers``
(``audit.spec_sweeps``) learns through here.  Every learning pair goes
through the encoder once, and its pooled paired difference at every layer
the entry needs is cached under ``OUT/mechanism/`` (``*-pairs.safetensors``,
named by the same hash as the direction, plus the layers), so each sweep
point is a direction made from those rows: the main direction (all pairs,
the entry's layer and rank), the first n pairs of a seeded order (nested:
the 8 are among the 16), and each layer's direction from all pairs.

Each sweep point is a rank-1 ablation added to the entry's ablation
experiment with its random control of equal norm, so every point shares the
baseline, the clips and the edits; a point equal to one the experiment
already runs (n = every pair, the entry's own layer) reads that variant
instead of running it twice.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from asraudit.audit.context import AuditContext
from asraudit.audit.mechanism_curves import sweep_curve
from asraudit.display_paths import display_path
from asraudit.errors import InputError
from asraudit.mechanism.experiment import Variant, parse_audio_source
from asraudit.mechanism.splice_pairs import sweep_order
from asraudit.mechanism.steering import load_tensors, save_tensors
from asraudit.model_clock import model_call
from asraudit.models.whitebox.frames import Frames
from asraudit.models.whitebox.sites import layer_index

DIFFS_FORMAT = "asraudit-paired-differences/1"


def uses_sweeps(spec) -> bool:
    """Whether the entry learns through here (an encoder entry with splice pairs or a sweep)."""
    return spec.site == "encoder" and bool(spec.splice or spec.pair_counts or spec.layers)


def _layers(spec, n_layers: int) -> list[int]:
    return sorted({layer_index(layer, n_layers, f"[[mechanism]] {spec.name!r}: encoder") for layer in (spec.layer, *spec.layers)})


def learning_audio(ctx: AuditContext, plan) -> list[tuple]:
    """(positive, negative) audio of every learning pair: splice pairs, or the clip and its negative."""
    spec = plan.spec
    if spec.splice is not None:
        from asraudit.mechanism.splice_pairs import splice_audio_pairs

        donors = spec.splice.donors.select(list(ctx.corpus.clips))
        return splice_audio_pairs(plan.learn, donors, spec.splice)
    condition = parse_audio_source(spec.negative_source) if spec.negative_source else None
    return [(p.positive.decode(), p.negative.decode() if p.negative is not None else condition(p.positive.decode()))
            for p in plan.learn]


def paired_rows(ctx: AuditContext, plan, model, key: str) -> dict[int, object]:
    """layer -> ``[n_pairs, d]`` pooled paired differences, from the cache or one encoder pass per input."""
    from asraudit.mechanism.paired_states import paired_differences  # torch

    spec = plan.spec
    layers = _layers(spec, len(model.intervention_sites().encoder_layers))
    tag = hashlib.sha256(f"{key}:{layers}".encode()).hexdigest()[:16]
    path = Path(ctx.out) / "mechanism" / f"{_slug(spec.name)}-{tag}-pairs.safetensors"
    names = tuple(f"layer{layer}" for layer in layers)
    if path.is_file():
        try:
            tensors, _ = load_tensors(path, DIFFS_FORMAT, names, "paired differences")
            ctx.log(f"mechanism {spec.name}: paired differences from {display_path(path, Path.cwd())}")
            return {layer: tensors[name] for layer, name in zip(layers, names)}
        except InputError as exc:
            ctx.log(f"mechanism {spec.name}: cached paired differences unreadable ({exc}); computing them again")
    with model_call():
        rows = paired_differences(model, learning_audio(ctx, plan), layers, frames=Frames.parse(spec.frames),
                                  labels=[p.label for p in plan.learn])
    save_tensors(path, {f"layer{layer}": rows[layer] for layer in layers}, DIFFS_FORMAT, tag, layers[0],
                 {"pairs": [p.label for p in plan.learn], "negative": spec.negative_id, "model": model.model_id})
    return rows


def _slug(text: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:40] or "direction"


def _provenance(ctx, plan, model, labels) -> dict:
    spec = plan.spec
    return {"model": model.model_id, "model_config": model.config_hash, "frames": spec.frames,
            "pairs": list(labels), "negative": spec.negative_id,
            "description": f"{spec.positive.describe()} vs {spec.negative_id}"}


def learn_main(ctx: AuditContext, plan, model, key: str):
    """The entry's direction: every learning pair, its layer and rank."""
    from asraudit.mechanism.paired_states import direction_of  # torch-free, but beside its sibling

    spec = plan.spec
    layer = layer_index(spec.layer, len(model.intervention_sites().encoder_layers), f"[[mechanism]] {spec.name!r}: encoder")
    rows = paired_rows(ctx, plan, model, key)
    return direction_of(rows[layer], layer, spec.rank, _provenance(ctx, plan, model, [p.label for p in plan.learn]))


def add_sweeps(ctx: AuditContext, plan, model, direction, variants: list, details: dict,
               key: str) -> dict[str, list[tuple[int, str, str]]]:
    """Append each sweep point's ablation and random control to ``variants``; the sweeps' points by name.

    The rank sweep is the entry's own ``ablate_ranks`` (already in ``variants``)."""
    from asraudit.mechanism.paired_states import direction_of
    from asraudit.models.whitebox.interventions import SteerAblate  # torch

    spec = plan.spec
    frames = Frames.parse(spec.frames)
    out: dict[str, list[tuple[int, str, str]]] = {}
    if len(spec.ablate_ranks) > 1:
        out["rank"] = [(k, f"ablate k={k}", f"random k={k}") for k in spec.ablate_ranks]
    if not (spec.pair_counts or spec.layers):
        return out
    rows = paired_rows(ctx, plan, model, key)
    labels = [p.label for p in plan.learn]
    every = list(range(len(labels)))

    def point(x: int, name: str, chosen: list[int], layer: int) -> tuple[int, str, str]:
        if chosen == every and layer == direction.layer and 1 in spec.ablate_ranks:
            return x, "ablate k=1", "random k=1"  # the entry's own rank-1 ablation: read, not run twice
        label, control_label = f"ablate {name}", f"random {name}"
        if label not in details:
            d = direction_of(rows[layer][chosen], layer, 1, _provenance(ctx, plan, model, [labels[i] for i in chosen]))
            control = d.random_control(spec.control_seed)
            variants.append(Variant(label, "intervention", model.variant(SteerAblate(direction=d, rank=1, layer=layer,
                                                                                     frames=frames))))
            variants.append(Variant(control_label, "control", model.variant(
                SteerAblate(direction=control, rank=1, layer=layer, frames=frames)), control_of=label))
            details[label] = details[control_label] = {"rank": 1, "layer": layer, "n_pairs": len(chosen),
                                                       "direction": d.id}
        return x, label, control_label

    if spec.pair_counts:
        order = sweep_order(labels, spec.seed)
        counts = [n for n in spec.pair_counts if n <= len(labels)]
        if len(counts) < len(spec.pair_counts):
            ctx.note(f"mechanism {spec.name}: only {len(labels)} learning pairs; pair counts above it skipped")
        out["pairs"] = [point(n, f"n={n}", sorted(order[:n]), direction.layer) for n in counts]
    if spec.layers:
        n_layers = len(model.intervention_sites().encoder_layers)
        resolved = [layer_index(layer, n_layers, f"[[mechanism]] {spec.name!r}: encoder") for layer in spec.layers]
        out["layer"] = [point(layer, f"L{layer}", every, layer) for layer in resolved]
    return out


def curves(measured, experiment: str, model_name: str, sweeps: dict) -> list:
    """The sweeps as ``MechanismCurve`` rows over one readout."""
    return [sweep_curve(measured, experiment, model_name, name, "ablate", points) for name, points in sweeps.items()]
