"""Audio lift at mined edits, once: run the teacher-forced scores, read λ(r) and λ(a), summarize.

``asraudit lift`` and the audit's lift stage call :func:`measure_lift` and
render what it returns (overall and per kind of edit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED
from asraudit.probes.lift_run import EditItem, EditLift, LiftReport, read_lift, run_lift, summarize_edit_lift
from asraudit.probes.sampling import sample


@dataclass(frozen=True)
class LiftParams:
    """Knobs of audio lift at edits (the audit spec's ``[lift]``)."""

    # cap on edits scored (a seeded sample, see probes.sampling): two teacher-forced passes per edit and model
    max_edits: int | None = field(default=None, metadata={"minimum": 1})


@dataclass(frozen=True)
class LiftResult:
    found: int                      # edits offered before the cap
    items: list[EditItem]           # edits scored
    values: list[EditLift]          # λ(r), λ(a) per model and edit
    overall: list[LiftReport]       # per model, all edits
    by_kind: list[LiftReport]       # per model and kind of edit
    jobs: object                    # the executor's summary


def measure_lift(store, executor, models: Sequence, clips: Sequence, items: Sequence[EditItem],
                 params: LiftParams = LiftParams(), *, n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED,
                 description: str = "lift") -> LiftResult:
    """Score every (capped) edit with every model through the store and summarize λ per model."""
    chosen = sample(items, lambda e: e.edit_id, params.max_edits, seed)
    if not chosen:
        return LiftResult(len(items), [], [], [], [], None)
    jobs = run_lift(store, executor, models, clips, chosen, description=description)
    values = read_lift(store, jobs.identities, chosen)
    overall = summarize_edit_lift(values, n_boot=n_boot, seed=seed)
    by_kind = summarize_edit_lift(values, by=lambda i: i.kind, n_boot=n_boot, seed=seed)
    return LiftResult(len(items), chosen, values, overall, by_kind, jobs)
