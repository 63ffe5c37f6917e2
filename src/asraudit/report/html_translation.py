"""The report's translation-probe section: was content the transcript dropped still heard?

One table: per model, kind of span and transcript state, the renderings in
the target language that hold the span's translation, with Wilson intervals;
below it, how many spans each model had and why some were not read.
"""

from __future__ import annotations

from asraudit.report.html_parts import NOT_RUN, counts, ends, esc, table, value_cell

KIND_TITLES = {"dropped": "dropped (said, not in the record)", "invented": "invented (in the record, not said)"}


def translation_section(section) -> str:
    """``section`` is a ``report.translation_rows.TranslationSection`` or None (the probe did not run)."""
    if section is None or not section.rows:
        return NOT_RUN
    rows = [[r.model, KIND_TITLES.get(r.kind, r.kind), r.transcript,
             value_cell(r.rate, *ends(r.rate_interval), extra=counts(r.in_rendering, r.n))]
            for r in section.rows]
    status = "".join(
        f"<li><b>{esc(model)}</b>: " + ", ".join(f"{esc(k)} {esc(v)}" for k, v in by.items()) + "</li>"
        for model, by in (section.spans_by_status or {}).items())
    return (f"<p>Rendered in <b>{esc(section.target)}</b> by {esc(', '.join(section.models))}; spans: "
            f"{esc(section.spans)}; lexicon {esc(section.lexicon)}.</p>"
            + table(["model", "span", "transcript", "rendering holds the span"], rows, "translation")
            + (f'<ul class="note">{status}</ul>' if status else "")
            + '<p class="note">A dropped span the transcript omitted but the rendering holds was heard and then '
            "withheld; an invented span the rendering also holds is written from the record, whatever the language. "
            "Wilson 95% intervals over clips, or over the values of the spec's cluster_field (the voices of one "
            "sentence are not independent).</p>")
