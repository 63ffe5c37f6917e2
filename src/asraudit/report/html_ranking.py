"""The report's "three WERs" section: the record, the leave-one-out corrected references, the truth.

Its point is the ranking: a model that echoes the record's errors can rank
first on the official WER and lower once the references say what the audio
says.  The section shows each model's three WERs with their intervals, its
place under each, and how far the panel-corrected WER is from the truth's
(only on benchmarks that know what was said).
"""

from __future__ import annotations

from asraudit.report.html_parts import NOT_RUN, Number, delta_cell, ends, esc, table, value_cell

SCHEME_TITLES = {"record": "record (official)", "corrected_loo": "panel-corrected (leave-one-out)", "truth": "truth"}


def wer_ranking_section(ranking) -> str:
    """``ranking`` is a ``report.rows.WerRankingRow`` or None (the mining did not run)."""
    if ranking is None or not ranking.models:
        return NOT_RUN
    has_truth = "truth" in (ranking.ranking or {})
    columns = ["model", "WER record", "rank (record)", "WER corrected (LOO)", "rank (corrected)"]
    if has_truth:
        columns += ["WER truth", "rank (truth)", "corrected − truth"]
    rows = []
    order = ranking.ranking.get("record") or list(ranking.models)
    for name in order:
        r = ranking.models[name]
        label = name + (" (panel)" if r.panel_member else "")
        row = [label, value_cell(r.wer_record, *ends(r.wer_record_interval)), Number(str(r.rank_record)),
               value_cell(r.wer_corrected_loo, *ends(r.wer_corrected_loo_interval)), Number(str(r.rank_corrected_loo))]
        if has_truth:
            row += [value_cell(r.wer_truth, *ends(r.wer_truth_interval)), Number(str(r.rank_truth or "–")),
                    delta_cell(r.corrected_minus_truth, *ends(r.corrected_minus_truth_interval), rate=True)]
        rows.append(row)
    firsts = "; ".join(f"{esc(SCHEME_TITLES.get(k, k))}: {esc(v[0])}" for k, v in ranking.ranking.items() if v)
    fallback = sum(r.record_fallback_clips for r in ranking.models.values())
    note = (f"<p>{esc(ranking.clips)} clips every model ran. First place — {firsts}. A panel member is scored "
            "against the corrections of the panel without it, never against corrections it voted for"
            + (f" ({esc(fallback)} member-clips had none and are scored on the record)" if fallback else "")
            + "." + (f" Truth: the corpus field {esc(ranking.truth_field)}." if has_truth and ranking.truth_field else "")
            + "</p>")
    return note + table(columns, rows, "wer-ranking")
