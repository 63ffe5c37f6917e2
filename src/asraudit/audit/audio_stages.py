"""The audit stages that change the audio: masked recovery, audio lift, the trigger battery.

Each calls its probe's one entry (``probes.masked_probe``,
``probes.lift_probe``, ``probes.battery_run``) through the store, so a rerun
computes nothing; where the spec caps the work (``max_targets``,
``max_edits``) the probe keeps a seeded sample (``probes.sampling``) and the
counts found and used are reported with the result.
"""

from __future__ import annotations

from asraudit.audit.context import AuditContext
from asraudit.audit.results import AuditResult, BatteryStage, LiftStage, MaskedStage, ModelRecovery
from asraudit.report.rows import BatteryRow, BatteryRowSet, ContrastRow, LiftRow, MaskedRow, bounds, finite
from asraudit.metrics.stats import Interval
from asraudit.probes.battery import READOUTS, load_spec
from asraudit.probes.battery_run import BatteryInputs, measure_battery
from asraudit.probes.lift_probe import measure_lift
from asraudit.probes.lift_run import refuse_silent_clips
from asraudit.probes.masked_probe import MaskPlan, measure_masked, plan_masked, refuse_silent_targets

TIMINGS_NAME = "word_timings.jsonl"


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


class MaskPlanner:
    """Targets and their timings, planned once per audit: the battery reuses the masked stage's plan."""

    def __init__(self):
        self.plan: MaskPlan | None = None

    def __call__(self, ctx: AuditContext) -> MaskPlan:
        if self.plan is None:
            ms = ctx.spec.masked.params
            self.plan = plan_masked(ctx.corpus, mask_texts(ctx), ms, timings_cache=ctx.out / TIMINGS_NAME,
                                    device=ctx.spec.executor.device, seed=ctx.spec.seed)
            if self.plan.failures:
                f = self.plan.failures
                ctx.note(f"masked: {len(f)} of {len(self.plan.wanted)} clip(s) could not be aligned with {ms.align}, "
                         f"e.g. {f[0].clip_id}: {f[0].reason}")
        return self.plan


def masked(ctx: AuditContext, done: AuditResult, planner: MaskPlanner) -> MaskedStage | None:
    ms = ctx.spec.masked
    plan = planner(ctx)
    names = ctx.models_named(ms.models)
    models, _ = ctx.chosen(names)
    if not plan.items:
        ctx.note(f"masked: no {ms.params.targets} targets in the corpus; masked recovery not measured")
        return None
    window = ctx.score_window(names)
    refuse_silent_targets(ctx.corpus.clips, plan.items)  # before the stage's models run
    result = measure_masked(ctx.store, ctx.executor, models, ctx.corpus.clips, plan.items, ctx.normalize, ms.params,
                            n_boot=ctx.spec.bootstrap, seed=ctx.spec.seed, description=f"audit {ctx.spec.name}: masked",
                            window=window)
    if (note := result.left_out_note(window)) is not None:
        ctx.note(note)
    for label, jobs in zip(("masked transcribe", "masked score"), result.jobs):
        ctx.log_jobs(label, jobs.models)
    by_id = ctx.names_by_id()
    rows, per_model = [], {}
    for s in result.summaries:
        name = by_id.get(s.model, s.model)
        lift_m = s.lift_masked
        rows.append(MaskedRow(
            name, s.n_targets, finite(s.clean.rate), finite(s.masked.rate), bounds(s.masked.interval),
            s.masked.k, s.masked.n, finite(s.control.rate), bounds(s.control.interval), s.control.n,
            finite(lift_m.mean) if lift_m.n else None, bounds(lift_m.interval) if lift_m.n else None,
            finite(s.lift_clean.mean) if s.lift_clean.n else None))
        per_model[name] = ModelRecovery(s.masked.interval, s.masked.n, s.control.interval)
    table = [{**o.to_json(), "model": by_id.get(o.model, o.model)} for o in result.outcomes]
    return MaskedStage(rows, per_model, result.found, len(result.items), ms.params.targets, table)


