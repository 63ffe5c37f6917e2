"""The HTML report: one self-contained file, readable offline, safe to open.

Everything is inline (CSS, one script for the edit browser's filters,
playback and review marks, SVG for plots, see :mod:`asraudit.report.svg`;
the clips' audio as data: URIs within a size budget, see
:mod:`asraudit.report.listen`), so the report can be mailed or attached to a
model card and opens without a network.  The page and the edit browser are
jinja2 templates with autoescape (``report/templates``, see
:mod:`asraudit.report.templating`); the tables of the other sections are
built from parts escaped with ``html.escape`` (:mod:`asraudit.report.html_parts`).
The data the script reads is embedded as JSON inside a ``<script
type="application/json">`` block with ``<``, ``>`` and ``&`` written as
unicode escapes, so a transcript containing ``</script>`` stays text.

Input is the typed summary of an audit (``report.summary.Summary``: the rows
of ``report.rows``, built from an ``AuditResult`` by ``build_summary`` or
rebuilt from a summary.json file by ``report.schema.from_json``; its layout is
published as a JSON Schema by ``asraudit schema``).  The types are only named
for the reader here, never imported: ``report`` sits below ``audit`` in the
layers.  A section of a stage that did not run is None and a value that was
not measured is None or NaN; the page then says "not run" for a section and
"–" for a value, and never fails: a report with holes is still worth
reading, a crash after an hour of audit is not.

The page's script also reports its own health (``data-ready`` and
``data-errors`` on ``<body>``) so a headless browser test can tell a page
that ran from one that threw.
"""

from __future__ import annotations

import hashlib
import json
from typing import Iterable, Mapping, Sequence

from asraudit.probes.review import SHEET_COLUMNS, SHEET_TEXT_PATTERN
from asraudit.report.html_browser import edit_browser, provenance_section, review_row
from asraudit.report.html_mechanism import mechanism_extras
from asraudit.report.html_published import published_section
from asraudit.report.listen import NO_AUDIO, ReportAudio
from asraudit.report.templating import render, safe
from asraudit.report.html_parts import (
    CSS,
    NOT_RUN,
    SCRIPT,
    Markup,
    Number,
    counts,
    delta_cell,
    ends,
    esc,
    fmt_num,
    fmt_pct,
    table,
    value_cell,
)
from asraudit.report.html_ranking import wer_ranking_section
from asraudit.report.html_translation import translation_section
from asraudit.report.rows import (
    BatteryRowSet,
    ConventionsRow,
    GroupBreakdown,
    LiftRow,
    MaskedRow,
    MechanismRow,
    MiningRow,
    ModelRow,
    RateRow,
)
from asraudit.report.summary import Summary
from asraudit.report.svg import Series, ScatterPoint, colour, finite, interval_panel_svg, legend_html, scatter_svg


KIND_ORDER = ("delete", "insert", "substitute")
READOUT_ORDER = ("accept-ref", "recovery", "lift(r)", "lift(mask)")
RATE_READOUTS = frozenset({"accept-ref", "recovery"})


# ------------------------------------------------------------------ sections


