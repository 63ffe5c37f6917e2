"""Inline SVG plots for the HTML report: the central scatter and the interval panels.

Plots are drawn as SVG text rather than with a plotting library so the
report stays one self-contained file with no dependency beyond the standard
library, scales without blurring when zoomed or printed, and keeps every
label as text that ``html.escape`` has passed over (model and condition
names come from the user's spec).

Colours are the Okabe–Ito palette: distinguishable with the common forms of
colour blindness, and the same model gets the same colour in every panel.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

PALETTE = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#000000", "#999999")
FLAG_COLOUR = "#b42318"
FONT = 'font-family="system-ui,sans-serif"'


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def finite(value: object) -> float | None:
    """``value`` as a float when it is a finite number, else None (missing, null, NaN, text, bool)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def nice_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    """Round tick values covering [lo, hi], with a step of 1, 2, 2.5 or 5 times a power of ten.

    The axis then ends on a tick, so a reader can read a whisker's end
    against labelled values instead of guessing at an arbitrary maximum.
    """
    if hi < lo:
        lo, hi = hi, lo
    if hi - lo < 1e-12:
        pad = abs(hi) * 0.1 or 0.1
        lo, hi = lo - pad if lo < 0 else lo, hi + pad
    raw = (hi - lo) / max(target, 1)
    magnitude = 10.0 ** math.floor(math.log10(raw))  # a float: an int power of ten grew into ticks no float holds
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw - 1e-15)
    start = math.floor(lo / step + 1e-9) * step
    end = math.ceil(hi / step - 1e-9) * step
    if not math.isfinite(end - start):  # a value within a step of the largest double: the axis ends on it
        return [lo + k * ((hi - lo) / target) for k in range(target + 1)]
    count = int(round((end - start) / step))
    return [round(start + k * step, 12) for k in range(count + 1)]


def tick_label(value: float, step: float, percent: bool) -> str:
    """Enough decimals to tell neighbouring ticks apart, no more."""
    scale = 100 if percent else 1
    if not abs(step * scale) < 1e15:  # beyond what a float counts in units (or infinite): three digits
        return f"{value * scale:.3g}" + ("%" if percent else "")
    decimals = 0
    while decimals < 6 and abs(step * scale * 10 ** decimals - round(step * scale * 10 ** decimals)) > 1e-6:
        decimals += 1
    text = f"{value * scale:.{decimals}f}"
    if text.startswith("-") and float(text) == 0:
        text = text[1:]
    return text + ("%" if percent else "")


@dataclass(frozen=True)
class Axis:
    """A linear axis from a value range onto a pixel range."""

    ticks: list[float]
    pixel_lo: float
    pixel_hi: float

    @property
    def lo(self) -> float:
        return self.ticks[0]

    @property
    def hi(self) -> float:
        return self.ticks[-1]

    def __call__(self, value: float) -> float:
        value = min(max(value, self.lo), self.hi)
        return self.pixel_lo + (value - self.lo) / (self.hi - self.lo) * (self.pixel_hi - self.pixel_lo)


def _y_axis_marks(axis: Axis, x_left: float, x_right: float, percent: bool) -> list[str]:
    step = axis.ticks[1] - axis.ticks[0] if len(axis.ticks) > 1 else 1.0
    parts = []
    for t in axis.ticks:
        y = axis(t)
        stroke = "#888" if t == 0 and axis.lo < 0 else "#eee"
        parts.append(f'<line x1="{x_left}" y1="{y:.1f}" x2="{x_right}" y2="{y:.1f}" stroke="{stroke}"/>')
        parts.append(f'<text x="{x_left - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end">'
                     f"{tick_label(t, step, percent)}</text>")
    return parts


@dataclass(frozen=True)
class ScatterPoint:
    name: str
    x: float
    y: float
    y_lo: float | None = None
    y_hi: float | None = None
    flagged: bool = False