# ------------------------------------------------------------------ audio lift at edits


def lift(ctx: AuditContext, done: AuditResult) -> LiftStage | None:
    ls = ctx.spec.lift
    found = done.mining.edit_items
    if not found:
        ctx.note("lift: the panel mined no edits; audio lift not measured")
        return None
    names = ctx.models_named(ls.models, scoring=True)
    models, _ = ctx.chosen(names)
    window = ctx.score_window(names)
    refuse_silent_clips(ctx.corpus.clips, found)  # before the scoring models run
    result = measure_lift(ctx.store, ctx.executor, models, ctx.corpus.clips, found, ls.params,
                          n_boot=ctx.spec.bootstrap, seed=ctx.spec.seed, description=f"audit {ctx.spec.name}: lift",
                          window=window)
    if (note := result.left_out_note(window)) is not None:
        ctx.note(note)
    if result.jobs is None:
        ctx.note("lift: no mined edit can be scored; audio lift not measured")
        return None
    ctx.log_jobs("lift", result.jobs.models)
    by_id = ctx.names_by_id()
    rows, per_model = [], {}
    for rep in result.overall + result.by_kind:
        for side, s in (("r", rep.lift_r), ("a", rep.lift_a)):
            if s.n:
                rows.append(LiftRow(by_id.get(rep.model, rep.model), rep.group, side, finite(s.mean),
                                    bounds(s.interval), s.n, finite(s.share_positive)))
                if rep.group == "all" and side == "r":
                    per_model[by_id.get(rep.model, rep.model)] = (
                        Interval(s.mean, s.interval.low, s.interval.high), s.n)
    table = [{**v.to_json(), "model": by_id.get(v.model, v.model)} for v in result.values]
    return LiftStage(rows, per_model, len(found), len(result.items), table)


# ------------------------------------------------------------------ trigger battery


def battery(ctx: AuditContext, done: AuditResult, planner: MaskPlanner) -> BatteryStage | None:
    bs = ctx.spec.battery
    spec = load_spec(bs.params.spec)
    edits = done.mining.edit_items
    plan = planner(ctx) if bs.params.mask and ctx.spec.masked is not None else MaskPlan([])
    if not edits and not plan.items:
        ctx.note("battery: no mined edits and no masked targets to probe; battery not run")
        return None
    names = ctx.models_named(bs.models)
    models, _ = ctx.chosen(names)
    inputs = BatteryInputs(ctx.corpus, edits, plan.items, mask_texts(ctx), done.mining.said, plan.timings)
    result = measure_battery(ctx.store, ctx.executor, models, inputs, ctx.normalize, bs.params,
                             min_ref_match=ctx.spec.refdis.min_ref_match, n_boot=ctx.spec.bootstrap,
                             seed=ctx.spec.seed, on_condition=lambda name: ctx.log(f"battery {spec.name}: condition {name}"),
                             window=ctx.score_window(names))
    by_id = ctx.names_by_id()
    rows = [BatteryRow(by_id.get(r.model, r.model), r.condition, r.readout, _kind(READOUTS[r.readout]),
                       finite(r.value.estimate), bounds(r.value.interval), r.value.n,
                       finite(r.delta.estimate) if r.delta else None, bounds(r.delta.interval) if r.delta else None)
            for r in result.rows]
    contrasts = [ContrastRow(by_id.get(c.model, c.model), c.readout, c.contrast, _kind(READOUTS[c.readout]),
                             finite(c.did.estimate), bounds(c.did.interval), c.did.n)
                 for c in result.contrasts]
    for note in result.notes:
        ctx.note(f"battery: {note}")
    return BatteryStage(BatteryRowSet(spec.name, [c.name for c in spec.conditions], rows, contrasts,
                                      list(result.notes), result.edits, result.targets))


def _kind(readout_kind: str) -> str:
    """'rate' (a share, shown in %) or 'value' (a mean λ, shown as a number), as the report reads it."""
    return "rate" if readout_kind == "rate" else "value"