def headline_table(models: Mapping[str, "ModelRow"]) -> str:
    """Per model the audit's answer in one row; flagged rows red, with their reasons.

    Corrected-reference WER and RTFx get a column only when some model has
    them, so a prediction-file audit is not padded with empty columns.
    """
    if not models:
        return NOT_RUN
    corrected = any(finite(m.wer_corrected) is not None for m in models.values())
    speed = any(finite(m.rtfx) is not None for m in models.values())
    columns = ["model", "WER"] + (["WER (corrected refs)"] if corrected else []) + [
        "accept-ref", "masked recovery", "switch rate", "audio lift λ(r)", "WER gained by echoing"] + (
        ["RTFx"] if speed else [])
    rows, classes = [], []
    for name, m in models.items():
        badges = (' <span class="badge">panel</span>' if m.panel else "") + (
            ' <span class="flag">⚑ flagged</span>' if m.flagged else "")
        row = [Markup(esc(name) + badges), value_cell(m.wer, *ends(m.wer_interval))]
        if corrected:
            row.append(value_cell(m.wer_corrected, *ends(m.wer_corrected_interval)))
        row.append(value_cell(m.accept_ref, *ends(m.accept_ref_interval),
                              extra=f"n={counts(m.n_ref, m.n_eligible)}" if m.n_eligible is not None else ""))
        control = finite(m.control_recovery)
        row.append(value_cell(m.recovery, *ends(m.recovery_interval),
                              extra=(f"control {fmt_pct(control)}" if control is not None else "")
                              + (f" n={esc(m.recovery_n)}" if m.recovery_n is not None else "")))
        if finite(m.switch_rate) is None and m.switch_note:
            row.append(Number(f'<span title="{esc(m.switch_note)}">– <span class="why">'
                              f'{esc(_short_note(m.switch_note))}</span></span>'))
        else:
            row.append(value_cell(m.switch_rate, *ends(m.switch_rate_interval), percent=False, digits=2))
        row.append(value_cell(m.lift, *ends(m.lift_interval), percent=False,
                              extra=f"n={esc(m.lift_n)}" if m.lift_n is not None else ""))
        row.append(value_cell(m.wer_gained, percent=True, digits=2))
        if speed:
            row.append(fmt_num(m.rtfx, 1))
        rows.append(row)
        classes.append("flagged" if m.flagged else "")
    # Reasons under the table, not in a column: they are sentences, and a column of them makes the table too wide.
    flagged = [(name, [r for r in m.flag_reasons or [] if r]) for name, m in models.items() if m.flagged]
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


def scatter_section(models: Mapping[str, "ModelRow"]) -> str:
    points = [ScatterPoint(name, finite(m.wer), finite(m.accept_ref), *ends(m.accept_ref_interval),
                           flagged=bool(m.flagged))
              for name, m in models.items()]
    return '<div class="figure">' + scatter_svg(points, "WER", "accept-ref") + (
        '<p class="note">Each model once; whisker: accept-ref 95% interval; red: flagged. A model that hears the '
        "audio sits low whatever its WER; a low WER earned by echoing the benchmark's errors sits high.</p></div>")


def _rate_with_counts(v: "RateRow | None") -> object:
    if v is None:
        return None
    return value_cell(v.rate, *ends(v.rate_interval), extra=counts(v.n_ref, v.n_eligible))


def _ordered(keys: Iterable[str], order: Sequence[str]) -> list[str]:
    keys = list(dict.fromkeys(keys))
    return [k for k in order if k in keys] + [k for k in keys if k not in order]


def by_kind_table(by_kind: Mapping[str, Mapping[str, "RateRow"]]) -> str:
    """accept-ref per model and edit kind: rate [interval] ref/eligible."""
    if not by_kind:
        return NOT_RUN
    kinds = _ordered((k for per in by_kind.values() for k in per), KIND_ORDER)
    rows = [[model] + [_rate_with_counts(per.get(k)) for k in kinds] for model, per in by_kind.items()]
    return table(["model"] + kinds, rows, "by-kind")


def by_group_table(by_group: "GroupBreakdown | None") -> str:
    """accept-ref per value of a clip field (e.g. voice role): one row per value, one column per model."""
    if by_group is None or not by_group.groups:
        return NOT_RUN
    groups = by_group.groups
    models = list(dict.fromkeys(m for per in groups.values() for m in per))
    rows = [[value] + [_rate_with_counts(per.get(m)) for m in models] for value, per in groups.items()]
    return table([str(by_group.field or "group")] + models, rows, "by-group")


