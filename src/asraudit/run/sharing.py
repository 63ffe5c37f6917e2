"""Sharing a grid with concurrent runs: claim before computing, wait for what others compute.

Two ``asraudit`` processes pointed at one store (four ``transcribe`` runs
into one ``--out``, an audit restarted while the first is still running)
would otherwise both compute every job and race on the same rows.  Both
executors call ``claim_units`` on each unit before its model call: the part
this run claimed is computed here, the part another live run holds is set
aside, and ``wait_for_others`` collects it at the end: jobs the other run
stored count as done, jobs whose owner died are claimed and computed here.
See ``asraudit.run.claims`` for how a dead owner is recognised.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from typing import Callable, Sequence

from asraudit.terminal_text import note

# How often a run that waits for another run's jobs looks at the store again.
POLL_SECONDS = 0.5


def _subset(unit, keep: Callable[[str], bool]):
    """The unit restricted to the jobs whose key ``keep`` accepts (None when none is left)."""
    pairs = [(c, j) for c, j in zip(unit.clips, unit.jobs) if keep(j.key)]
    if not pairs:
        return None
    if len(pairs) == len(unit.jobs):
        return unit
    return dataclasses.replace(unit, clips=tuple(c for c, _ in pairs), jobs=tuple(j for _, j in pairs))


def claim_units(store, units: Sequence) -> tuple[list, list]:
    """Claim the jobs of ``units``; returns (the units' parts to compute here, the parts another run
    holds or has stored meanwhile), the latter for ``wait_for_others`` to collect and count."""
    keys = [j.key for u in units for j in u.jobs]
    if not keys:
        return [], []
    mine = store.claim(keys)
    ours = [s for s in (_subset(u, mine.__contains__) for u in units) if s is not None]
    theirs = [s for s in (_subset(u, lambda k: k not in mine) for u in units) if s is not None]
    return ours, theirs


def wait_for_others(store, summary, deferred: list, run_units: Callable[[list], list],
                    poll: float = POLL_SECONDS) -> None:
    """Wait until every job in ``deferred`` is stored, computing those whose claimant died.

    ``run_units(units)`` claims and computes what it can of ``units`` and returns the parts still
    held by others.  Jobs another run stored are added to ``jobs_by_others`` of the summary and
    of each model's stats (deferred jobs not computed here were computed there)."""
    waiting = [0] * len(summary.models)
    for u in deferred:
        waiting[u.model_index] += len(u.jobs)
    ran_before = [m.jobs_run for m in summary.models]
    announced = False
    while deferred:
        done = store.done_keys(j.key for u in deferred for j in u.jobs)
        pending = [s for s in (_subset(u, lambda k: k not in done) for u in deferred) if s is not None]
        if not pending:
            break
        if not announced:
            n = sum(len(u.jobs) for u in pending)
            note(f"{n} job(s) are being computed by another run into {store.path}; waiting for them instead of "
                 "computing them twice")
            sys.stderr.flush()
            announced = True
        still: list = []
        for unit in pending:  # one unit at a time: its audio is decoded only if this run computes it
            still.extend(run_units([unit]))
        if sum(len(u.jobs) for u in still) == sum(len(u.jobs) for u in pending):
            time.sleep(poll)  # nothing could be taken over: the other run is alive and working
        deferred = still
    for m, stats in enumerate(summary.models):
        by_others = waiting[m] - (stats.jobs_run - ran_before[m])
        stats.jobs_by_others += by_others
        summary.jobs_by_others += by_others
