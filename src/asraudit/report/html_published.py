"""The report's "Published reference points" section: audited models on the paper's own chart and table.

When an audit matches a published set (``audit.published``), its models'
accept-ref is drawn on one axis with the release's models, each with its
Wilson interval, so a reader sees where the audited models fall among the
39–44 published ones.  The same for the release's switch-rate groups
(``audit.published_switch``): a group measured like the audit's conventions
stage is drawn with the audited models' switch rates; one that was not is
named with the settings that differ, and nothing is drawn.  Published rows
are marked as such everywhere (legend, point title, table column): they come
from the release's counts and were not re-measured by this audit.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from asraudit.report.html_parts import Markup, esc, table, value_cell
from asraudit.report.published_rows import PUBLISHED_NOTE, PublishedComparison, PublishedSwitchComparison
from asraudit.report.rows import ModelRow
from asraudit.report.svg import FONT, PALETTE, finite

AUDITED_COLOUR = PALETTE[5]
PUBLISHED_COLOUR = PALETTE[7]


def _points(comparison: PublishedComparison, models: Mapping[str, ModelRow]) -> list[tuple]:
    """(label, source, accept-ref, low, high, n_ref, n_eligible), audited first, then by accept-ref."""
    audited = [(name, "audited", m.accept_ref, getattr(m.accept_ref_interval, "low", None),
                getattr(m.accept_ref_interval, "high", None), m.n_ref, m.n_eligible)
               for name, m in models.items() if finite(m.accept_ref) is not None]
    published = [(r.model, PUBLISHED_NOTE, r.accept_ref, r.accept_ref_interval.low, r.accept_ref_interval.high,
                  r.n_ref, r.n_eligible) for r in comparison.rows if finite(r.accept_ref) is not None]
    return sorted(audited + published, key=lambda p: -p[2])


def _chart(title: str, points: Sequence[tuple], width: int = 620) -> str:
    """A dot-and-whisker chart, one row per model, accept-ref on a 0–100% axis."""
    row, pad_l, pad_r, pad_t = 14, 210, 16, 30
    height = pad_t + row * len(points) + 24
    span = width - pad_l - pad_r

    def x(v: float) -> float:
        return pad_l + span * max(0.0, min(1.0, v))

    parts = [f'<svg class="panel published-chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
             f'{FONT} role="img" aria-label="{esc(title)}">',
             f'<text x="{pad_l}" y="16" font-size="13" font-weight="600">{esc(title)}</text>']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(f'<line x1="{x(tick):.1f}" y1="{pad_t - 6}" x2="{x(tick):.1f}" y2="{height - 20}" '
                     'stroke="#ddd"/>')
        parts.append(f'<text x="{x(tick):.1f}" y="{height - 6}" font-size="11" text-anchor="middle">'
                     f'{int(tick * 100)}%</text>')
    for i, (label, source, value, lo, hi, n_ref, n_elig) in enumerate(points):
        y = pad_t + row * i + row / 2
        c = AUDITED_COLOUR if source == "audited" else PUBLISHED_COLOUR
        weight = ' font-weight="700"' if source == "audited" else ""
        parts.append(f'<text x="{pad_l - 8}" y="{y + 4:.1f}" font-size="11" text-anchor="end" fill="{c}"{weight}>'
                     f"{esc(label)}</text>")
        if finite(lo) is not None and finite(hi) is not None:
            parts.append(f'<line x1="{x(lo):.1f}" y1="{y:.1f}" x2="{x(hi):.1f}" y2="{y:.1f}" stroke="{c}" '
                         'stroke-width="2"/>')
        parts.append(f'<circle class="{"audited" if source == "audited" else "published"}" cx="{x(value):.1f}" '
                     f'cy="{y:.1f}" r="4" fill="{c}"><title>{esc(label)} ({esc(source)}): {100 * value:.1f}%, '
                     f"n={esc(n_ref)}/{esc(n_elig)}</title></circle>")
    parts.append("</svg>")
    return "".join(parts)


def published_section(comparisons: Sequence[PublishedComparison] | None, models: Mapping[str, ModelRow],
                      switches: Sequence[PublishedSwitchComparison] | None = None) -> str:
    """The section's markup: per matching set, the chart and the table, then the switch-rate groups;
    '' when the spec names no release."""
    if comparisons is None and switches is None:
        return ""
    return accept_ref_section(comparisons or [], models) + switch_section(switches or [])


def accept_ref_section(comparisons: Sequence[PublishedComparison], models: Mapping[str, ModelRow]) -> str:
    if not comparisons:
        return ('<p class="muted">No published set matches this audit\'s corpus, panel and miner settings '
                "(see the notes under Provenance).</p>")
    out = []
    for c in comparisons:
        points = _points(c, models)
        settings = ", ".join(f"{k} {v}" for k, v in c.settings.items())
        out.append(f"<h3>{esc(c.name)}: {esc(c.corpus)}</h3>"
                   f'<p class="note">Panel {esc(", ".join(c.panel))}; miner settings {esc(settings)}; '
                   f"from {esc(c.source)}. Orange, bold: measured by this audit; grey: {esc(PUBLISHED_NOTE)} "
                   "(the release's counts with asraudit's Wilson 95% interval).</p>")
        out.append(_chart(f"accept-ref: this audit and the published {c.name}", points))
        rows, classes = [], []
        for label, source, value, lo, hi, n_ref, n_elig in points:
            rows.append([label, Markup(f"<b>{esc(source)}</b>") if source == "audited" else source,
                         value_cell(value, lo, hi, extra=f"n={esc(n_ref)}/{esc(n_elig)}")])
            classes.append("audited" if source == "audited" else "published")
        out.append(table(["model", "source", "accept-ref"], rows, f"published-{esc(c.name)}", classes))
    return "".join(out)


def switch_section(switches: Sequence[PublishedSwitchComparison]) -> str:
    """Per published switch group: the chart and table with the audited models when comparable, else the
    settings that differ."""
    out = []
    for c in switches:
        head = (f"<h3>switch rate {esc(c.name)}: {esc(c.scope)}</h3>"
                f'<p class="note">Arms {esc(", ".join(c.arms))}; min_per_arm {esc(c.min_per_arm)}; chance '
                f"{esc(c.chance)}; from {esc(c.source)}.")
        if c.differs:
            items = "".join(f"<li>{esc(d)}</li>" for d in c.differs)
            out.append(head + " Not drawn beside this audit, because these settings differ:</p>"
                       f'<ul class="published-differs">{items}</ul>')
            continue
        points = [(r.model, r.source, r.switch, getattr(r.switch_interval, "low", None),
                   getattr(r.switch_interval, "high", None), r.hits, r.n)
                  for r in c.rows if finite(r.switch) is not None]
        out.append(head + f" This audit's group {esc(c.audit_group)} was measured the same way. Orange, bold: measured by this "
                   f"audit; grey: {esc(PUBLISHED_NOTE)} (the release's counts with asraudit's Wilson 95% interval on "
                   "the limiting arm).</p>")
        out.append(_chart(f"switch rate {c.name}: this audit and the published group", points))
        rows, classes = [], []
        for r in c.rows:
            extra = f"{esc(r.limiting_arm)} {esc(r.hits)}/{esc(r.n)}" if r.limiting_arm else esc(r.note)
            low, high = getattr(r.switch_interval, "low", None), getattr(r.switch_interval, "high", None)
            rows.append([r.model, Markup(f"<b>{esc(r.source)}</b>") if r.source == "audited" else r.source,
                         value_cell(r.switch, low, high, extra=extra)])
            classes.append("audited" if r.source == "audited" else "published")
        out.append(table(["model", "source", "switch rate"], rows, f"published-switch-{esc(c.name)}", classes))
    return "".join(out)
