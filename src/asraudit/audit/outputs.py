"""What an audit leaves behind: flags, summary.json, Parquet tables, report.html, the terminal table.

Flags are rules a reader can check against the numbers next to them, never
a score of their own: a model is flagged when its accept-ref is clearly
high (the lower end of its Wilson interval above ``[report]
flag_accept_ref``) or clearly above every panel member's (its interval
entirely above theirs), and each reason is written out.  Supporting
evidence (masked recovery above the control words', a positive audio lift
of the reference at edits) is added to the reasons of a flagged model but
does not flag on its own, because either can happen for a model that
simply hears well.
"""

from __future__ import annotations

import datetime as _dt
import importlib.metadata
import json
import math
import platform
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from asraudit.version import __version__
from asraudit.audit.context import AuditContext
from asraudit.audit.edit_audio import edit_audio, time_edits
from asraudit.audit.results import AuditResult, Flag
from asraudit.report.rows import (
    Bounds,
    CorpusInfo,
    EditModelView,
    EditView,
    ModelIdentity,
    Provenance,
    Sampling,
    flat_row,
)
from asraudit.audit.results import build_summary, sampling_of, write_summary
from asraudit.report.summary import Summary
from asraudit.data.paths import write_text_whole, written_whole
from asraudit.display_paths import display_model_spec, display_path
from asraudit.probes.corrected import hyp_span_of
from asraudit.probes.refdis import HypCells
from asraudit.probes.sampling import sample
from asraudit.report.html import render_report
from asraudit.report.tables import fmt_interval, fmt_rate, render_table
from asraudit.terminal_text import one_line
from asraudit.run.store import ResultStore

__all__ = ["flag_models", "print_summary", "provenance", "report_edits", "write_report", "write_summary",
           "write_tables"]

PACKAGES = ("numpy", "rapidfuzz", "ctranslate2", "pocketsphinx", "torch", "transformers", "pyarrow", "soundfile")


def _pct(x) -> str:
    return "–" if x is None or x != x else f"{100 * x:.1f}%"


def flag_models(ctx: AuditContext, result: AuditResult) -> dict[str, Flag]:
    """Each model's flag and its reasons, from the typed results (accept-ref, masked recovery, lift)."""
    if result.mining is None:
        return {}
    threshold = ctx.spec.report.flag_accept_ref
    accept = result.mining.refdis.accept_ref
    # Wilson bounds always exist ((0, 1) on no edits), so a member without edits counts with its upper bound 1.
    panel_hi = [accept[n].high for n in accept if n in ctx.panel]
    flags = {}
    for name, a in accept.items():
        reasons = []
        lo, hi = a.low, a.high
        if lo > threshold:
            reasons.append(f"accept-ref {_pct(a.rate)} (95% CI {_pct(lo)}–{_pct(hi)}, "
                           f"{a.n_ref}/{a.n_eligible} edits): the interval lies above {_pct(threshold)}")
        if name not in ctx.panel and panel_hi and lo > max(panel_hi):
            reasons.append(f"accept-ref interval lies above every panel member's (highest upper bound "
                           f"{_pct(max(panel_hi))})")
        if reasons:
            rec = result.masked.per_model.get(name) if result.masked is not None else None
            if rec is not None and rec.recovery.low == rec.recovery.low and rec.control.high == rec.control.high \
                    and rec.recovery.low > rec.control.high:
                reasons.append(f"masked recovery {_pct(rec.recovery.estimate)} above the control words' "
                               f"{_pct(rec.control.estimate)}")
            lift = result.lift.per_model.get(name) if result.lift is not None else None
            if lift is not None and lift[0].low == lift[0].low and lift[0].low > 0:
                reasons.append(f"audio lift of the reference at edits λ(r) = {lift[0].estimate:+.3f} nats/char "
                               "(the audio raised the likelihood of words it does not contain)")
        flags[name] = Flag(reasons)
    return flags


