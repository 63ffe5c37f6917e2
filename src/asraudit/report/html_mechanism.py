"""The report page's tables of the mechanism's sweeps and its by-kind readout (``report.mechanism_rows``).

Each sweep point shows its paired change next to its random control's and
both WERs, so an effect that a random direction shares, or that is bought by
breaking transcription, is visible on the page as in the terminal tables.
"""

from __future__ import annotations

from typing import Sequence

from asraudit.report.html_parts import delta_cell, ends, esc, fmt_pct, table, value_cell
from asraudit.report.mechanism_rows import MechanismCurve, MechanismKindRow

AXIS = {"rank": "k (ablated rank)", "pairs": "learning pairs", "layer": "encoder layer"}


def curves_html(curves: Sequence[MechanismCurve] | None) -> str:
    parts = []
    for c in curves or []:
        share = "" if c.sweep != "rank" else (f"; k = 1 gives {fmt_pct(c.k1_share)} of the largest k's effect"
                                              if c.k1_share is not None else "; k = 1 share undefined")
        body = [[p.x, delta_cell(p.delta, *ends(p.delta_interval), rate=True),
                 delta_cell(p.control_delta, *ends(p.control_interval), rate=True), fmt_pct(p.wer),
                 fmt_pct(p.control_wer), "yes" if p.beats_control else "no"] for p in c.points]
        parts.append(f"<h3>{esc(c.experiment)}: {esc(c.sweep)} sweep</h3><p class=\"sub\">baseline accept-ref "
                     f"{esc(fmt_pct(c.baseline_value))}, WER {esc(fmt_pct(c.baseline_wer))}{esc(share)}</p>"
                     + table([AXIS.get(c.sweep, c.sweep), "Δ vs baseline", "random, equal norm", "WER", "random WER",
                              "beats random"], body, f"curve-{c.sweep}"))
    return "".join(parts)


def by_kind_html(rows: Sequence[MechanismKindRow] | None) -> str:
    if not rows:
        return ""
    body = [[r.experiment, r.variant, r.kind, value_cell(r.value, *ends(r.value_interval)),
             f"{r.n_ref}/{r.n_eligible}", "" if r.role == "baseline" else delta_cell(r.delta, *ends(r.delta_interval),
                                                                                     rate=True)] for r in rows]
    return ("<h3>By edit kind</h3>" + table(["experiment", "variant", "kind", "accept-ref", "ref/eligible",
                                             "Δ vs baseline"], body, "mechanism-by-kind", wide=True))


def mechanism_extras(summary) -> str:
    """A summary's sweeps and by-kind table, after the mechanism table (nothing when neither was run)."""
    return curves_html(summary.mechanism_curves) + by_kind_html(summary.mechanism_by_kind)
