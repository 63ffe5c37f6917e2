"""Each audit stage's time split into model calls and the audit's own overhead (summary.json's ``timing``).

A leaderboard maintainer reruns an audit after every submission; the models
are the cost that cannot be avoided, everything else (the store, planning,
normalizing, readouts, the report) is the audit's own and should be a small
share of the total.  A ``StageClock`` started before a stage reads the wall
clock, this process's CPU clock and the model clock
(``asraudit.model_clock``, fed by every place that calls a model); stopping
it gives the stage's ``StageTiming``.
"""

from __future__ import annotations

import time

from asraudit.model_clock import model_seconds
from asraudit.report.summary import AuditTiming, StageTiming


class StageClock:
    """Started at construction; ``stop()`` returns the time since, split into model time and overhead."""

    def __init__(self):
        self._wall = time.perf_counter()
        self._cpu = time.process_time()
        self._model = model_seconds()

    def stop(self) -> StageTiming:
        model = model_seconds()
        return stage_timing(time.perf_counter() - self._wall, model.wall - self._model.wall,
                            time.process_time() - self._cpu, model.cpu - self._model.cpu)


def stage_timing(wall: float, model: float, cpu: float, model_cpu: float) -> StageTiming:
    """Rounded to the millisecond (the share to 0.1%: finer is noise from run to run)."""
    model = min(model, wall)  # both clocks are read once per side; never report more model time than wall time
    overhead = wall - model
    share = round(overhead / wall, 3) if wall > 0 else None
    return StageTiming(round(wall, 3), round(model, 3), round(overhead, 3), share, round(cpu, 3),
                       round(min(model_cpu, cpu), 3))


def audit_timing(stages: dict[str, StageTiming]) -> AuditTiming:
    """The stages and their sum (the share of the sum, not the mean of the shares)."""
    wall = sum(t.wall_s for t in stages.values())
    model = sum(t.model_s for t in stages.values())
    total = stage_timing(wall, model, sum(t.cpu_s for t in stages.values()),
                         sum(t.model_cpu_s for t in stages.values()))
    return AuditTiming(dict(stages), total)