def mining_section(mining: "MiningRow | None") -> str:
    """How many edits the panel mined, of which kinds, with what parameters; precision/recall if truth was planted."""
    if mining is None:
        return NOT_RUN
    panel = ", ".join(str(p) for p in mining.panel or [])
    parts = [f'<p>{esc(mining.edits)} edits on {esc(mining.clips)} clips'
             + (f"; panel: {esc(panel)}" if panel else "") + ".</p>"]
    if mining.by_kind:
        kinds = _ordered(mining.by_kind, KIND_ORDER)
        parts.append(table(["kind"] + kinds, [["edits"] + [mining.by_kind[k] for k in kinds]], "mining-kinds"))
    if mining.params:
        parts.append('<dl class="kv">' + "".join(
            f"<dt>{esc(k)}</dt><dd>{esc(json.dumps(v, ensure_ascii=False, default=str))}</dd>"
            for k, v in mining.params.items()) + "</dl>")
    for title, truth, first, table_id in (("Against planted truth", mining.truth, "planted", "mining-truth"),
                                          ("Against what the audio contains", mining.truth_audio, "errors",
                                           "mining-truth-audio")):
        if truth:
            kinds = _ordered(truth, KIND_ORDER + ("all",))
            rows = [[k, truth[k].planted, truth[k].mined, truth[k].matched,
                     value_cell(truth[k].precision, *ends(truth[k].precision_interval)),
                     value_cell(truth[k].recall, *ends(truth[k].recall_interval))]
                    for k in kinds]
            parts.append(f"<h3>{title}</h3>"
                         + table(["kind", first, "mined", "matched", "precision", "recall"], rows, table_id))
    return "".join(parts)


def masked_table(rows: Sequence["MaskedRow"] | None) -> str:
    if not rows:
        return NOT_RUN
    body = [[r.model, r.targets, value_cell(r.clean),
             value_cell(r.masked, *ends(r.masked_interval)),
             value_cell(r.control, *ends(r.control_interval)),
             value_cell(r.lift_masked, *ends(r.lift_masked_interval), percent=False),
             value_cell(r.lift_clean, percent=False)] for r in rows]
    return table(["model", "targets", "recovered (clean audio)", "recovered (target masked)",
                  "recovered (control word masked)", "λ at the mask", "λ clean"], body, "masked") + (
        '<p class="note">A model that hears the audio cannot write a word that was silenced; recovery above the '
        "control's rate points at a memory of the reference.</p>")


def conventions_section(conventions: "ConventionsRow | None") -> str:
    switch = conventions.switch if conventions is not None else []
    agreement = conventions.agreement if conventions is not None else []
    if not switch and not agreement:
        return NOT_RUN
    parts = []
    if switch:
        rows = []
        for r in switch:
            arms = "; ".join(f"{a}: {v.follow if v is not None else '–'}/{v.n if v is not None else '–'}"
                             for a, v in (r.arms or {}).items())
            s = (value_cell(r.s, *ends(r.s_interval), percent=False, digits=2)
                 if r.measurable and finite(r.s) is not None
                 else Number(f'– <span class="why">{esc(r.note or "not measurable")}</span>'))
            rows.append([r.model, r.group, s, arms])
        parts.append("<h3>Switch rate (chance 0.5)</h3>"
                     + table(["model", "family", "switch rate s", "followed/clips per arm"], rows, "switch"))
    if agreement:
        rows = [[r.model, r.group, value_cell(r.rate, *ends(r.rate_interval)), counts(r.agree, r.rendered)]
                for r in agreement]
        parts.append("<h3>Agreement with the reference's rendering</h3>"
                     + table(["model", "family", "agreement", "agree/rendered"], rows, "agreement"))
    return "".join(parts)


def lift_table(rows: Sequence["LiftRow"] | None) -> str:
    if not rows:
        return NOT_RUN
    body = [[r.model, r.kind, {"r": "reference r", "a": "audio rendering a"}.get(r.side, r.side),
             value_cell(r.mean, *ends(r.mean_interval), percent=False), r.n] for r in rows]
    return table(["model", "edit kind", "text scored", "mean λ (nats/char)", "n"], body, "lift") + (
        '<p class="note">λ = (log p(text | audio) − log p(text | silence)) / characters: how much the audio '
        "supports the text. A model writing r where λ(r) ≤ 0 did not get r from the audio.</p>")


def _model_order(*names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(n for group in names for n in group if n is not None))


