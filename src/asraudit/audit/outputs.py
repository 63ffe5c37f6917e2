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

from asraudit import __version__
from asraudit.audit.context import AuditContext

PACKAGES = ("numpy", "rapidfuzz", "ctranslate2", "pocketsphinx", "torch", "transformers", "pyarrow", "soundfile")


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def flag_models(ctx: AuditContext) -> None:
    threshold = ctx.spec.report.flag_accept_ref
    models = ctx.summary.get("models", {})
    panel_hi = [m["accept_ref_ci"][1] for n, m in models.items()
                if n in ctx.panel and m.get("accept_ref_ci") and m["accept_ref_ci"][1] is not None]
    for name, m in models.items():
        reasons = []
        lo, hi = (m.get("accept_ref_ci") or [None, None])
        if lo is not None and lo > threshold:
            reasons.append(f"accept-ref {_pct(m['accept_ref'])} (95% CI {_pct(lo)}–{_pct(hi)}, "
                           f"{m['n_ref']}/{m['n_eligible']} edits): the interval lies above {_pct(threshold)}")
        if name not in ctx.panel and lo is not None and panel_hi and lo > max(panel_hi):
            reasons.append(f"accept-ref interval lies above every panel member's (highest upper bound "
                           f"{_pct(max(panel_hi))})")
        if reasons:
            rec, ctl = m.get("recovery_ci"), m.get("control_recovery_ci")
            if rec and ctl and rec[0] is not None and ctl[1] is not None and rec[0] > ctl[1]:
                reasons.append(f"masked recovery {_pct(m['recovery'])} above the control words' "
                               f"{_pct(m['control_recovery'])}")
            lift = m.get("lift_ci")
            if lift and lift[0] is not None and lift[0] > 0:
                reasons.append(f"audio lift of the reference at edits λ(r) = {m['lift']:+.3f} nats/char "
                               "(the audio raised the likelihood of words it does not contain)")
        m["flagged"] = bool(reasons)
        m["flag_reasons"] = reasons


def report_edits(ctx: AuditContext) -> list[dict]:
    """The edits the report's browser shows, each model's normalized hypothesis with the disputed place marked."""
    from asraudit.audit.audio_stages import sample
    from asraudit.probes.corrected import hyp_span_of
    from asraudit.probes.refdis import HypCells

    if ctx.mining is None:
        return []
    edits = sample(ctx.mining.full_panel_edits(), lambda e: e.edit_id, ctx.spec.report.max_edits_shown,
                   ctx.spec.seed)
    out = []
    for e in edits:
        ref = ctx.mining.refs[e.clip_id]
        clip = ctx.clip_inputs.get(e.clip_id)  # normalized once, by the mining stage
        per = {}
        for name in ctx.identities:
            hyp = clip.hyps.get(name) if clip is not None else None
            if hyp is None:
                continue
            lo, hi = hyp_span_of(HypCells(ref, hyp), e.ref_start, e.ref_end)
            per[name] = {"verdict": e.verdicts.get(name, "none"), "text": " ".join(hyp), "tokens": list(hyp),
                         "span": [lo, hi], "words": e.texts.get(name, ""),
                         "raw": ctx.transcripts.get(name, {}).get(e.clip_id, "")}
        out.append({"edit_id": e.edit_id, "clip": e.clip_id, "kind": e.kind, "position": e.position, "r": e.r,
                    "a": e.a, "ref_tokens": list(ref), "span": [e.ref_start, e.ref_end], "models": per})
    return out


