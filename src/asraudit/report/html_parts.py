"""The report's building blocks: its CSS and script, escaping, formatted cells and tables.

Every string that reaches the page goes through :func:`esc` (or is a
:class:`Markup` built from escaped parts); :func:`table` marks numeric
columns so they align right.  ``report.html`` assembles the sections from
these.
"""

from __future__ import annotations

import html
import re
from typing import Iterable, Sequence

from asraudit.report.svg import finite
from asraudit.report.templating import asset

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
header{background:#1f3b57;color:#fff;padding:18px 28px}
header h1{margin:0;font-size:22px} header p{margin:4px 0 0;opacity:.85}
nav{padding:8px 28px;background:#eef2f6;font-size:13px} nav a{margin-right:12px;color:#1f3b57}
main{padding:8px 28px 40px;max-width:1200px}
section{background:#fff;border:1px solid #e3e3e3;border-radius:8px;padding:14px 18px;margin:16px 0;overflow-x:auto}
h2{font-size:17px;margin:0 0 10px} h3{font-size:14px;margin:14px 0 6px}
table{border-collapse:collapse;min-width:50%;font-variant-numeric:tabular-nums;margin:4px 0}
table.wide{width:100%}
th,td{padding:4px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
th.num,td.num{text-align:right}
th{background:#f3f5f7;font-weight:600}
#headline .ci,#headline .sub,#mechanism .ci,#mechanism .sub{display:block;white-space:nowrap}
.figure{display:flex;flex-wrap:wrap;gap:12px 24px;align-items:flex-start} .figure .note{max-width:360px}
tr.flagged td{background:#fff1f0}
tr.role-baseline td{background:#f6f8fa} tr.role-control td{color:#555}
.flag{color:#b42318;font-weight:700} .badge{font-size:11px;color:#1f3b57;border:1px solid #9db3c8;border-radius:3px;padding:0 3px}
.reasons{font-size:13px;color:#b42318;margin:8px 0;padding-left:18px}
#headline td:first-child{white-space:nowrap}
.why{display:block;font-size:12px;color:#777;max-width:170px;margin-left:auto}
.muted{color:#777}
.ci,.sub{color:#777;font-size:12px}
.panels{display:flex;flex-wrap:wrap;gap:8px 20px}
.legend{margin:4px 0 8px;font-size:12px} .key{margin-right:14px;white-space:nowrap}
.key i{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:4px;vertical-align:-1px}
.edit{border-top:1px solid #eee;padding:8px 0}
.edit .meta{font-size:12px;color:#555}
.hyp{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;margin:2px 0;overflow-wrap:anywhere}
mark.r{background:#ffe0b2} mark.a{background:#c8e6c9} mark.h{background:#dbe9ff}
.raw{font-size:12px;color:#666;margin:0 0 4px 2.2em;overflow-wrap:anywhere}
.v-ref{color:#b42318;font-weight:600} .v-audio{color:#1b7f3b;font-weight:600} .v-other{color:#6b5b00}
.v-ineligible,.v-none{color:#999}
.filters{margin-bottom:6px} .filters label{margin-right:12px}
.note{font-size:12px;color:#555}
#clip-audio{display:none}
.listen{display:flex;flex-wrap:wrap;align-items:center;gap:4px 10px;margin:4px 0}
svg.wave{width:360px;height:40px;background:#f6f8fa;border-radius:3px} svg.wave use{stroke:#51708f;stroke-width:.7}
svg.wave-defs{position:absolute}
svg.wave rect.context{fill:#ffe0b2;opacity:.45} svg.wave rect.span{fill:#f57c00;opacity:.55}
svg.wave .playhead{stroke:#b42318;stroke-width:1}
.review{font-size:12px;margin:4px 0 0} .review label{margin-right:8px} .review-note{width:260px;font-size:12px}
#review-csv{display:block;width:100%;font:12px ui-monospace,Menlo,Consolas,monospace}
#review-csv[hidden]{display:none}
pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0} dl.kv dt{color:#555} dl.kv dd{margin:0}
"""

# The only script in the page (besides the JSON data block): filters, playback, review marks.
SCRIPT = asset("report.js")


class Markup(str):
    """HTML built in this module from escaped parts: a table cell of this type is inserted as is."""


class Number(Markup):
    """A formatted value (with its interval): right-aligned in tables, like the plain numbers."""


# Plain cells that read as numbers: "12", "4.0%", "-2.0 pts", "3/10", "412.5 s", "–" or empty.
_NUMERIC_TEXT = re.compile(r"^(|–|[-+]?\d[\d.,]*(%| pts| s)?|[\d–]+/[\d–]+)$")


def _is_numeric(cell: object) -> bool:
    if isinstance(cell, Number) or cell is None:
        return True
    if isinstance(cell, bool) or isinstance(cell, Markup):
        return False
    return isinstance(cell, (int, float)) or (isinstance(cell, str) and bool(_NUMERIC_TEXT.match(cell)))


NOT_RUN = Markup('<p class="muted not-run">not run</p>')


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _cell(value: object) -> str:
    if isinstance(value, Markup):
        return value
    return "–" if value is None else esc(value)


def fmt_pct(value: object, digits: int = 1) -> str:
    v = finite(value)
    return "–" if v is None else f"{100 * v:.{digits}f}%"


def fmt_num(value: object, digits: int = 3) -> str:
    v = finite(value)
    return "–" if v is None else f"{v:.{digits}f}"


def ends(interval: object) -> tuple[float | None, float | None]:
    """(low, high) of a summary's interval (``report.rows.Bounds``), or (None, None) when it was not measured."""
    if interval is None:
        return None, None
    return finite(getattr(interval, "low", None)), finite(getattr(interval, "high", None))


def value_cell(value: object, lo: object = None, hi: object = None, percent: bool = True, digits: int | None = None,
               extra: str = "") -> Number:
    """'12.5% [8.1%, 18.0%]' (interval grey and smaller), or '–'; ``extra`` is already-escaped HTML.

    A missing value is a bare '–': an interval or count next to no estimate would read as a result.
    """
    fmt = fmt_pct if percent else fmt_num
    d = digits if digits is not None else (1 if percent else 3)
    text = fmt(value, d)
    if finite(value) is None:
        return Number(text)
    if finite(lo) is not None and finite(hi) is not None:
        text += f' <span class="ci">[{fmt(lo, d)}, {fmt(hi, d)}]</span>'
    if extra:
        text += f' <span class="sub">{extra}</span>'
    return Number(text)


def delta_cell(value: object, lo: object, hi: object, rate: bool) -> Number:
    """A change or a difference in differences, signed: percentage points for rates, plain for means."""
    def fmt(v: object) -> str:
        v = finite(v)
        if v is None:
            return "–"
        return f"{100 * v:+.1f} pts" if rate else f"{v:+.3f}"

    text = fmt(value)
    if finite(value) is not None and finite(lo) is not None and finite(hi) is not None:
        text += f' <span class="ci">[{fmt(lo)}, {fmt(hi)}]</span>'
    return Number(text)


def counts(num: object, den: object) -> str:
    return "" if num is None and den is None else f"{esc(num if num is not None else '–')}/{esc(den if den is not None else '–')}"


def table(columns: Sequence[str], rows: Iterable[Sequence[object]], table_id: str = "",
          row_classes: Sequence[str] | None = None, wide: bool = False) -> str:
    """A plain table; cells are escaped unless they are :class:`Markup`.

    A column whose cells all read as numbers is right-aligned (header too),
    so digits line up; names and labels stay left-aligned.
    """
    rows = [list(r) for r in rows]
    numeric = [i > 0 and all(_is_numeric(r[i]) for r in rows if i < len(r)) for i in range(len(columns))]
    align = [' class="num"' if n else "" for n in numeric]
    head = "".join(f"<th{align[i]}>{esc(c)}</th>" for i, c in enumerate(columns))
    body = []
    for i, row in enumerate(rows):
        cls = f' class="{esc(row_classes[i])}"' if row_classes and row_classes[i] else ""
        body.append(f"<tr{cls}>" + "".join(f"<td{align[j] if j < len(align) else ''}>{_cell(c)}</td>"
                                           for j, c in enumerate(row)) + "</tr>")
    ident = f' id="{esc(table_id)}"' if table_id else ""
    wide_cls = ' class="wide"' if wide else ""
    return f"<table{ident}{wide_cls}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
