"""The HTML report: one self-contained file, readable offline, safe to open.

Everything is inline (CSS, a little JavaScript for the edit browser's
filter, SVG for plots; see :mod:`asraudit.report.svg`), so the report can be
mailed or attached to a model card and opens without a network.  Every
string that came from a corpus, a model or a spec is escaped with
``html.escape`` before it reaches the page, and the data the script reads is
embedded as JSON inside a ``<script type="application/json">`` block with
``<``, ``>`` and ``&`` written as unicode escapes, so a transcript containing
``</script>`` stays text.

Input is the audit's ``summary.json`` (schema: the contract between
``asraudit.audit`` and this module).  Any key may be missing or null, because
a probe may not have run or may not apply to a model; the page then says
"not run" for a section and "–" for a value, and never fails: a report with
holes is still worth reading, a crash after an hour of audit is not.

The page's script also reports its own health (``data-ready`` and
``data-errors`` on ``<body>``) so a headless browser test can tell a page
that ran from one that threw.
"""

from __future__ import annotations

import html
import json
import re
from typing import Iterable, Mapping, Sequence

from asraudit.report.svg import Series, ScatterPoint, colour, finite, interval_panel_svg, legend_html, scatter_svg

VERDICTS = ("ref", "audio", "other", "ineligible", "none")
KIND_ORDER = ("delete", "insert", "substitute")
READOUT_ORDER = ("accept-ref", "recovery", "lift(r)", "lift(mask)")
RATE_READOUTS = frozenset({"accept-ref", "recovery"})

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
pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0} dl.kv dt{color:#555} dl.kv dd{margin:0}
"""

# The only script in the page (besides the JSON data block).  The error
# listener is registered first and data-ready is set last, so a page whose
# script throws never reports ready.  A fragment such as
# ``#model=1&verdict=ref,audio`` preselects the edit browser's filter
# (model by its index in the selector), which makes a filtered view linkable.
SCRIPT = """
window.addEventListener('error', function (e) {
  var b = document.body, m = (e && e.message) || 'error';
  b.dataset.errors = b.dataset.errors ? b.dataset.errors + ' | ' + m : m;
});
(function () {
  var sel = document.getElementById('filter-model');
  if (sel) {
    var boxes = Array.prototype.slice.call(document.querySelectorAll('#edit-filters input'));
    var edits = Array.prototype.slice.call(document.querySelectorAll('#edits .edit'));
    var apply = function () {
      var want = {}, counts = {}, shown = 0;
      boxes.forEach(function (cb) { want[cb.value] = cb.checked; });
      edits.forEach(function (div) {
        var v = div.getAttribute('data-v-' + sel.value) || 'none';
        counts[v] = (counts[v] || 0) + 1;
        div.hidden = want[v] !== true;
        if (!div.hidden) shown++;
      });
      document.querySelectorAll('#edit-filters .vc').forEach(function (s) {
        s.textContent = counts[s.getAttribute('data-verdict')] || 0;
      });
      document.getElementById('edit-count').textContent = shown;
    };
    var h = new URLSearchParams(location.hash.slice(1));
    if (h.has('model')) sel.value = h.get('model');
    if (h.has('verdict')) {
      var keep = h.get('verdict').split(',');
      boxes.forEach(function (cb) { cb.checked = keep.indexOf(cb.value) >= 0; });
    }
    boxes.concat([sel]).forEach(function (el) { el.addEventListener('change', apply); });
    apply();
  }
  document.body.dataset.ready = '1';
})();
"""


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


def _pair(ci: object) -> tuple[float | None, float | None]:
    """(lo, hi) from a ``[lo, hi]`` list, or (None, None) when it is missing or malformed."""
    if isinstance(ci, (list, tuple)) and len(ci) == 2:
        return finite(ci[0]), finite(ci[1])
    return None, None


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


def _counts(num: object, den: object) -> str:
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


def _dicts(value: object) -> list[Mapping]:
    """The mappings in a list that should hold rows (anything else in it is skipped)."""
    return [r for r in value if isinstance(r, Mapping)] if isinstance(value, list) else []


def _mapping(value: object) -> Mapping:
    return value if isinstance(value, Mapping) else {}


# ------------------------------------------------------------------ sections


def headline_table(models: Mapping[str, Mapping]) -> str:
    """Per model the audit's answer in one row; flagged rows red, with their reasons.

    Corrected-reference WER and RTFx get a column only when some model has
    them, so a prediction-file audit is not padded with empty columns.
    """
    if not models:
        return NOT_RUN
    corrected = any(finite(_mapping(m).get("wer_corrected")) is not None for m in models.values())
    speed = any(finite(_mapping(m).get("rtfx")) is not None for m in models.values())
    columns = ["model", "WER"] + (["WER (corrected refs)"] if corrected else []) + [
        "accept-ref", "masked recovery", "switch rate", "audio lift λ(r)", "WER gained by echoing"] + (
        ["RTFx"] if speed else [])
    rows, classes = [], []
    for name, m in models.items():
        m = _mapping(m)
        badges = (' <span class="badge">panel</span>' if m.get("panel") else "") + (
            ' <span class="flag">⚑ flagged</span>' if m.get("flagged") else "")
        row = [Markup(esc(name) + badges), value_cell(m.get("wer"), *_pair(m.get("wer_ci")))]
        if corrected:
            row.append(value_cell(m.get("wer_corrected"), *_pair(m.get("wer_corrected_ci"))))
        row.append(value_cell(m.get("accept_ref"), *_pair(m.get("accept_ref_ci")),
                              extra=f"n={_counts(m.get('n_ref'), m.get('n_eligible'))}"
                              if m.get("n_eligible") is not None else ""))
        control = finite(m.get("control_recovery"))
        row.append(value_cell(m.get("recovery"), *_pair(m.get("recovery_ci")),
                              extra=(f"control {fmt_pct(control)}" if control is not None else "")
                              + (f" n={esc(m['recovery_n'])}" if m.get("recovery_n") is not None else "")))
        if finite(m.get("switch_rate")) is None and m.get("switch_note"):
            row.append(Number(f'<span title="{esc(m["switch_note"])}">– <span class="why">'
                              f'{esc(_short_note(m["switch_note"]))}</span></span>'))
        else:
            row.append(value_cell(m.get("switch_rate"), *_pair(m.get("switch_rate_ci")), percent=False, digits=2))
        row.append(value_cell(m.get("lift"), *_pair(m.get("lift_ci")), percent=False,
                              extra=f"n={esc(m['lift_n'])}" if m.get("lift_n") is not None else ""))
        row.append(value_cell(m.get("wer_gained"), percent=True, digits=2))
        if speed:
            row.append(fmt_num(m.get("rtfx"), 1))
        rows.append(row)
        classes.append("flagged" if m.get("flagged") else "")
    # Reasons under the table, not in a column: they are sentences, and a column of them makes the table too wide.
    flagged = [(name, [r for r in _mapping(m).get("flag_reasons") or [] if r]) for name, m in models.items()
               if _mapping(m).get("flagged")]
    reasons = "".join(f'<li><b>{esc(name)}</b>: {"; ".join(esc(r) for r in rs) or "flagged"}</li>'
                      for name, rs in flagged)
    return table(columns, rows, "headline", classes, wide=True) + (
        f'<ul class="reasons" id="flag-reasons">{reasons}</ul>' if reasons else "") + (
        '<p class="note">accept-ref = ref / (ref + audio) over mined reference errors, Wilson 95% interval, '
        "n = ref/eligible edits; masked recovery: the masked word still written (control: a random word masked); "
        "switch rate: chance = 0.5; λ(r) in nats per character, &gt; 0 means the audio raised the reference's "
        "likelihood; WER gained: WER points the model wins by echoing reference errors.</p>")


def _short_note(note: str) -> str:
    """The head of a 'why not measured' note (before its colon); the whole note is the cell's tooltip."""
    return str(note).split(":", 1)[0]


def scatter_section(models: Mapping[str, Mapping]) -> str:
    points = [ScatterPoint(name, finite(_mapping(m).get("wer")), finite(_mapping(m).get("accept_ref")),
                           *_pair(_mapping(m).get("accept_ref_ci")), flagged=bool(_mapping(m).get("flagged")))
              for name, m in models.items()]
    return '<div class="figure">' + scatter_svg(points, "WER", "accept-ref") + (
        '<p class="note">Each model once; whisker: accept-ref 95% interval; red: flagged. A model that hears the '
        "audio sits low whatever its WER; a low WER earned by echoing the benchmark's errors sits high.</p></div>")


def _rate_with_counts(v: Mapping | None) -> object:
    if not isinstance(v, Mapping):
        return None
    return value_cell(v.get("rate"), v.get("lo"), v.get("hi"), extra=_counts(v.get("n_ref"), v.get("n_eligible")))


def _ordered(keys: Iterable[str], order: Sequence[str]) -> list[str]:
    keys = list(dict.fromkeys(keys))
    return [k for k in order if k in keys] + [k for k in keys if k not in order]


def by_kind_table(by_kind: Mapping[str, Mapping[str, Mapping]]) -> str:
    """accept-ref per model and edit kind: rate [interval] ref/eligible."""
    if not by_kind:
        return NOT_RUN
    kinds = _ordered((k for per in by_kind.values() for k in _mapping(per)), KIND_ORDER)
    rows = [[model] + [_rate_with_counts(_mapping(per).get(k)) for k in kinds] for model, per in by_kind.items()]
    return table(["model"] + kinds, rows, "by-kind")


def by_group_table(by_group: Mapping) -> str:
    """accept-ref per value of a clip field (e.g. voice role): one row per value, one column per model."""
    groups = _mapping(by_group.get("groups"))
    if not groups:
        return NOT_RUN
    models = list(dict.fromkeys(m for per in groups.values() for m in _mapping(per)))
    rows = [[value] + [_rate_with_counts(_mapping(per).get(m)) for m in models] for value, per in groups.items()]
    return table([str(by_group.get("field") or "group")] + models, rows, "by-group")


def mining_section(mining: Mapping) -> str:
    """How many edits the panel mined, of which kinds, with what parameters; precision/recall if truth was planted."""
    if not mining:
        return NOT_RUN
    panel = ", ".join(str(p) for p in mining.get("panel") or [])
    parts = [f'<p>{esc(mining.get("edits", "–"))} edits on {esc(mining.get("clips", "–"))} clips'
             + (f"; panel: {esc(panel)}" if panel else "") + ".</p>"]
    by_kind = _mapping(mining.get("by_kind"))
    if by_kind:
        kinds = _ordered(by_kind, KIND_ORDER)
        parts.append(table(["kind"] + kinds, [["edits"] + [by_kind[k] for k in kinds]], "mining-kinds"))
    params = _mapping(mining.get("params"))
    if params:
        parts.append('<dl class="kv">' + "".join(
            f"<dt>{esc(k)}</dt><dd>{esc(json.dumps(v, ensure_ascii=False, default=str))}</dd>"
            for k, v in params.items()) + "</dl>")
    truth = _mapping(mining.get("truth"))
    if truth:
        kinds = _ordered(truth, KIND_ORDER + ("all",))
        rows = [[k, _mapping(truth[k]).get("planted"), _mapping(truth[k]).get("mined"), _mapping(truth[k]).get("matched"),
                 value_cell(_mapping(truth[k]).get("precision"), *_pair(_mapping(truth[k]).get("precision_ci"))),
                 value_cell(_mapping(truth[k]).get("recall"), *_pair(_mapping(truth[k]).get("recall_ci")))]
                for k in kinds]
        parts.append("<h3>Against planted truth</h3>"
                     + table(["kind", "planted", "mined", "matched", "precision", "recall"], rows, "mining-truth"))
    return "".join(parts)


def masked_table(rows: Sequence[Mapping]) -> str:
    if not rows:
        return NOT_RUN
    body = [[r.get("model"), r.get("targets"), value_cell(r.get("clean")),
             value_cell(r.get("masked"), r.get("masked_lo"), r.get("masked_hi")),
             value_cell(r.get("control"), r.get("control_lo"), r.get("control_hi")),
             value_cell(r.get("lift_masked"), r.get("lift_masked_lo"), r.get("lift_masked_hi"), percent=False),
             value_cell(r.get("lift_clean"), percent=False)] for r in rows]
    return table(["model", "targets", "recovered (clean audio)", "recovered (target masked)",
                  "recovered (control word masked)", "λ at the mask", "λ clean"], body, "masked") + (
        '<p class="note">A model that hears the audio cannot write a word that was silenced; recovery above the '
        "control's rate points at a memory of the reference.</p>")


def conventions_section(conventions: Mapping) -> str:
    switch, agreement = _dicts(conventions.get("switch")), _dicts(conventions.get("agreement"))
    if not switch and not agreement:
        return NOT_RUN
    parts = []
    if switch:
        rows = []
        for r in switch:
            arms = "; ".join(f"{a}: {_mapping(v).get('follow', '–')}/{_mapping(v).get('n', '–')}"
                             for a, v in _mapping(r.get("arms")).items())
            s = (value_cell(r.get("s"), r.get("lo"), r.get("hi"), percent=False, digits=2)
                 if r.get("measurable", True) and finite(r.get("s")) is not None
                 else Number(f'– <span class="why">{esc(r.get("note") or "not measurable")}</span>'))
            rows.append([r.get("model"), r.get("group"), s, arms])
        parts.append("<h3>Switch rate (chance 0.5)</h3>"
                     + table(["model", "family", "switch rate s", "followed/clips per arm"], rows, "switch"))
    if agreement:
        rows = [[r.get("model"), r.get("group"), value_cell(r.get("rate"), r.get("lo"), r.get("hi")),
                 _counts(r.get("agree"), r.get("rendered"))] for r in agreement]
        parts.append("<h3>Agreement with the reference's rendering</h3>"
                     + table(["model", "family", "agreement", "agree/rendered"], rows, "agreement"))
    return "".join(parts)


def lift_table(rows: Sequence[Mapping]) -> str:
    if not rows:
        return NOT_RUN
    body = [[r.get("model"), r.get("kind"), {"r": "reference r", "a": "audio rendering a"}.get(r.get("side"), r.get("side")),
             value_cell(r.get("mean"), r.get("lo"), r.get("hi"), percent=False), r.get("n")] for r in rows]
    return table(["model", "edit kind", "text scored", "mean λ (nats/char)", "n"], body, "lift") + (
        '<p class="note">λ = (log p(text | audio) − log p(text | silence)) / characters: how much the audio '
        "supports the text. A model writing r where λ(r) ≤ 0 did not get r from the audio.</p>")


def _model_order(*names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(n for group in names for n in group if n is not None))


def battery_section(battery: Mapping, models: Sequence[str]) -> str:
    """One panel per readout (conditions along x, models as colours), the contrasts, and every row in a table."""
    rows = _dicts(battery.get("rows"))
    contrasts = _dicts(battery.get("contrasts"))
    if not rows and not contrasts:
        return NOT_RUN
    order = _model_order(models, (str(r.get("model")) for r in rows))
    colours = {m: colour(i) for i, m in enumerate(order)}
    conditions = list(dict.fromkeys(str(r.get("condition")) for r in rows))
    parts = [f'<p>Battery <b>{esc(battery.get("name") or "–")}</b>: {len(conditions)} conditions.</p>']
    notes = [n for n in battery.get("notes") or [] if n]
    if notes:
        parts.append('<ul class="note">' + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
    if rows:
        present = {m for m in (str(r.get("model")) for r in rows)}
        parts.append(legend_html({m: colours[m] for m in order if m in present}))
        panels = []
        for readout in _ordered((str(r.get("readout")) for r in rows), READOUT_ORDER):
            mine = [r for r in rows if str(r.get("readout")) == readout]
            percent = (mine[0].get("kind") == "rate") if mine[0].get("kind") else readout in RATE_READOUTS
            series = {}
            for r in mine:
                m = str(r.get("model"))
                series.setdefault(m, Series(m, colours[m])).points[str(r.get("condition"))] = (
                    r.get("value"), r.get("lo"), r.get("hi"), r.get("n"))
            title = readout if percent else f"{readout} (nats/char)"
            panels.append(interval_panel_svg(title, conditions, [series[m] for m in order if m in series],
                                             percent, panel_id="battery-" + _slug(readout)))
        parts.append('<div class="panels">' + "".join(panels) + "</div>")
    if contrasts:
        body = [[c.get("model"), c.get("readout"), c.get("contrast"),
                 delta_cell(c.get("did"), c.get("lo"), c.get("hi"), rate=c.get("kind") == "rate"), c.get("n")]
                for c in contrasts]
        parts.append("<h3>Contrasts (difference in differences)</h3>"
                     + table(["model", "readout", "contrast", "Δ(treatment) − Δ(control)", "n"], body, "contrasts"))
    if rows:
        body = [[r.get("model"), r.get("readout"), r.get("condition"),
                 value_cell(r.get("value"), r.get("lo"), r.get("hi"), percent=r.get("kind") == "rate"),
                 delta_cell(r.get("delta"), r.get("delta_lo"), r.get("delta_hi"), rate=r.get("kind") == "rate"),
                 r.get("n")] for r in rows]
        parts.append("<details><summary>All battery rows</summary>"
                     + table(["model", "readout", "condition", "value", "Δ vs original", "n"], body, "battery-rows")
                     + "</details>")
    return "".join(parts)


def _mechanism_order(rows: Sequence[Mapping]) -> list[Mapping]:
    """Per (experiment, model): the baseline, then each intervention followed by its own controls."""
    groups: dict[tuple, list[Mapping]] = {}
    for r in rows:
        groups.setdefault((r.get("experiment"), r.get("model")), []).append(r)
    ordered = []
    for group in groups.values():
        placed: list[Mapping] = [r for r in group if r.get("role") == "baseline"]
        for r in group:
            if r.get("role") == "intervention":
                placed.append(r)
                placed += [c for c in group if c.get("role") == "control" and c.get("control_of") == r.get("intervention")]
        ordered += placed + [r for r in group if not any(r is p for p in placed)]
    return ordered


def mechanism_table(rows: Sequence[Mapping]) -> str:
    """Steering and patching: each intervention next to its random control and the baseline.

    Δ is the change in accept-ref from the experiment's baseline: an effect
    the random control shares is not the direction's.
    """
    if not rows:
        return NOT_RUN
    ordered = _mechanism_order(rows)
    baseline = {(r.get("experiment"), r.get("model")): finite(r.get("value"))
                for r in ordered if r.get("role") == "baseline"}
    body, classes = [], []
    for r in ordered:
        base = baseline.get((r.get("experiment"), r.get("model")))
        value = finite(r.get("value"))
        delta = (delta_cell(value - base, None, None, rate=True) if value is not None and base is not None
                 and r.get("role") != "baseline" else "")
        label = esc(r.get("intervention") or r.get("role") or "–")
        if r.get("role") == "control":
            label = f"↳ {label}" + (f' <span class="sub">control of {esc(r["control_of"])}</span>'
                                    if r.get("control_of") else "")
        body.append([r.get("experiment"), r.get("model"), Markup(label), r.get("role"),
                     value_cell(r.get("value"), r.get("lo"), r.get("hi"),
                                extra=_counts(r.get("n_ref"), r.get("n_eligible"))),
                     delta, _counts(r.get("changed"), r.get("clips")), fmt_pct(r.get("wer"))])
        classes.append("role-" + str(r.get("role") or "other"))
    return table(["experiment", "model", "variant", "role", "accept-ref", "Δ vs baseline",
                  "transcripts changed", "WER"], body, "mechanism", classes, wide=True)


def _highlight(tokens: Sequence[str], span: object, replacement: str | None, cls: str) -> str:
    """The tokens with ``span`` marked; with ``replacement`` the span's words are swapped for it (the panel's reading)."""
    if not (isinstance(span, (list, tuple)) and len(span) == 2 and all(isinstance(s, int) for s in span)):
        return esc(" ".join(tokens)) if replacement is None else f'<mark class="{cls}">{esc(replacement or "∅")}</mark>'
    start, end = max(0, span[0]), max(span[0], span[1])
    inner = " ".join(tokens[start:end]) if replacement is None else replacement
    middle = f'<mark class="{cls}">{esc(inner) if inner else "∅"}</mark>'
    return " ".join(p for p in (esc(" ".join(tokens[:start])), middle, esc(" ".join(tokens[end:]))) if p)


def edit_browser(edits: Sequence[Mapping], models: Sequence[str]) -> str:
    """Each edit: the reference with the disputed span, the panel's reading in place, every model's words.

    Verdicts are stored per edit as ``data-v-<model index>`` attributes, so the
    script filters by model and verdict without parsing any text; indices,
    not names, because two model names can differ only in punctuation.
    """
    if not edits:
        return NOT_RUN
    options = "".join(f'<option value="{i}">{esc(m)}</option>' for i, m in enumerate(models))
    boxes = "".join(f'<label><input type="checkbox" value="{v}" checked> {v} '
                    f'(<span class="vc" data-verdict="{v}">0</span>)</label>' for v in VERDICTS)
    items = []
    for e in edits:
        per_model = _mapping(e.get("models"))
        attrs = "".join(f' data-v-{i}="{esc(_mapping(per_model[m]).get("verdict") or "none")}"'
                        for i, m in enumerate(models) if m in per_model)
        tokens = e.get("ref_tokens")
        tokens = [str(t) for t in tokens] if isinstance(tokens, list) else str(e.get("reference") or "").split()
        lines = []
        for m in models:
            if m not in per_model:
                continue
            v = _mapping(per_model[m])
            verdict = str(v.get("verdict") or "none")
            hyp = v.get("tokens")
            words = (_highlight([str(t) for t in hyp], v.get("span"), None, "h") if isinstance(hyp, list)
                     else esc(v.get("text") or ""))
            lines.append(f'<div class="hyp"><span class="v-{esc(verdict)}">[{esc(verdict)}]</span> '
                         f'<b>{esc(m)}</b>: {words}</div>')
            if v.get("raw"):
                lines.append(f'<div class="raw">as written: {esc(v.get("raw"))}</div>')
        items.append(
            f'<div class="edit"{attrs}><div class="meta">clip <b>{esc(e.get("clip") or "–")}</b> · '
            f'{esc(e.get("kind") or "–")} · {esc(e.get("position") or "–")} · '
            f'r = “{esc(e.get("r") or "")}” → a = “{esc(e.get("a") or "")}”</div>'
            f'<div class="hyp">reference: {_highlight(tokens, e.get("span"), None, "r")}</div>'
            f'<div class="hyp">panel: {_highlight(tokens, e.get("span"), str(e.get("a") or ""), "a")}</div>'
            + "".join(lines) + "</div>")
    return (f'<div class="filters" id="edit-filters">model <select id="filter-model">{options}</select> '
            f'verdict {boxes} <span class="note"><span id="edit-count">{len(edits)}</span> of {len(edits)} shown'
            f"</span></div><div id=\"edits\">{''.join(items)}</div>")


def _plain(key: str, value: object) -> str:
    """A provenance value as one line of text: strings as they are, the run time in seconds, the rest as JSON."""
    if key == "runtime_s" and finite(value) is not None:
        return f"{finite(value):.1f} s"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def provenance_section(prov: Mapping) -> str:
    """What produced these numbers: versions, models with their config hashes, seed, parameters."""
    if not prov:
        return NOT_RUN
    known = ("asraudit", "created", "seed", "normalizer", "python", "store", "runtime_s")
    pairs = [(k, prov.get(k)) for k in known if prov.get(k) is not None]
    pairs += [(k, v) for k, v in prov.items() if k not in known + ("models", "packages", "spec")]
    parts = ['<dl class="kv">' + "".join(f"<dt>{esc(k)}</dt><dd>{esc(_plain(k, v))}</dd>" for k, v in pairs) + "</dl>"]
    models = _mapping(prov.get("models"))
    if models:
        rows = [[name, _mapping(m).get("model_id"), Markup(f"<code>{esc(_mapping(m).get('config_hash') or '–')}</code>"),
                 _mapping(m).get("spec")]
                for name, m in models.items()]
        parts.append("<h3>Models</h3>" + table(["name", "model id", "config hash", "spec"], rows, "provenance-models"))
    packages = _mapping(prov.get("packages"))
    if packages:
        parts.append("<details><summary>Packages</summary>"
                     + table(["package", "version"], sorted(packages.items()), "provenance-packages") + "</details>")
    if prov.get("spec") is not None:
        parts.append("<details><summary>Spec</summary><pre>"
                     + esc(json.dumps(prov["spec"], indent=2, ensure_ascii=False, default=str)) + "</pre></details>")
    return "".join(parts)


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in name.lower())


def _data_block(payload: object) -> str:
    """JSON for the page, safe inside <script>: <, > and & as unicode escapes so no text can close the element."""
    data = json.dumps(payload, ensure_ascii=False, default=str)
    return data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_report(summary: Mapping) -> str:
    """The whole page from an audit summary; every section is present, saying "not run" when its key is missing."""
    summary = _mapping(summary)
    models = {str(k): _mapping(v) for k, v in _mapping(summary.get("models")).items()}
    edits = _dicts(summary.get("edits"))
    by_group = _mapping(summary.get("accept_ref_by_group"))
    group_title = "accept-ref by " + str(by_group.get("field") or "group")
    sections = [
        ("headline-section", "Headline", headline_table(models)),
        ("scatter", "WER against accept-ref", scatter_section(models)),
        ("by-kind-section", "accept-ref by edit kind", by_kind_table(_mapping(summary.get("accept_ref_by_kind")))),
        ("by-group-section", group_title, by_group_table(by_group)),
        ("mining", "Reference-error mining", mining_section(_mapping(summary.get("mining")))),
        ("masked-section", "Masked-entity recovery", masked_table(_dicts(summary.get("masked")))),
        ("conventions", "Rendering conventions", conventions_section(_mapping(summary.get("conventions")))),
        ("lift-section", "Audio lift", lift_table(_dicts(summary.get("lift")))),
        ("battery", "Trigger battery", battery_section(_mapping(summary.get("battery")), list(models))),
        ("mechanism-section", "Steering and patching", mechanism_table(_dicts(summary.get("mechanism")))),
        ("edit-browser", f"Edit browser ({len(edits)} edits)", edit_browser(
            edits, _model_order(models, (m for e in edits for m in _mapping(e.get("models")))))),
        ("provenance", "Provenance", provenance_section(_mapping(summary.get("provenance")))),
    ]
    nav = "".join(f'<a href="#{ident}">{esc(title)}</a>' for ident, title, _ in sections)
    body = "".join(f'<section id="{ident}"><h2>{esc(title)}</h2>{content}</section>'
                   for ident, title, content in sections)
    title = esc(summary.get("title") or "asraudit report")
    subtitle = esc(summary.get("subtitle") or "")
    data = _data_block({"models": list(models), "edits": len(edits)})
    return (
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title}</title>"
        f"<style>{CSS}</style></head><body><header><h1>{title}</h1><p>{subtitle}</p></header>"
        f"<nav>{nav}</nav><main>{body}</main>"
        f'<script type="application/json" id="report-data">{data}</script>'
        f"<script>{SCRIPT}</script></body></html>"
    )
