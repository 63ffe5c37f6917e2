"""Rates and intervals of the paper's published counts, recomputed with asraudit's own statistics.

The release gives counts beside its rates.  Recomputing every rate and
interval from the counts (``stats.wilson``, the interval asraudit prints for
its own accept-ref and switch rates) shows the published number is the
arithmetic of its counts, and puts it on exactly the footing of a number an
audit measures.
"""

from __future__ import annotations

from dataclasses import dataclass

from asraudit.data.published import PublishedAcceptRef, PublishedSwitch
from asraudit.metrics.stats import Interval, wilson


@dataclass(frozen=True)
class AcceptRefFromCounts:
    row: PublishedAcceptRef
    accept_ref: Interval  # ref / (ref + audio), Wilson


@dataclass(frozen=True)
class SwitchFromCounts:
    row: PublishedSwitch
    limiting_arm: str
    switch: Interval      # the lowest arm's hits / n, Wilson on that arm


def accept_ref_of(row: PublishedAcceptRef) -> AcceptRefFromCounts:
    return AcceptRefFromCounts(row, wilson(row.ref, row.ref + row.audio))


def switch_of(row: PublishedSwitch) -> SwitchFromCounts:
    """The switch rate is the minimum over arms of P(model writes the arm | reference uses it); an arm
    without occurrences says nothing and is skipped.  Ties keep the first arm in the file's order."""
    rates = {arm: a.hits / a.n for arm, a in row.arms.items() if a.n > 0}
    if not rates:
        return SwitchFromCounts(row, row.limiting_arm, Interval(float("nan"), 0.0, 1.0, 0.95, "wilson"))
    arm = min(rates, key=lambda k: rates[k])
    return SwitchFromCounts(row, arm, wilson(row.arms[arm].hits, row.arms[arm].n))
