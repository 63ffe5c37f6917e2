"""The audit stages that change the audio: masked recovery, audio lift, the trigger battery.

Each runs through the store (a rerun computes nothing) and, where a spec
caps the work (``max_targets``, ``max_edits``), keeps a subset chosen by a
seeded hash of the item's id: the same items on every run and every
machine, spread over the corpus rather than its first clips, and the cap is
printed with the result so a reader knows the denominator was sampled.
"""

from __future__ import annotations

import hashlib
import math
from typing import Sequence

from asraudit.audit.context import AuditContext

TIMINGS_NAME = "word_timings.jsonl"


def _finite(x) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def sample(items: Sequence, key, limit: int | None, seed: int) -> list:
    """At most ``limit`` items, chosen by a seeded hash of ``key(item)`` and returned in their original order."""
    if not limit or len(items) <= limit:
        return list(items)
    rank = sorted(range(len(items)),
                  key=lambda i: hashlib.sha256(f"{seed}:{key(items[i])}".encode("utf-8")).hexdigest())
    keep = set(rank[:limit])
    return [item for i, item in enumerate(items) if i in keep]


def _names_by_id(ctx: AuditContext) -> dict[str, str]:
    return {ident.model_id: name for name, ident in ctx.identities.items()}


def _models(ctx: AuditContext, names: Sequence[str]) -> tuple[list, list]:
    return [ctx.models[n] for n in names], [ctx.identities[n] for n in names]


# ------------------------------------------------------------------ masked recovery


def mask_texts(ctx: AuditContext) -> dict[str, str]:
    """What each clip says, as masked targets are read: the said field, else the raw reference."""
    field = ctx.spec.corpus.said_field
    out = {}
    for clip in ctx.corpus:
        value = clip.metadata.get(field) if field else clip.reference
        if isinstance(value, str) and value.strip():
            out[clip.id] = value
    return out


def mask_items(ctx: AuditContext):
    """Targets with their masks, from a recipe or aligned word timings (timings cached in <out>).

    Computed once per audit: the battery reuses the masked stage's targets."""
    if ctx.mask_plan is None:
        ctx.mask_plan = _plan_mask_items(ctx)
    return ctx.mask_plan


def _plan_mask_items(ctx: AuditContext):
    from asraudit.audio.timing import TimingCache, align_clips
    from asraudit.data.mask_recipe import read_recipe
    from asraudit.models.aligners import make_aligner
    from asraudit.probes.masked import WordTiming, select_targets
    from asraudit.probes.masked_run import MaskSettings, items_from_recipe, plan_items

    ms = ctx.spec.masked
    texts = mask_texts(ctx)
    settings = MaskSettings(fill=ms.fill, pad=ms.pad, guard=ms.guard, control=ms.control, seed=ctx.spec.seed)
    if ms.recipe:
        return items_from_recipe(read_recipe(ms.recipe), texts, settings), {}
    wanted = {cid: t for cid, t in texts.items()
              if select_targets(cid, [WordTiming(w, i, i + 1) for i, w in enumerate(t.split())], kind=ms.targets,
                                words=ms.words, skip_trivial=True)}
    aligner = make_aligner(ms.align, device=ctx.spec.executor.device)
    timings, failures = align_clips(aligner, [(cid, ctx.corpus[cid], t) for cid, t in wanted.items()],
                                    TimingCache(ctx.out / TIMINGS_NAME))
    if failures:
        ctx.note(f"masked: {len(failures)} of {len(wanted)} clip(s) could not be aligned with {ms.align}, "
                 f"e.g. {failures[0].clip_id}: {failures[0].reason}")
    items = plan_items(wanted, timings, kind=ms.targets, words=ms.words, skip_trivial=True, settings=settings)
    return items, timings


def masked(ctx: AuditContext) -> None:
    from asraudit.probes.masked_run import read_masked, run_masked, summarize_masked

    ms = ctx.spec.masked
    items, _ = mask_items(ctx)
    found = len(items)
    items = sample(items, lambda i: i.key, ms.max_targets, ctx.spec.seed)
    if not items:
        ctx.note(f"masked: no {ms.targets} targets in the corpus; masked recovery not measured")
        return
    names = ctx.models_named(ms.models)
    models, identities = _models(ctx, names)
    summaries = run_masked(ctx.store, ctx.executor, models, ctx.corpus.clips, items, lift=ms.lift,
                           control=ms.control, description=f"audit {ctx.spec.name}: masked")
    for label, s in zip(("transcribe", "score"), summaries):
        for name, stats in zip(names, s.models):
            ctx.log(f"{name}: masked {label}: {stats.jobs_run} job(s) run now, {stats.jobs_done_before} stored")
    outcomes = read_masked(ctx.store, identities, items, ctx.normalize)
    by_id = _names_by_id(ctx)
    rows = []
    for s in summarize_masked(outcomes, n_boot=ctx.spec.bootstrap, seed=ctx.spec.seed):
        name = by_id.get(s.model, s.model)
        row = {"model": name, "targets": s.n_targets, "clean": _finite(s.clean.rate),
               "masked": _finite(s.masked.rate), "masked_lo": _finite(s.masked.low), "masked_hi": _finite(s.masked.high),
               "masked_k": s.masked.k, "masked_n": s.masked.n,
               "control": _finite(s.control.rate), "control_lo": _finite(s.control.low),
               "control_hi": _finite(s.control.high), "control_n": s.control.n,
               "lift_masked": _finite(s.lift_masked.mean) if s.lift_masked.n else None,
               "lift_masked_lo": _finite(s.lift_masked.interval.low) if s.lift_masked.n else None,
               "lift_masked_hi": _finite(s.lift_masked.interval.high) if s.lift_masked.n else None,
               "lift_clean": _finite(s.lift_clean.mean) if s.lift_clean.n else None}
        rows.append(row)
        ctx.model_summary(name).update({
            "recovery": row["masked"], "recovery_ci": [row["masked_lo"], row["masked_hi"]], "recovery_n": s.masked.n,
            "control_recovery": row["control"], "control_recovery_ci": [row["control_lo"], row["control_hi"]]})
    ctx.summary["masked"] = rows
    ctx.summary.setdefault("sampling", {})["masked"] = {"targets_found": found, "targets_used": len(items),
                                                        "kind": ms.targets}
    ctx.tables["masked"] = [{**o.to_json(), "model": by_id.get(o.model, o.model)} for o in outcomes]


