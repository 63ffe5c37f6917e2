"""The HTML report: one self-contained file, readable offline, safe to open.

Everything is inline (CSS, a little JavaScript for the edit browser's
filter, SVG for plots; see :mod:`asraudit.report.svg`), so the report can be
mailed or attached to a model card and opens without a network.  Every
string that came from a corpus, a model or a spec is escaped with
``html.escape`` before it reaches the page, and the data the script reads is
embedded as JSON inside a ``<script type="application/json">`` block with
``<``, ``>`` and ``&`` written as unicode escapes, so a transcript containing
``</script>`` stays text.

Input is the audit's ``summary.json`` (its layout is published as a JSON
Schema by ``asraudit schema``: the contract between ``asraudit.audit`` and
this module).  Any key may be missing or null, because
a probe may not have run or may not apply to a model; the page then says
"not run" for a section and "–" for a value, and never fails: a report with
holes is still worth reading, a crash after an hour of audit is not.

The page's script also reports its own health (``data-ready`` and
``data-errors`` on ``<body>``) so a headless browser test can tell a page
that ran from one that threw.
"""

from __future__ import annotations

import json
from typing import Iterable, Mapping, Sequence

from asraudit.report.html_browser import edit_browser, provenance_section
from asraudit.report.html_parts import (
    CSS,
    NOT_RUN,
    SCRIPT,
    Markup,
    Number,
    counts,
    delta_cell,
    dicts,
    esc,
    fmt_num,
    fmt_pct,
    mapping,
    pair,
    table,
    value_cell,
)
from asraudit.report.svg import Series, ScatterPoint, colour, finite, interval_panel_svg, legend_html, scatter_svg

KIND_ORDER = ("delete", "insert", "substitute")
READOUT_ORDER = ("accept-ref", "recovery", "lift(r)", "lift(mask)")
RATE_READOUTS = frozenset({"accept-ref", "recovery"})


# ------------------------------------------------------------------ sections


def headline_table(models: Mapping[str, Mapping]) -> str:
    """Per model the audit's answer in one row; flagged rows red, with their reasons.

    Corrected-reference WER and RTFx get a column only when some model has
    them, so a prediction-file audit is not padded with empty columns.
    """
    if not models:
        return NOT_RUN
    corrected = any(finite(mapping(m).get("wer_corrected")) is not None for m in models.values())
    speed = any(finite(mapping(m).get("rtfx")) is not None for m in models.values())
    columns = ["model", "WER"] + (["WER (corrected refs)"] if corrected else []) + [
        "accept-ref", "masked recovery", "switch rate", "audio lift λ(r)", "WER gained by echoing"] + (
        ["RTFx"] if speed else [])
    rows, classes = [], []
    for name, m in models.items():
        m = mapping(m)
        badges = (' <span class="badge">panel</span>' if m.get("panel") else "") + (
            ' <span class="flag">⚑ flagged</span>' if m.get("flagged") else "")
        row = [Markup(esc(name) + badges), value_cell(m.get("wer"), *pair(m.get("wer_ci")))]
        if corrected:
            row.append(value_cell(m.get("wer_corrected"), *pair(m.get("wer_corrected_ci"))))
        row.append(value_cell(m.get("accept_ref"), *pair(m.get("accept_ref_ci")),
                              extra=f"n={counts(m.get('n_ref'), m.get('n_eligible'))}"
                              if m.get("n_eligible") is not None else ""))
        control = finite(m.get("control_recovery"))
        row.append(value_cell(m.get("recovery"), *pair(m.get("recovery_ci")),
                              extra=(f"control {fmt_pct(control)}" if control is not None else "")
                              + (f" n={esc(m['recovery_n'])}" if m.get("recovery_n") is not None else "")))
        if finite(m.get("switch_rate")) is None and m.get("switch_note"):
            row.append(Number(f'<span title="{esc(m["switch_note"])}">– <span class="why">'
                              f'{esc(_short_note(m["switch_note"]))}</span></span>'))
        else:
            row.append(value_cell(m.get("switch_rate"), *pair(m.get("switch_rate_ci")), percent=False, digits=2))
        row.append(value_cell(m.get("lift"), *pair(m.get("lift_ci")), percent=False,
                              extra=f"n={esc(m['lift_n'])}" if m.get("lift_n") is not None else ""))
        row.append(value_cell(m.get("wer_gained"), percent=True, digits=2))
        if speed:
            row.append(fmt_num(m.get("rtfx"), 1))
        rows.append(row)
        classes.append("flagged" if m.get("flagged") else "")
    # Reasons under the table, not in a column: they are sentences, and a column of them makes the table too wide.
    flagged = [(name, [r for r in mapping(m).get("flag_reasons") or [] if r]) for name, m in models.items()
               if mapping(m).get("flagged")]
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
    points = [ScatterPoint(name, finite(mapping(m).get("wer")), finite(mapping(m).get("accept_ref")),
                           *pair(mapping(m).get("accept_ref_ci")), flagged=bool(mapping(m).get("flagged")))
              for name, m in models.items()]
    return '<div class="figure">' + scatter_svg(points, "WER", "accept-ref") + (
        '<p class="note">Each model once; whisker: accept-ref 95% interval; red: flagged. A model that hears the '
        "audio sits low whatever its WER; a low WER earned by echoing the benchmark's errors sits high.</p></div>")