def provenance(ctx: AuditContext, runtime_s: float) -> dict:
    versions = {}
    for pkg in PACKAGES:
        try:
            versions[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            continue
    return {
        "asraudit": __version__,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "spec_file": ctx.spec.source,
        "spec": ctx.spec.to_json(),
        "corpus": {"source": str(ctx.corpus.source), "clips": len(ctx.corpus)},
        "models": {n: {"model_id": i.model_id, "config_hash": i.config_hash, "can_score": bool(i.can_score)}
                   for n, i in ctx.identities.items()},
        "panel": list(ctx.panel),
        "seed": ctx.spec.seed,
        "normalizer": ctx.spec.normalizer,
        "bootstrap": ctx.spec.bootstrap,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "packages": versions,
        "store": str(ctx.store.path) if hasattr(ctx.store, "path") else None,
        "runtime_s": round(runtime_s, 1),
        "notes": list(ctx.notes),
        "sampling": ctx.summary.get("sampling", {}),
    }


def _clean(value):
    """NaN and infinities become null: JSON has no NaN, and a reader must not mistake one for a number."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def write_summary(ctx: AuditContext) -> Path:
    path = ctx.out / "summary.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(_clean(ctx.summary), indent=1, ensure_ascii=False, allow_nan=False) + "\n",
                   encoding="utf-8")
    tmp.replace(path)
    return path


def write_tables(ctx: AuditContext) -> list[Path]:
    """One Parquet file per table (edits, verdicts, clips, masked, lift, battery, conventions, mechanism)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = ctx.out / "tables"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, rows in ctx.tables.items():
        if not rows:
            continue
        columns = list(dict.fromkeys(k for r in rows for k in r))
        data = {c: [_cell(r.get(c)) for r in rows] for c in columns}
        table = pa.table(data)
        path = folder / f"{name}.parquet"
        pq.write_table(table, path)
        written.append(path)
    return written


def _cell(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False)
    return value


def write_report(ctx: AuditContext) -> Path:
    from asraudit.report.html import render_report

    path = ctx.out / "report.html"
    path.write_text(render_report(_clean(ctx.summary)), encoding="utf-8")
    return path


def print_summary(summary: dict, file=None) -> None:
    """The terminal table: per model WER, accept-ref, masked recovery, switch rate, lift, WER gained; flags."""
    from asraudit.report.tables import fmt_interval, fmt_rate, render_table

    out = file or sys.stdout
    rows = []

    def rate(value, ci=None, digits=1):
        if value is None:
            return "–"
        text = fmt_rate(value, digits)
        if ci and ci[0] is not None and ci[1] is not None:
            text += " " + fmt_interval(ci[0], ci[1], digits=digits)
        return text

    for name, m in summary.get("models", {}).items():
        lift = "–" if m.get("lift") is None else f"{m['lift']:+.3f}"
        if m.get("lift_ci") and m["lift_ci"][0] is not None:
            lift += f" [{m['lift_ci'][0]:+.2f}, {m['lift_ci'][1]:+.2f}]"
        switch = "–" if m.get("switch_rate") is None else f"{m['switch_rate']:.2f}"
        if m.get("switch_rate") is not None and m.get("switch_rate_ci"):
            switch += f" [{m['switch_rate_ci'][0]:.2f}, {m['switch_rate_ci'][1]:.2f}]"
        accept = rate(m.get("accept_ref"), m.get("accept_ref_ci"))
        if m.get("n_eligible") is not None:
            accept += f" {m.get('n_ref', 0)}/{m['n_eligible']}"
        rows.append([("⚑ " if m.get("flagged") else "") + name + (" (panel)" if m.get("panel") else ""),
                     rate(m.get("wer"), m.get("wer_ci")), accept,
                     rate(m.get("recovery"), m.get("recovery_ci")), switch, lift,
                     rate(m.get("wer_gained"), m.get("wer_gained_ci"), digits=2)])
    render_table(["model", "WER [95% CI]", "accept-ref [Wilson 95%] ref/eligible", "masked recovery",
                  "switch rate", "λ(r) nats/char", "WER gained by echoing"], rows,
                 title=summary.get("title", "audit"), file=out)
    for name, m in summary.get("models", {}).items():
        if m.get("flagged"):
            print(f"⚑ {name} flagged: " + "; ".join(m.get("flag_reasons", [])), file=out)
    notes = {m.get("switch_note") for m in summary.get("models", {}).values() if m.get("switch_rate") is None}
    for note in sorted(n for n in notes if n):
        print(f"switch rate {note}", file=out)
