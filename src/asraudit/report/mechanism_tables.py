"""Terminal tables of the mechanism's sweeps and of its by-kind readout (``report.mechanism_rows``)."""

from __future__ import annotations

import sys
from typing import Sequence

from asraudit.report.mechanism_rows import MechanismCurve, MechanismKindRow
from asraudit.report.rows import Bounds
from asraudit.report.tables import fmt_rate, render_table


def _points(value: float | None, interval: Bounds | None) -> str:
    """A paired change in points with its interval, e.g. '-12.5 [-20.1, -3.0]'."""
    if value is None:
        return "–"
    text = f"{100 * value:+.1f}"
    if interval is not None and interval.low is not None and interval.high is not None:
        text += f" [{100 * interval.low:+.1f}, {100 * interval.high:+.1f}]"
    return text


def _rate(x: float | None) -> str:
    return "–" if x is None else fmt_rate(x, 1)


def print_curves(curves: Sequence[MechanismCurve], file=None) -> None:
    """One table per sweep: each point's change next to its random control's, and both WERs."""
    out = file or sys.stdout
    names = {"rank": "k (ablated rank)", "pairs": "learning pairs", "layer": "encoder layer"}
    for c in curves:
        share = "" if c.sweep != "rank" else (f"; k=1 gives {_rate(c.k1_share)} of the largest k's effect"
                                              if c.k1_share is not None else "; k=1 share undefined")
        render_table([names[c.sweep], "Δ pts vs baseline [95% CI]", "random, equal norm", "WER", "random WER",
                      "beats random"],
                     [[p.x, _points(p.delta, p.delta_interval), _points(p.control_delta, p.control_interval),
                       _rate(p.wer), _rate(p.control_wer), "yes" if p.beats_control else "no"] for p in c.points],
                     title=f"{c.experiment}: {c.sweep} sweep (baseline accept-ref {_rate(c.baseline_value)}, "
                           f"WER {_rate(c.baseline_wer)}){share}", file=out)


def print_by_kind(rows: Sequence[MechanismKindRow], file=None) -> None:
    """accept-ref and its paired change per variant and edit kind."""
    if not rows:
        return
    render_table(["experiment", "variant", "kind", "accept-ref", "ref/eligible", "Δ pts vs baseline [95% CI]",
                  "flips to ref/audio"],
                 [[r.experiment, r.variant, r.kind, _rate(r.value), f"{r.n_ref}/{r.n_eligible}",
                   "–" if r.role == "baseline" else _points(r.delta, r.delta_interval),
                   "–" if r.role == "baseline" else f"{r.to_ref}/{r.to_audio}"] for r in rows],
                 title="Mechanism by edit kind (insert: the record omits spoken words; delete: it adds unspoken "
                       "ones)", file=file or sys.stdout)