def _rate_with_counts(v: Mapping | None) -> object:
    if not isinstance(v, Mapping):
        return None
    return value_cell(v.get("rate"), v.get("lo"), v.get("hi"), extra=counts(v.get("n_ref"), v.get("n_eligible")))


def _ordered(keys: Iterable[str], order: Sequence[str]) -> list[str]:
    keys = list(dict.fromkeys(keys))
    return [k for k in order if k in keys] + [k for k in keys if k not in order]


def by_kind_table(by_kind: Mapping[str, Mapping[str, Mapping]]) -> str:
    """accept-ref per model and edit kind: rate [interval] ref/eligible."""
    if not by_kind:
        return NOT_RUN
    kinds = _ordered((k for per in by_kind.values() for k in mapping(per)), KIND_ORDER)
    rows = [[model] + [_rate_with_counts(mapping(per).get(k)) for k in kinds] for model, per in by_kind.items()]
    return table(["model"] + kinds, rows, "by-kind")


def by_group_table(by_group: Mapping) -> str:
    """accept-ref per value of a clip field (e.g. voice role): one row per value, one column per model."""
    groups = mapping(by_group.get("groups"))
    if not groups:
        return NOT_RUN
    models = list(dict.fromkeys(m for per in groups.values() for m in mapping(per)))
    rows = [[value] + [_rate_with_counts(mapping(per).get(m)) for m in models] for value, per in groups.items()]
    return table([str(by_group.get("field") or "group")] + models, rows, "by-group")


