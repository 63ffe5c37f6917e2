"""The HTML report: one self-contained file, readable offline, safe to open.

Everything is inline (CSS, a little JavaScript for the edit browser's
filter, SVG for plots), so the report can be mailed or attached to a model
card and opens without a network.  Every string that came from a corpus or a
model is escaped with ``html.escape`` before it reaches the page, and the
data the script reads is embedded as JSON inside a ``<script
type="application/json">`` block with ``<``, ``>`` and ``&`` escaped as
unicode escapes, so a transcript containing ``</script>`` stays text.

Input is the audit's ``summary.json`` (see ``asraudit.audit``); the layout of
each section is documented at the function that draws it.
"""

from __future__ import annotations

import html
import json
import math
from typing import Iterable, Mapping, Sequence

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
header{background:#1f3b57;color:#fff;padding:18px 28px}
header h1{margin:0;font-size:22px} header p{margin:4px 0 0;opacity:.85}
main{padding:8px 28px 40px;max-width:1200px}
section{background:#fff;border:1px solid #e3e3e3;border-radius:8px;padding:14px 18px;margin:16px 0}
h2{font-size:17px;margin:0 0 10px}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:4px 8px;border-bottom:1px solid #eee;text-align:right;vertical-align:top}
th:first-child,td:first-child{text-align:left}
th{background:#f3f5f7;font-weight:600}
tr.flagged td{background:#fff1f0}
.flag{color:#b42318;font-weight:700}
.muted{color:#777}
.ci{color:#777;font-size:12px}
.edit{border-top:1px solid #eee;padding:8px 0}
.edit .meta{font-size:12px;color:#555}
.hyp{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;margin:2px 0}
mark.r{background:#ffe0b2} mark.a{background:#c8e6c9}
.v-ref{color:#b42318;font-weight:600} .v-audio{color:#1b7f3b;font-weight:600} .v-other{color:#6b5b00}
.v-ineligible{color:#999}
.filters label{margin-right:12px}
.note{font-size:12px;color:#555}
"""

SCRIPT = """
(function(){
  function apply(){
    var want = {};
    document.querySelectorAll('.filters input').forEach(function(cb){ want[cb.value] = cb.checked; });
    var model = document.getElementById('filter-model').value;
    var shown = 0;
    document.querySelectorAll('.edit').forEach(function(div){
      var v = div.getAttribute('data-v-' + model) || 'none';
      var ok = want[v] === true;
      div.style.display = ok ? '' : 'none';
      if (ok) shown++;
    });
    document.getElementById('edit-count').textContent = shown;
  }
  document.querySelectorAll('.filters input, #filter-model').forEach(function(el){ el.addEventListener('change', apply); });
  apply();
})();
"""


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def fmt_pct(value: float | None, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{100 * value:.{digits}f}%"


def fmt_num(value: float | None, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}"


def _ci(ci: Sequence[float] | None, pct: bool = True) -> str:
    if not ci or any(c is None or (isinstance(c, float) and math.isnan(c)) for c in ci):
        return ""
    f = fmt_pct if pct else fmt_num
    return f' <span class="ci">[{f(ci[0])}, {f(ci[1])}]</span>'


def headline_table(models: Mapping[str, Mapping]) -> str:
    """Per model: WER, accept-ref, masked recovery, switch rate, lift, WER gained; flagged rows red."""
    rows = []
    for name, m in models.items():
        flagged = bool(m.get("flagged"))
        reasons = "; ".join(m.get("flag_reasons", []))
        rows.append(
            f'<tr class="{"flagged" if flagged else ""}"><td>{esc(name)}'
            + (f' <span class="flag" title="{esc(reasons)}">⚑ flagged</span>' if flagged else "")
            + f"</td><td>{fmt_pct(m.get('wer'))}{_ci(m.get('wer_ci'))}</td>"
            f"<td>{fmt_pct(m.get('accept_ref'))}{_ci(m.get('accept_ref_ci'))}"
            f' <span class="ci">n={esc(m.get("n_eligible", "–"))}</span></td>'
            f"<td>{fmt_pct(m.get('recovery'))}{_ci(m.get('recovery_ci'))}</td>"
            f"<td>{fmt_num(m.get('switch_rate'), 2)}{_ci(m.get('switch_rate_ci'), pct=False)}</td>"
            f"<td>{fmt_num(m.get('lift'), 3)}{_ci(m.get('lift_ci'), pct=False)}</td>"
            f"<td>{fmt_pct(m.get('wer_gained'), 2)}{_ci(m.get('wer_gained_ci'))}</td></tr>"
        )
    return (
        '<table id="headline"><thead><tr><th>model</th><th>WER</th><th>accept-ref</th><th>masked recovery</th>'
        "<th>switch rate</th><th>audio lift λ(r)</th><th>WER gained by echoing</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )


def _nice_max(value: float) -> float:
    """The smallest of 5%, 10%, 20%, 25%, 50%, 100% (or a multiple of 100%) above ``value``: round tick labels."""
    for top in (0.05, 0.1, 0.2, 0.25, 0.4, 0.5, 0.8, 1.0):
        if value * 1.05 <= top:
            return top
    return math.ceil(value * 1.05)


def scatter_svg(points: Sequence[tuple[str, float, float, bool]], x_label: str, y_label: str,
                width: int = 560, height: int = 360) -> str:
    """A labelled scatter plot in SVG: (name, x, y, flagged) with x and y as fractions."""
    pts = [(n, x, y, f) for n, x, y, f in points if x == x and y == y and x is not None and y is not None]
    pad_l, pad_r, pad_t, pad_b = 56, 20, 16, 44
    if not pts:
        return '<p class="muted">No model has both values.</p>'
    xmax = _nice_max(max(p[1] for p in pts))
    ymax = _nice_max(max(p[2] for p in pts))

    def sx(v):
        return pad_l + v / xmax * (width - pad_l - pad_r)

    def sy(v):
        return height - pad_b - v / ymax * (height - pad_t - pad_b)

    parts = [f'<svg class="scatter" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
             f'role="img" aria-label="{esc(y_label)} against {esc(x_label)}">']
    parts.append(f'<line x1="{pad_l}" y1="{height - pad_b}" x2="{width - pad_r}" y2="{height - pad_b}" stroke="#333"/>')
    parts.append(f'<line x1="{pad_l}" y1="{pad_t}" x2="{pad_l}" y2="{height - pad_b}" stroke="#333"/>')
    for k in range(5):
        xv, yv = xmax * k / 4, ymax * k / 4
        parts.append(f'<text x="{sx(xv):.1f}" y="{height - pad_b + 16}" font-size="11" text-anchor="middle">{100 * xv:.0f}%</text>')
        parts.append(f'<text x="{pad_l - 6}" y="{sy(yv) + 4:.1f}" font-size="11" text-anchor="end">{100 * yv:.0f}%</text>')
    parts.append(f'<text x="{(width + pad_l) / 2:.0f}" y="{height - 6}" font-size="12" text-anchor="middle">{esc(x_label)}</text>')
    parts.append(f'<text x="14" y="{(height - pad_b) / 2:.0f}" font-size="12" text-anchor="middle" '
                 f'transform="rotate(-90 14 {(height - pad_b) / 2:.0f})">{esc(y_label)}</text>')
    for name, x, y, flagged in pts:
        color = "#b42318" if flagged else "#1f6feb"
        parts.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="5" fill="{color}"><title>{esc(name)}</title></circle>')
        parts.append(f'<text x="{sx(x) + 7:.1f}" y="{sy(y) - 6:.1f}" font-size="11">{esc(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def generic_table(columns: Sequence[str], rows: Iterable[Sequence[object]], table_id: str = "") -> str:
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows)
    ident = f' id="{esc(table_id)}"' if table_id else ""
    return f"<table{ident}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def by_kind_table(by_kind: Mapping[str, Mapping[str, Mapping]]) -> str:
    """accept-ref per model and edit kind, as 'rate (n_ref/n_eligible)'."""
    kinds = sorted({k for per in by_kind.values() for k in per})
    rows = []
    for model, per in by_kind.items():
        cells = []
        for k in kinds:
            v = per.get(k)
            cells.append("–" if not v else f"{fmt_pct(v.get('rate'))} ({v.get('n_ref', 0)}/{v.get('n_eligible', 0)})")
        rows.append([model] + cells)
    return generic_table(["model"] + kinds, rows, "by-kind")


def _highlight(tokens: Sequence[str], start: int, end: int, cls: str) -> str:
    before = " ".join(tokens[:start])
    span = " ".join(tokens[start:end])
    after = " ".join(tokens[end:])
    middle = f'<mark class="{cls}">{esc(span) if span else "∅"}</mark>'
    return " ".join(p for p in (esc(before), middle, esc(after)) if p)


def edit_browser(edits: Sequence[Mapping], models: Sequence[str]) -> str:
    """Each edit: the reference with the disputed span, the panel's rendering, every model's words there.

    A checkbox per verdict and a model selector filter the list (the only script in the page).
    """
    options = "".join(f'<option value="{esc(_slug(m))}">{esc(m)}</option>' for m in models)
    boxes = "".join(
        f'<label><input type="checkbox" value="{v}" checked> {v}</label>' for v in ("ref", "audio", "other", "ineligible", "none")
    )
    items = []
    for e in edits:
        tokens = e.get("ref_tokens") or str(e.get("reference", "")).split()
        start, end = e.get("span", [0, 0])
        attrs = " ".join(
            f'data-v-{esc(_slug(m))}="{esc(v.get("verdict", "none"))}"' for m, v in e.get("models", {}).items()
        )
        lines = []
        for m in models:
            v = e.get("models", {}).get(m)
            if not v:
                continue
            verdict = v.get("verdict", "none")
            lines.append(f'<div class="hyp"><span class="v-{esc(verdict)}">[{esc(verdict)}]</span> '
                         f'<b>{esc(m)}</b>: {esc(v.get("text", ""))}</div>')
        items.append(
            f'<div class="edit" {attrs}><div class="meta">clip <b>{esc(e.get("clip", ""))}</b> · {esc(e.get("kind", ""))}'
            f' · {esc(e.get("position", ""))} · r = “{esc(e.get("r", ""))}” → a = “{esc(e.get("a", ""))}”</div>'
            f'<div class="hyp">reference: {_highlight(tokens, start, end, "r")}</div>'
            f'<div class="hyp">panel: <mark class="a">{esc(e.get("a", "") or "∅")}</mark></div>'
            + "".join(lines)
            + "</div>"
        )
    return (
        f'<div class="filters">model <select id="filter-model">{options}</select> verdict {boxes} '
        f'<span class="note"><span id="edit-count">{len(edits)}</span> shown</span></div>'
        f'<div id="edits">{"".join(items)}</div>'
    )


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in name.lower())


def render_report(summary: Mapping) -> str:
    """The whole page from an audit summary."""
    models = summary.get("models", {})
    sections = []
    sections.append(("Headline", headline_table(models)
                     + '<p class="note">accept-ref = ref / (ref + audio) over mined reference errors, Wilson 95% interval; '
                       "switch rate chance = 0.5; λ(r) per character, &gt; 0 means the audio raised the reference's likelihood.</p>"))
    points = [(n, m.get("wer"), m.get("accept_ref"), bool(m.get("flagged"))) for n, m in models.items()]
    sections.append(("WER against accept-ref", scatter_svg(points, "WER", "accept-ref")))
    if summary.get("accept_ref_by_kind"):
        sections.append(("accept-ref by edit kind", by_kind_table(summary["accept_ref_by_kind"])))
    if summary.get("mining"):
        m = summary["mining"]
        rows = [[k, v.get("planted", "–"), v.get("mined", "–"), v.get("matched", "–"), fmt_pct(v.get("precision")),
                 fmt_pct(v.get("recall"))] for k, v in m.items()]
        sections.append(("Mining against planted truth",
                         generic_table(["kind", "planted", "mined", "matched", "precision", "recall"], rows, "mining")))
    if summary.get("battery"):
        rows = [[b.get("model"), b.get("condition"), b.get("metric"), fmt_pct(b.get("value")),
                 f"[{fmt_pct(b.get('lo'))}, {fmt_pct(b.get('hi'))}]", fmt_pct(b.get("delta"))] for b in summary["battery"]]
        sections.append(("Trigger battery", generic_table(["model", "condition", "metric", "value", "95% CI", "Δ vs original"], rows, "battery")))
    if summary.get("mechanism"):
        rows = [[r.get("experiment"), r.get("model"), r.get("intervention"), r.get("metric"), fmt_pct(r.get("value")),
                 f"[{fmt_pct(r.get('lo'))}, {fmt_pct(r.get('hi'))}]", fmt_pct(r.get("control"))] for r in summary["mechanism"]]
        sections.append(("Steering and patching", generic_table(
            ["experiment", "model", "intervention", "metric", "value", "95% CI", "random-direction control"], rows, "mechanism")))
    edits = summary.get("edits", [])
    sections.append((f"Edit browser ({len(edits)} edits)", edit_browser(edits, list(models))))
    prov = summary.get("provenance", {})
    sections.append(("Provenance", "<pre>" + esc(json.dumps(prov, indent=2, ensure_ascii=False, default=str)) + "</pre>"))
    body = "".join(f'<section id="{_slug(t)}"><h2>{esc(t)}</h2>{content}</section>' for t, content in sections)
    data = json.dumps({"models": list(models)}, ensure_ascii=False)
    data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    title = esc(summary.get("title", "asraudit report"))
    subtitle = esc(summary.get("subtitle", ""))
    return (
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title}</title>"
        f"<style>{CSS}</style></head><body><header><h1>{title}</h1><p>{subtitle}</p></header><main>{body}</main>"
        f'<script type="application/json" id="report-data">{data}</script>'
        f"<script>{SCRIPT}</script></body></html>"
    )