def report_edits(ctx: AuditContext, result: AuditResult) -> list[EditView]:
    """The edits the report's browser shows, each model's normalized hypothesis with the disputed place marked."""
    if result.mining is None:
        return []
    refdis = result.mining.refdis
    edits = sample(refdis.mining.full_panel_edits(), lambda e: e.edit_id, ctx.spec.report.max_edits_shown,
                   ctx.spec.seed)
    clips = {c.clip_id: c for c in refdis.clips}  # normalized once, by the mining stage
    transcripts = result.transcribe.transcripts
    out = []
    for e in edits:
        ref = refdis.mining.refs[e.clip_id]
        clip = clips.get(e.clip_id)
        per = {}
        for name in ctx.identities:
            hyp = clip.hyps.get(name) if clip is not None else None
            if hyp is None:
                continue
            lo, hi = hyp_span_of(HypCells(ref, hyp), e.ref_start, e.ref_end)
            per[name] = EditModelView(e.verdicts.get(name, "none"), " ".join(hyp), list(hyp), [lo, hi],
                                      e.texts.get(name, ""), transcripts.get(name, {}).get(e.clip_id, ""))
        out.append(EditView(e.edit_id, e.clip_id, e.kind, e.position, e.r, e.a, list(ref),
                            [e.ref_start, e.ref_end], per, votes=e.votes, n_panel=e.n_panel))
    time_edits(ctx, out, result.mining.edit_items)
    return out