def mining_section(mining: Mapping) -> str:
    """How many edits the panel mined, of which kinds, with what parameters; precision/recall if truth was planted."""
    if not mining:
        return NOT_RUN
    panel = ", ".join(str(p) for p in mining.get("panel") or [])
    parts = [f'<p>{esc(mining.get("edits", "–"))} edits on {esc(mining.get("clips", "–"))} clips'
             + (f"; panel: {esc(panel)}" if panel else "") + ".</p>"]
    by_kind = mapping(mining.get("by_kind"))
    if by_kind:
        kinds = _ordered(by_kind, KIND_ORDER)
        parts.append(table(["kind"] + kinds, [["edits"] + [by_kind[k] for k in kinds]], "mining-kinds"))
    params = mapping(mining.get("params"))
    if params:
        parts.append('<dl class="kv">' + "".join(
            f"<dt>{esc(k)}</dt><dd>{esc(json.dumps(v, ensure_ascii=False, default=str))}</dd>"
            for k, v in params.items()) + "</dl>")
    truth = mapping(mining.get("truth"))
    if truth:
        kinds = _ordered(truth, KIND_ORDER + ("all",))
        rows = [[k, mapping(truth[k]).get("planted"), mapping(truth[k]).get("mined"), mapping(truth[k]).get("matched"),
                 value_cell(mapping(truth[k]).get("precision"), *pair(mapping(truth[k]).get("precision_ci"))),
                 value_cell(mapping(truth[k]).get("recall"), *pair(mapping(truth[k]).get("recall_ci")))]
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
    switch, agreement = dicts(conventions.get("switch")), dicts(conventions.get("agreement"))
    if not switch and not agreement:
        return NOT_RUN
    parts = []
    if switch:
        rows = []
        for r in switch:
            arms = "; ".join(f"{a}: {mapping(v).get('follow', '–')}/{mapping(v).get('n', '–')}"
                             for a, v in mapping(r.get("arms")).items())
            s = (value_cell(r.get("s"), r.get("lo"), r.get("hi"), percent=False, digits=2)
                 if r.get("measurable", True) and finite(r.get("s")) is not None
                 else Number(f'– <span class="why">{esc(r.get("note") or "not measurable")}</span>'))
            rows.append([r.get("model"), r.get("group"), s, arms])
        parts.append("<h3>Switch rate (chance 0.5)</h3>"
                     + table(["model", "family", "switch rate s", "followed/clips per arm"], rows, "switch"))
    if agreement:
        rows = [[r.get("model"), r.get("group"), value_cell(r.get("rate"), r.get("lo"), r.get("hi")),
                 counts(r.get("agree"), r.get("rendered"))] for r in agreement]
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
    rows = dicts(battery.get("rows"))
    contrasts = dicts(battery.get("contrasts"))
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
                                extra=counts(r.get("n_ref"), r.get("n_eligible"))),
                     delta, counts(r.get("changed"), r.get("clips")), fmt_pct(r.get("wer"))])
        classes.append("role-" + str(r.get("role") or "other"))
    return table(["experiment", "model", "variant", "role", "accept-ref", "Δ vs baseline",
                  "transcripts changed", "WER"], body, "mechanism", classes, wide=True)


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in name.lower())


def _data_block(payload: object) -> str:
    """JSON for the page, safe inside <script>: <, > and & as unicode escapes so no text can close the element."""
    data = json.dumps(payload, ensure_ascii=False, default=str)
    return data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_report(summary: Mapping) -> str:
    """The whole page from an audit summary; every section is present, saying "not run" when its key is missing."""
    summary = mapping(summary)
    models = {str(k): mapping(v) for k, v in mapping(summary.get("models")).items()}
    edits = dicts(summary.get("edits"))
    by_group = mapping(summary.get("accept_ref_by_group"))
    group_title = "accept-ref by " + str(by_group.get("field") or "group")
    sections = [
        ("headline-section", "Headline", headline_table(models)),
        ("scatter", "WER against accept-ref", scatter_section(models)),
        ("by-kind-section", "accept-ref by edit kind", by_kind_table(mapping(summary.get("accept_ref_by_kind")))),
        ("by-group-section", group_title, by_group_table(by_group)),
        ("mining", "Reference-error mining", mining_section(mapping(summary.get("mining")))),
        ("masked-section", "Masked-entity recovery", masked_table(dicts(summary.get("masked")))),
        ("conventions", "Rendering conventions", conventions_section(mapping(summary.get("conventions")))),
        ("lift-section", "Audio lift", lift_table(dicts(summary.get("lift")))),
        ("battery", "Trigger battery", battery_section(mapping(summary.get("battery")), list(models))),
        ("mechanism-section", "Steering and patching", mechanism_table(dicts(summary.get("mechanism")))),
        ("edit-browser", f"Edit browser ({len(edits)} edits)", edit_browser(
            edits, _model_order(models, (m for e in edits for m in mapping(e.get("models")))))),
        ("provenance", "Provenance", provenance_section(mapping(summary.get("provenance")))),
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