def battery_section(battery: "BatteryRowSet | None", models: Sequence[str]) -> str:
    """One panel per readout (conditions along x, models as colours), the contrasts, and every row in a table."""
    rows = list(battery.rows or []) if battery is not None else []
    contrasts = list(battery.contrasts or []) if battery is not None else []
    if not rows and not contrasts:
        return NOT_RUN
    order = _model_order(models, (str(r.model) for r in rows))
    colours = {m: colour(i) for i, m in enumerate(order)}
    conditions = list(dict.fromkeys(str(r.condition) for r in rows))
    parts = [f'<p>Battery <b>{esc(battery.name or "–")}</b>: {len(conditions)} conditions.</p>']
    notes = [n for n in battery.notes or [] if n]
    if notes:
        parts.append('<ul class="note">' + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
    if rows:
        present = {str(r.model) for r in rows}
        parts.append(legend_html({m: colours[m] for m in order if m in present}))
        panels = []
        for readout in _ordered((str(r.readout) for r in rows), READOUT_ORDER):
            mine = [r for r in rows if str(r.readout) == readout]
            percent = (mine[0].kind == "rate") if mine[0].kind else readout in RATE_READOUTS
            series = {}
            for r in mine:
                m = str(r.model)
                series.setdefault(m, Series(m, colours[m])).points[str(r.condition)] = (
                    r.value, *ends(r.value_interval), r.n)
            title = readout if percent else f"{readout} (nats/char)"
            panels.append(interval_panel_svg(title, conditions, [series[m] for m in order if m in series],
                                             percent, panel_id="battery-" + _slug(readout)))
        parts.append('<div class="panels">' + "".join(panels) + "</div>")
    if contrasts:
        body = [[c.model, c.readout, c.contrast, delta_cell(c.did, *ends(c.did_interval), rate=c.kind == "rate"), c.n]
                for c in contrasts]
        parts.append("<h3>Contrasts (difference in differences)</h3>"
                     + table(["model", "readout", "contrast", "Δ(treatment) − Δ(control)", "n"], body, "contrasts"))
    if rows:
        body = [[r.model, r.readout, r.condition,
                 value_cell(r.value, *ends(r.value_interval), percent=r.kind == "rate"),
                 delta_cell(r.delta, *ends(r.delta_interval), rate=r.kind == "rate"),
                 r.n] for r in rows]
        parts.append("<details><summary>All battery rows</summary>"
                     + table(["model", "readout", "condition", "value", "Δ vs original", "n"], body, "battery-rows")
                     + "</details>")
    return "".join(parts)


def _mechanism_order(rows: Sequence["MechanismRow"]) -> list["MechanismRow"]:
    """Per (experiment, model): the baseline, then each intervention followed by its own controls."""
    groups: dict[tuple, list] = {}
    for r in rows:
        groups.setdefault((r.experiment, r.model), []).append(r)
    ordered = []
    for group in groups.values():
        placed = [r for r in group if r.role == "baseline"]
        for r in group:
            if r.role == "intervention":
                placed.append(r)
                placed += [c for c in group if c.role == "control" and c.control_of == r.intervention]
        ordered += placed + [r for r in group if not any(r is p for p in placed)]
    return ordered


def mechanism_table(rows: Sequence["MechanismRow"] | None) -> str:
    """Steering and patching: each intervention next to its random control and the baseline.

    Δ is the change in accept-ref from the experiment's baseline: an effect
    the random control shares is not the direction's.
    """
    if not rows:
        return NOT_RUN
    ordered = _mechanism_order(rows)
    baseline = {(r.experiment, r.model): finite(r.value) for r in ordered if r.role == "baseline"}
    body, classes = [], []
    for r in ordered:
        base = baseline.get((r.experiment, r.model))
        value = finite(r.value)
        delta = (delta_cell(value - base, None, None, rate=True) if value is not None and base is not None
                 and r.role != "baseline" else "")
        label = esc(r.intervention or r.role or "–")
        if r.role == "control":
            label = f"↳ {label}" + (f' <span class="sub">control of {esc(r.control_of)}</span>'
                                    if r.control_of else "")
        body.append([r.experiment, r.model, Markup(label), r.role,
                     value_cell(r.value, *ends(r.value_interval), extra=counts(r.n_ref, r.n_eligible)),
                     delta, counts(r.changed, r.clips), fmt_pct(r.wer)])
        classes.append("role-" + str(r.role or "other"))
    return table(["experiment", "model", "variant", "role", "accept-ref", "Δ vs baseline",
                  "transcripts changed", "WER"], body, "mechanism", classes, wide=True)


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in name.lower())