def provenance(ctx: AuditContext, result: AuditResult, runtime_s: float) -> Provenance:
    versions = {}
    for pkg in PACKAGES:
        try:
            versions[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            continue
    bases = (ctx.spec.spec_folder, Path.cwd())  # what is shown is relative to the spec, never the machine's layout
    return Provenance(
        asraudit=__version__,
        created=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        spec_file=display_path(ctx.spec.source, ctx.spec.spec_folder),
        spec=ctx.spec.to_json(),
        corpus=CorpusInfo(display_model_spec(str(ctx.corpus.source), *bases), len(ctx.corpus),
                          ctx.spec.corpus.language),
        models={n: ModelIdentity(display_model_spec(i.model_id, *bases), i.config_hash, bool(i.can_score))
                for n, i in ctx.identities.items()},
        panel=list(ctx.panel),
        seed=ctx.spec.seed,
        normalizer=ctx.spec.normalizer,
        scorer=ctx.spec.scorer,
        bootstrap=ctx.spec.bootstrap,
        python=sys.version.split()[0],
        platform=platform.platform(),
        packages=versions,
        store=display_path(ctx.store.path, *bases) if isinstance(ctx.store, ResultStore) else None,
        runtime_s=round(runtime_s, 1),
        notes=list(ctx.notes),
        sampling=sampling_of(result) or Sampling(),
    )


def stage_tables(result: AuditResult) -> dict[str, list[dict]]:
    """Every stage's rows for the Parquet tables, by table name."""
    tables: dict[str, list[dict]] = {}
    if result.mining is not None:
        tables.update(result.mining.tables)
    for name, stage in (("masked", result.masked), ("lift", result.lift), ("conventions", result.conventions),
                        ("translation", result.translation), ("mechanism", result.mechanism)):
        if stage is not None:
            tables[name] = stage.table
    if result.battery is not None:
        tables["battery"] = [flat_row(r) for r in result.battery.rows.rows]
    return tables


# Every table an audit can write (``stage_tables``' names): ``tables/`` holds this run's, and no other.
TABLE_NAMES = ("edits", "verdicts", "clips", "masked", "lift", "conventions", "translation", "mechanism", "battery")


def write_tables(out: Path, result: AuditResult) -> list[Path]:
    """One Parquet file per table (edits, verdicts, clips, masked, lift, battery, conventions, mechanism).

    A table this run has no rows for is removed if an earlier run into the same ``out`` left one: a rerun
    without the battery kept the last run's ``battery.parquet`` beside a summary that has no battery, and a
    reader of ``tables/`` took the two runs for one.  Each file is written whole, then moved into place."""
    folder = out / "tables"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, rows in stage_tables(result).items():
        if not rows:
            continue
        columns = list(dict.fromkeys(k for r in rows for k in r))
        data = {c: [_cell(r.get(c)) for r in rows] for c in columns}
        # A column with no value in this run (a switch rate and its bounds where nothing was measurable) would be
        # Arrow's null type, and concatenating the table with another run's, where it holds numbers, fails on the
        # schema; such columns are the rates and bounds of rows that could not be measured, so they are float64.
        types = {c: pa.float64() for c, values in data.items() if all(v is None for v in values)}
        path = folder / f"{name}.parquet"
        with written_whole(path) as tmp:
            pq.write_table(pa.table({c: pa.array(v, type=types.get(c)) for c, v in data.items()}), tmp)
        written.append(path)
    for name in TABLE_NAMES:
        stale = folder / f"{name}.parquet"
        if stale not in written and stale.is_file():
            stale.unlink()
    return written


def _cell(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False)
    return value


def write_report(out: Path, result: AuditResult, ctx: AuditContext | None = None) -> Path:
    """report.html; with the audit's context, the edits' clips play in the page (``audit.edit_audio``)."""
    path = out / "report.html"
    audio = edit_audio(ctx, result.edits) if ctx is not None and result.edits else None
    return write_text_whole(path, render_report(build_summary(result), audio))  # a killed run leaves the last


def _with_interval(text: str, interval: Bounds | None, fmt) -> str:
    if interval is None or interval.low is None or interval.high is None:
        return text
    return f"{text} [{fmt(interval.low)}, {fmt(interval.high)}]"


def print_summary(summary: Summary, file=None) -> None:
    """The terminal table: per model WER, accept-ref, masked recovery, switch rate, lift, WER gained; flags."""
    out = file or sys.stdout
    rows = []

    def rate(value, interval=None, digits=1):
        if value is None:
            return "–"
        text = fmt_rate(value, digits)
        if interval is not None and interval.low is not None and interval.high is not None:
            text += " " + fmt_interval(interval.low, interval.high, digits=digits)
        return text

    for name, m in summary.models.items():
        lift = "–" if m.lift is None else _with_interval(f"{m.lift:+.3f}", m.lift_interval, lambda x: f"{x:+.2f}")
        switch = "–" if m.switch_rate is None else _with_interval(f"{m.switch_rate:.2f}", m.switch_rate_interval,
                                                                  lambda x: f"{x:.2f}")
        accept = rate(m.accept_ref, m.accept_ref_interval)
        if m.n_eligible is not None:
            accept += f" {m.n_ref or 0}/{m.n_eligible}"
        rows.append([("⚑ " if m.flagged else "") + name + (" (panel)" if m.panel else ""),
                     rate(m.wer, m.wer_interval), accept, rate(m.recovery, m.recovery_interval), switch, lift,
                     rate(m.wer_gained, m.wer_gained_interval, digits=2)])
    render_table(["model", "WER [95% CI]", "accept-ref [Wilson 95%] ref/eligible", "masked recovery",
                  "switch rate", "λ(r) nats/char", "WER gained by echoing"], rows,
                 title=summary.title or "audit", file=out)
    for name, m in summary.models.items():
        if m.flagged:
            print(one_line(f"⚑ {name} flagged: " + "; ".join(m.flag_reasons)), file=out)
    if summary.translation is not None and summary.translation.rows:
        t = summary.translation
        render_table(["model", "span", "transcript", f"rendering in {t.target} holds it [Wilson 95%]"],
                     [[r.model, r.kind, r.transcript, rate(r.rate, r.rate_interval) + f" {r.in_rendering}/{r.n}"]
                      for r in t.rows], title=f"translation probe ({t.spans} spans)", file=out)
    notes = {m.switch_note for m in summary.models.values() if m.switch_rate is None}
    for note in sorted(n for n in notes if n):
        print(one_line(f"switch rate {note}"), file=out)