# ------------------------------------------------------------------ audio lift at edits


def lift(ctx: AuditContext) -> None:
    from asraudit.probes.lift_run import read_lift, run_lift, summarize_edit_lift

    ls = ctx.spec.lift
    items = sample(ctx.edit_items, lambda e: e.edit_id, ls.max_edits, ctx.spec.seed)
    if not items:
        ctx.note("lift: the panel mined no edits; audio lift not measured")
        return
    names = ctx.models_named(ls.models, scoring=True)
    models, identities = _models(ctx, names)
    summary = run_lift(ctx.store, ctx.executor, models, ctx.corpus.clips, items,
                       description=f"audit {ctx.spec.name}: lift")
    for name, stats in zip(names, summary.models):
        ctx.log(f"{name}: lift: {stats.jobs_run} job(s) run now, {stats.jobs_done_before} stored")
    by_id = _names_by_id(ctx)
    values = read_lift(ctx.store, identities, items)
    rows = []
    for by, label in ((lambda i: "all", "all"), (lambda i: i.kind, "kind")):
        for rep in summarize_edit_lift(values, by=by, n_boot=ctx.spec.bootstrap, seed=ctx.spec.seed):
            for side, s in (("r", rep.lift_r), ("a", rep.lift_a)):
                if s.n:
                    rows.append({"model": by_id.get(rep.model, rep.model), "kind": rep.group, "side": side,
                                 "mean": _finite(s.mean), "lo": _finite(s.interval.low),
                                 "hi": _finite(s.interval.high), "n": s.n,
                                 "share_positive": _finite(s.share_positive)})
    ctx.summary["lift"] = rows
    ctx.summary.setdefault("sampling", {})["lift"] = {"edits_found": len(ctx.edit_items), "edits_used": len(items)}
    ctx.tables["lift"] = [{**v.to_json(), "model": by_id.get(v.model, v.model)} for v in values]
    for row in rows:
        if row["kind"] == "all" and row["side"] == "r":
            ctx.model_summary(row["model"]).update({"lift": row["mean"], "lift_ci": [row["lo"], row["hi"]],
                                                    "lift_n": row["n"]})


# ------------------------------------------------------------------ trigger battery


def battery(ctx: AuditContext) -> None:
    from asraudit.probes.battery import load_spec
    from asraudit.probes.battery_run import BatteryInputs, run_battery

    bs = ctx.spec.battery
    spec = load_spec(bs.spec)
    edits = sample(ctx.edit_items, lambda e: e.edit_id, bs.max_edits, ctx.spec.seed)
    items, timings = ([], {})
    if bs.mask and ctx.spec.masked is not None:
        found, timings = mask_items(ctx)
        items = sample(found, lambda i: i.key, bs.max_targets, ctx.spec.seed)
    if not edits and not items:
        ctx.note("battery: no mined edits and no masked targets to probe; battery not run")
        return
    names = ctx.models_named(bs.models)
    models, _ = _models(ctx, names)
    inputs = BatteryInputs(ctx.corpus, edits, items, mask_texts(ctx), ctx.said, timings)
    result = run_battery(ctx.store, ctx.executor, models, spec, inputs, ctx.normalize,
                         min_ref_match=ctx.spec.refdis.min_ref_match, n_boot=ctx.spec.bootstrap, seed=ctx.spec.seed,
                         on_condition=lambda name: ctx.log(f"battery {spec.name}: condition {name}"))
    by_id = _names_by_id(ctx)
    from asraudit.probes.battery import READOUTS

    rows = [{"model": by_id.get(r.model, r.model), "condition": r.condition, "readout": r.readout,
             "kind": _kind(READOUTS[r.readout]), "value": _finite(r.value.estimate), "lo": _finite(r.value.low),
             "hi": _finite(r.value.high), "n": r.value.n,
             "delta": _finite(r.delta.estimate) if r.delta else None,
             "delta_lo": _finite(r.delta.low) if r.delta else None,
             "delta_hi": _finite(r.delta.high) if r.delta else None} for r in result.rows]
    contrasts = [{"model": by_id.get(c.model, c.model), "readout": c.readout, "contrast": c.contrast,
                  "kind": _kind(READOUTS[c.readout]), "did": _finite(c.did.estimate), "lo": _finite(c.did.low),
                  "hi": _finite(c.did.high), "n": c.did.n} for c in result.contrasts]
    ctx.summary["battery"] = {"name": spec.name, "conditions": [c.name for c in spec.conditions], "rows": rows,
                              "contrasts": contrasts, "notes": list(result.notes),
                              "edits": len(edits), "targets": len(items)}
    ctx.tables["battery"] = rows
    for note in result.notes:
        ctx.note(f"battery: {note}")


def _kind(readout_kind: str) -> str:
    """'rate' (a share, shown in %) or 'value' (a mean λ, shown as a number), as the report reads it."""
    return "rate" if readout_kind == "rate" else "value"