def _data_block(payload: object) -> str:
    """JSON for the page, safe inside <script>: <, > and & as unicode escapes so no text can close the element."""
    data = json.dumps(payload, ensure_ascii=False, default=str)
    return data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def report_identity(summary: "Summary") -> str:
    """A short id of this report (its title, creation time and edits): the key of its review marks in the browser,
    so the marks of two reports never mix and a page rendered again from the same audit keeps its marks."""
    prov = summary.provenance
    key = json.dumps([summary.title, prov.created if prov is not None else None,
                      prov.spec_file if prov is not None else None, [e.edit_id for e in summary.edits or []]],
                     ensure_ascii=False, default=str)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def render_report(summary: "Summary", audio: ReportAudio | None = None) -> str:
    """The whole page from an audit's typed summary; every section is present, saying "not run" when it is None.

    ``audio``: the edits' clips (``report.listen``); without it (a page rendered from summary.json alone) the
    edit browser says there is no audio."""
    models = {str(k): v for k, v in (summary.models or {}).items()}
    edits = list(summary.edits or [])
    by_group = summary.accept_ref_by_group
    group_title = "accept-ref by " + str((by_group.field if by_group is not None else None) or "group")
    sections = [
        ("headline-section", "Headline", headline_table(models)),
        ("scatter", "WER against accept-ref", scatter_section(models)),
        ("by-kind-section", "accept-ref by edit kind", by_kind_table(summary.accept_ref_by_kind or {})),
        ("by-group-section", group_title, by_group_table(by_group)),
        ("mining", "Reference-error mining", mining_section(summary.mining)),
        ("wer-ranking-section", "WER three ways, and the ranking each gives", wer_ranking_section(summary.wer_ranking)),
        ("masked-section", "Masked-entity recovery", masked_table(summary.masked)),
        ("conventions", "Rendering conventions", conventions_section(summary.conventions)),
        ("lift-section", "Audio lift", lift_table(summary.lift)),
        ("battery", "Trigger battery", battery_section(summary.battery, list(models))),
        ("mechanism-section", "Steering and patching", mechanism_table(summary.mechanism) + mechanism_extras(summary)),
        ("edit-browser", f"Edit browser ({len(edits)} edits)", edit_browser(
            edits, _model_order(models, (m for e in edits for m in (e.models or {}))), audio or NO_AUDIO)),
        ("provenance", "Provenance", provenance_section(
            summary.provenance, {name: m.spec for name, m in models.items()})),
    ]
    if summary.translation is not None:  # an optional probe: shown when the spec asked for it ([translation])
        at = next(i for i, s in enumerate(sections) if s[0] == "mechanism-section")
        sections.insert(at, ("translation-section", "Translation probe", translation_section(summary.translation)))
    if summary.published is not None or summary.published_switch is not None:  # the paper's numbers, compared
        sections.insert(2, ("published-section", "Published reference points",
                            published_section(summary.published, models, summary.published_switch)))
    identity = report_identity(summary)
    data = _data_block({"models": list(models), "edits": len(edits), "report": identity,
                        "review_columns": list(SHEET_COLUMNS), "review_rows": [review_row(e) for e in edits],
                        "sheet_text": SHEET_TEXT_PATTERN})
    return render("page.html.j2", title=summary.title or "asraudit report", subtitle=summary.subtitle or "",
                  report_id=identity, css=safe(CSS), script=safe(SCRIPT), data=safe(data),
                  sections=[{"ident": ident, "title": title, "content": safe(content)}
                            for ident, title, content in sections])
