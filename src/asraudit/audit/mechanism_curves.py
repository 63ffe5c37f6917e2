"""Curves and by-kind rows from one experiment's readout (pure: no model runs here).

A sweep's points are variants of one experiment, so every point is a paired
change against the same baseline on the same edits, next to its random
control's; ``beats_control`` is the strict reading: the intervention's
interval is on the effect's side of zero *and* of the control's interval, so
a control that does as much (a direction of that norm breaks anything) sinks
the point.

The share of the full effect that k = 1 gives is delta(k = 1) / delta(K)
for the largest ablated rank K.  It is left undefined (None) when the full
effect is zero or goes the wrong way, where a ratio would mean nothing.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from asraudit.mechanism.experiment import Readout
from asraudit.mechanism.paired import paired_deltas
from asraudit.metrics.stats import Interval, wilson
from asraudit.report.mechanism_rows import CurvePoint, MechanismCurve, MechanismKindRow
from asraudit.report.rows import bounds, finite
from asraudit.probes.refdis import KINDS


def _delta_bounds(d) -> object:
    return bounds(Interval(d.delta, d.low, d.high, 0.95, "bootstrap")) if d.n else None


def _beats(sign: int, d, c) -> bool:
    """The intervention's interval lies beyond zero and beyond the control's interval, in the direction ``sign``."""
    if d is None or not d.n or d.low != d.low or d.high != d.high:
        return False
    if sign < 0:
        clears_zero = d.high < 0
        clears_control = c is None or not c.n or (c.low == c.low and d.high < c.low)
    else:
        clears_zero = d.low > 0
        clears_control = c is None or not c.n or (c.high == c.high and d.low > c.high)
    return clears_zero and clears_control and c is not None and bool(c.n)


def sweep_curve(readout: Readout, experiment: str, model: str, sweep: str, action: str,
                points: Sequence[tuple[int, str, str]]) -> MechanismCurve:
    """``points``: (x, intervention label, control label), in the sweep's order."""
    sign = -1 if action == "ablate" else 1
    wers = {r.label: (None if r.wer is None else finite(r.wer.rate)) for r in readout.variants}
    base = readout.baseline
    out = MechanismCurve(experiment, model, sweep, action, sign,
                         None if base.accept is None else finite(base.accept.rate), wers.get(base.label))
    for x, label, control in points:
        d, c = readout.deltas.get(label), readout.deltas.get(control)
        out.points.append(CurvePoint(
            x=x, variant=label,
            delta=None if d is None else finite(d.delta), delta_interval=None if d is None else _delta_bounds(d),
            delta_n=None if d is None else d.n,
            control_delta=None if c is None else finite(c.delta),
            control_interval=None if c is None else _delta_bounds(c),
            wer=wers.get(label), control_wer=wers.get(control), beats_control=_beats(sign, d, c)))
    if sweep == "rank":
        out.k1_share = k1_share(out)
    return out


def k1_share(curve: MechanismCurve) -> float | None:
    """delta(k = 1) / delta(largest k), when the largest k moved accept-ref the intended way."""
    by_k = {p.x: p.delta for p in curve.points}
    if 1 not in by_k or len(by_k) < 2:
        return None
    full, first = by_k[max(by_k)], by_k[1]
    if full is None or first is None or curve.sign * full <= 0:
        return None
    return first / full


def by_kind_rows(readout: Readout, experiment: str, model: str, *, n_boot: int = 1000,
                 seed: int = 0) -> list[MechanismKindRow]:
    """Each variant's accept-ref and paired change on the edits of each kind (kinds without edits left out)."""
    rows = []
    base = readout.baseline.label
    labels = [r.label for r in readout.variants]
    for kind in KINDS:
        edits = [e for e in readout.edits if e.kind == kind]
        if not edits:
            continue
        deltas = paired_deltas(edits, base, labels, n_boot=n_boot, seed=seed)
        for r in readout.variants:
            verdicts = Counter(e.verdicts.get(r.label) for e in edits)
            n_ref, n_eligible = verdicts["ref"], verdicts["ref"] + verdicts["audio"]
            rate = wilson(n_ref, n_eligible)
            d = deltas[r.label]
            is_base = r.role == "baseline"
            rows.append(MechanismKindRow(
                experiment=experiment, model=model, variant=r.label, role=r.role, kind=kind,
                value=finite(rate.estimate) if n_eligible else None,
                value_interval=bounds(rate) if n_eligible else None, n_ref=n_ref, n_eligible=n_eligible,
                delta=None if is_base else finite(d.delta), delta_interval=None if is_base else _delta_bounds(d),
                delta_n=d.n, to_ref=d.to_ref, to_audio=d.to_audio))
    return rows