def scatter_svg(points: Sequence[ScatterPoint], x_label: str, y_label: str,
                width: int = 560, height: int = 360) -> str:
    """A labelled scatter of fractions (x and y as 0..1), with the y interval as a whisker.

    Flagged models are drawn in red so the one the audit is about stands
    out; points missing either value are left out (a model that was not
    scored has nothing to place).
    """
    pts = [p for p in points if finite(p.x) is not None and finite(p.y) is not None]
    if not pts:
        return '<p class="muted">No model has both values.</p>'
    pad_l, pad_r, pad_t, pad_b = 56, 110, 14, 44
    x = Axis(nice_ticks(0.0, max(p.x for p in pts)), pad_l, width - pad_r)
    y_top = max(max(p.y for p in pts), max((finite(p.y_hi) or 0.0) for p in pts))
    y = Axis(nice_ticks(0.0, y_top), height - pad_b, pad_t)
    parts = [f'<svg class="scatter" width="{width}" height="{height}" viewBox="0 0 {width} {height}" {FONT} '
             f'role="img" aria-label="{_esc(y_label)} against {_esc(x_label)}">']
    parts += _y_axis_marks(y, pad_l, width - pad_r, percent=True)
    x_step = x.ticks[1] - x.ticks[0]
    for t in x.ticks:
        parts.append(f'<text x="{x(t):.1f}" y="{height - pad_b + 16}" font-size="11" text-anchor="middle">'
                     f"{tick_label(t, x_step, True)}</text>")
    parts.append(f'<line x1="{pad_l}" y1="{height - pad_b}" x2="{width - pad_r}" y2="{height - pad_b}" stroke="#333"/>')
    parts.append(f'<line x1="{pad_l}" y1="{pad_t}" x2="{pad_l}" y2="{height - pad_b}" stroke="#333"/>')
    parts.append(f'<text x="{(width - pad_r + pad_l) / 2:.0f}" y="{height - 6}" font-size="12" '
                 f'text-anchor="middle">{_esc(x_label)}</text>')
    mid = (height - pad_b + pad_t) / 2
    parts.append(f'<text x="14" y="{mid:.0f}" font-size="12" text-anchor="middle" '
                 f'transform="rotate(-90 14 {mid:.0f})">{_esc(y_label)}</text>')
    for p in pts:
        c = FLAG_COLOUR if p.flagged else PALETTE[0]
        px, py = x(p.x), y(p.y)
        lo, hi = finite(p.y_lo), finite(p.y_hi)
        if lo is not None and hi is not None:
            parts.append(f'<line class="whisker" x1="{px:.1f}" y1="{y(lo):.1f}" x2="{px:.1f}" y2="{y(hi):.1f}" '
                         f'stroke="{c}" stroke-opacity=".5" stroke-width="2"/>')
        parts.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="5" fill="{c}"><title>{_esc(p.name)}: '
                     f"{_esc(x_label)} {100 * p.x:.1f}%, {_esc(y_label)} {100 * p.y:.1f}%</title></circle>")
        parts.append(f'<text x="{px + 8:.1f}" y="{py + 4:.1f}" font-size="11" fill="{c}">{_esc(p.name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


@dataclass
class Series:
    """One model in an interval panel: its colour and, per condition, (value, lo, hi, n)."""

    name: str
    colour: str
    points: dict[str, tuple[float | None, float | None, float | None, object]] = field(default_factory=dict)


def _short(label: str, limit: int = 16) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def interval_panel_svg(title: str, conditions: Sequence[str], series: Sequence[Series], percent: bool,
                       width: int = 540, height: int = 280, panel_id: str = "") -> str:
    """One readout across conditions: a point and its interval whisker per model per condition.

    Conditions are categories along x; within a condition the models sit
    side by side in a fixed order, so the same model is always at the same
    offset and its colour can be followed from condition to condition.  A
    rate's axis starts at 0; a mean (audio lift, which can be negative)
    always includes 0, drawn darker, because its sign is the finding.
    """
    values = [v for s in series for p in s.points.values() for v in p[:3] if finite(v) is not None]
    if not conditions or not values:
        return f'<p class="muted">{_esc(title)}: no values.</p>'
    long_labels = max(len(c) for c in conditions) * 6.5 > (width - 120) / len(conditions)
    pad_l, pad_r, pad_t = 56, 12, 26
    pad_b = 78 if long_labels else 36
    lo = 0.0 if percent else min(0.0, min(values))
    hi = max(values) if percent else max(0.0, max(values))
    y = Axis(nice_ticks(lo, hi), height - pad_b, pad_t)
    band = (width - pad_l - pad_r) / len(conditions)
    spread = min(band * 0.7 / max(len(series), 1), 16)
    ident = f' id="{_esc(panel_id)}"' if panel_id else ""
    parts = [f'<svg class="panel"{ident} width="{width}" height="{height}" viewBox="0 0 {width} {height}" {FONT} '
             f'role="img" aria-label="{_esc(title)} by condition">',
             f'<text x="{pad_l}" y="16" font-size="13" font-weight="600">{_esc(title)}</text>']
    parts += _y_axis_marks(y, pad_l, width - pad_r, percent)
    parts.append(f'<line x1="{pad_l}" y1="{pad_t}" x2="{pad_l}" y2="{height - pad_b}" stroke="#333"/>')
    parts.append(f'<line x1="{pad_l}" y1="{height - pad_b}" x2="{width - pad_r}" y2="{height - pad_b}" stroke="#333"/>')
    for i, cond in enumerate(conditions):
        cx = pad_l + band * (i + 0.5)
        ty = height - pad_b + 14
        if long_labels:
            parts.append(f'<text x="{cx:.1f}" y="{ty}" font-size="11" text-anchor="end" '
                         f'transform="rotate(-35 {cx:.1f} {ty})"><title>{_esc(cond)}</title>{_esc(_short(cond))}</text>')
        else:
            parts.append(f'<text x="{cx:.1f}" y="{ty}" font-size="11" text-anchor="middle">{_esc(cond)}</text>')
        for j, s in enumerate(series):
            value, v_lo, v_hi, n = s.points.get(cond, (None, None, None, None))
            if finite(value) is None:
                continue
            px = cx + (j - (len(series) - 1) / 2) * spread
            if finite(v_lo) is not None and finite(v_hi) is not None:
                parts.append(f'<line class="whisker" x1="{px:.1f}" y1="{y(v_lo):.1f}" x2="{px:.1f}" y2="{y(v_hi):.1f}" '
                             f'stroke="{s.colour}" stroke-width="2"/>')
            shown = f"{100 * value:.1f}%" if percent else f"{value:.3f}"
            interval = ""
            if finite(v_lo) is not None and finite(v_hi) is not None:
                interval = (f" [{100 * v_lo:.1f}%, {100 * v_hi:.1f}%]" if percent else f" [{v_lo:.3f}, {v_hi:.3f}]")
            count = f", n={_esc(n)}" if n is not None else ""
            parts.append(f'<circle cx="{px:.1f}" cy="{y(value):.1f}" r="4" fill="{s.colour}">'
                         f"<title>{_esc(s.name)} · {_esc(cond)}: {shown}{interval}{count}</title></circle>")
    parts.append("</svg>")
    return "".join(parts)


def legend_html(names_and_colours: Mapping[str, str]) -> str:
    """A shared colour key for a row of panels (HTML, so long model names wrap)."""
    items = "".join(f'<span class="key"><i style="background:{c}"></i>{_esc(n)}</span>'
                    for n, c in names_and_colours.items())
    return f'<div class="legend">{items}</div>'
