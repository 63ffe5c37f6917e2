"""Audio lift at mined edits, once: run the teacher-forced scores, read λ(r) and λ(a), summarize.

``asraudit lift`` and the audit's lift stage call :func:`measure_lift` and
render what it returns (overall and per kind of edit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED
from asraudit.models.candidate_check import ScoreWindow
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
    # edits left out because their clip is longer than a scoring model's window, and those clips (id -> seconds)
    too_long: int = 0
    too_long_clips: dict[str, float] = field(default_factory=dict)

    def left_out_note(self, window: ScoreWindow | None, what: str = "lift") -> str | None:
        """The line saying which edits the window left out (None: none were)."""
        if window is None or not self.too_long:
            return None
        return (f"{what}: {self.too_long} edit(s) left out of the likelihood readouts: they are on "
                f"{window.reason(self.too_long_clips)}")


def measure_lift(store, executor, models: Sequence, clips: Sequence, items: Sequence[EditItem],
                 params: LiftParams = LiftParams(), *, n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED,
                 description: str = "lift", window: ScoreWindow | None = None) -> LiftResult:
    """Score every (capped) edit with every model through the store and summarize λ per model.

    ``window`` (``models.candidate_check.score_window`` of the models): edits on longer clips are left out,
    before the cap, and counted in the result."""
    wanted = {i.clip_id for i in items}
    long_clips = window.too_long(c for c in clips if c.id in wanted) if window is not None else {}
    scorable = [i for i in items if i.clip_id not in long_clips]
    left_out = len(items) - len(scorable)
    chosen = sample(scorable, lambda e: e.edit_id, params.max_edits, seed)
    if not chosen:
        return LiftResult(len(items), [], [], [], [], None, left_out, long_clips)
    jobs = run_lift(store, executor, models, clips, chosen, description=description)
    values = read_lift(store, jobs.identities, chosen)
    overall = summarize_edit_lift(values, n_boot=n_boot, seed=seed)
    by_kind = summarize_edit_lift(values, by=lambda i: i.kind, n_boot=n_boot, seed=seed)
    return LiftResult(len(items), chosen, values, overall, by_kind, jobs, left_out, long_clips)
