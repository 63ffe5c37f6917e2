"""The audit stages that read transcripts: transcribe, mine and score, conventions.

These need only each model's transcript of each clip, so they also run on
a corpus of prediction files without audio.  Every number they add to the
summary carries its denominator and interval, as the report shows them.
"""

from __future__ import annotations

import math

from asraudit.audit.context import AuditContext

KINDS = ("delete", "insert", "substitute")


def _finite(x) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _ar_json(a) -> dict:
    return {"rate": _finite(a.rate), "lo": _finite(a.low), "hi": _finite(a.high), "n_ref": a.n_ref,
            "n_eligible": a.n_eligible}


# ------------------------------------------------------------------ transcribe


def transcribe(ctx: AuditContext) -> None:
    """Every model on every clip through the store; prediction files in <out>/preds from the store."""
    from asraudit.run.prediction_files import write_predictions
    from asraudit.data.paths import safe_stems
    from asraudit.data.predictions import load_named_predictions
    from asraudit.run.spec import Transcribe

    names = list(ctx.identities)
    summary = ctx.executor.run(ctx.store, [ctx.models[n] for n in names], ctx.corpus.clips, Transcribe(),
                               description=f"audit {ctx.spec.name}: transcribe")
    for name, stats in zip(names, summary.models):
        ctx.log(f"{name}: transcribe: {stats.jobs_run} job(s) run now, {stats.jobs_done_before} already stored")
    preds = ctx.out / "preds"
    preds.mkdir(parents=True, exist_ok=True)
    paths = {}
    stems = safe_stems(names)  # a name is a label ("org/model", "../x"): files get a safe, distinct stem
    for name in names:
        ident = ctx.identities[name]
        path, missing = write_predictions(ctx.store, ctx.corpus, ident.model_id, ident.config_hash,
                                          preds / f"{stems[name]}.jsonl")
        if missing:
            ctx.note(f"{name}: {missing} clip(s) have no transcript")
        paths[name] = path
    ctx.predictions = load_named_predictions(paths)
    ctx.transcripts = {n: {cid: p.hypothesis for cid, p in ctx.predictions.models[n].rows.items()} for n in names}
    timings = {(t.model_id, t.config_hash): t for t in ctx.store.timings(task="transcribe")}
    for name in names:
        ident = ctx.identities[name]
        t = timings.get((ident.model_id, ident.config_hash))
        m = ctx.model_summary(name)
        m.update({"spec": next(s.spec for s, n in zip(ctx.spec.models, names) if n == name),
                  "panel": name in ctx.panel, "can_score": bool(ident.can_score),
                  "rtfx": _finite(t.rtfx) if t and t.compute_seconds > 0 else None})


# ------------------------------------------------------------------ mine and score


def mine_and_score(ctx: AuditContext) -> None:
    """Mine the panel's edits; accept-ref (all, by kind, by group), WER original/corrected/gained."""
    from asraudit.probes.corrected import corrected_references
    from asraudit.probes.inflation import wer_cost
    from asraudit.probes.lift_run import EditItem
    from asraudit.probes.refdis import MinerParams, mine, prepare_clips
    from asraudit.probes.refdis_score import accept_ref, breakdown

    names = list(ctx.identities)
    rd = ctx.spec.refdis
    params = MinerParams(majority=rd.majority, min_panel=rd.min_panel, min_ref_match=rd.min_ref_match)
    clips = prepare_clips(ctx.predictions, ctx.normalize, names)
    result = mine(clips, ctx.panel, params, scored=names)
    ctx.mining = result
    seed, n_boot = ctx.spec.seed, ctx.spec.bootstrap
    scores = accept_ref(result.edits, names, n_boot=n_boot, seed=seed)
    by_kind = breakdown(result.edits, names, lambda e: e.kind, KINDS)
    fixed = corrected_references(result)
    cost = wer_cost(clips, fixed, result.edits, names, n_boot=n_boot, seed=seed)
    for name in names:
        a, c = scores[name], cost[name]
        ctx.model_summary(name).update({
            "accept_ref": _finite(a.rate), "accept_ref_ci": [_finite(a.low), _finite(a.high)],
            "n_ref": a.n_ref, "n_eligible": a.n_eligible,
            "wer": _finite(c.original.estimate), "wer_ci": [_finite(c.original.low), _finite(c.original.high)],
            "wer_corrected": _finite(c.corrected.estimate),
            "wer_corrected_ci": [_finite(c.corrected.low), _finite(c.corrected.high)],
            "wer_gained": _finite(c.gained.estimate), "wer_gained_ci": [_finite(c.gained.low), _finite(c.gained.high)],
            "n_echoed": c.n_echoed,
        })
    ctx.summary["accept_ref_by_kind"] = {m: {k: _ar_json(by_kind[k][m]) for k in KINDS} for m in names}
    group_field = ctx.spec.corpus.group_field
    if group_field:
        value_of = {c.id: str(c.metadata.get(group_field)) for c in ctx.corpus}
        groups = list(dict.fromkeys(value_of.values()))
        per = breakdown(result.edits, names, lambda e: value_of.get(e.clip_id, "None"), groups)
        ctx.summary["accept_ref_by_group"] = {
            "field": group_field, "groups": {g: {m: _ar_json(per[g][m]) for m in names} for g in groups}}
    full = result.full_panel_edits()
    ctx.summary["mining"] = {
        "edits": len(full), "edits_leave_one_out": len(result.edits) - len(full), "clips": result.n_clips,
        "clips_with_edits": len({e.clip_id for e in full}), "status": dict(result.status),
        "by_kind": {k: sum(1 for e in full if e.kind == k) for k in KINDS}, "panel": list(ctx.panel),
        "params": {"majority": params.majority, "min_panel": params.min_panel, "min_ref_match": params.min_ref_match,
                   "min_consensus_cer": params.min_consensus_cer, "leave_one_out": params.leave_one_out},
    }
    ctx.edit_items = [EditItem(e.edit_id, e.clip_id, e.kind, e.position, result.refs[e.clip_id], e.ref_start,
                               e.ref_end, tuple(e.a.split())) for e in full]
    ctx.tables["edits"] = [_edit_row(e) for e in result.edits]
    ctx.tables["verdicts"] = [{"edit_id": e.edit_id, "clip": e.clip_id, "kind": e.kind, "model": m, "verdict": v,
                               "text": e.texts.get(m, "")} for e in result.edits for m, v in e.verdicts.items()]
    ctx.tables["clips"] = _clip_rows(ctx, clips, fixed)
    ctx.clip_inputs = {c.clip_id: c for c in clips}
    _said(ctx)


def _edit_row(e) -> dict:
    return {"edit_id": e.edit_id, "clip": e.clip_id, "kind": e.kind, "position": e.position,
            "ref_start": e.ref_start, "ref_end": e.ref_end, "r": e.r, "a": e.a, "votes": e.votes,
            "n_panel": e.n_panel, "in_full_panel": e.in_full_panel, "loo_for": ",".join(e.loo_for)}


def _clip_rows(ctx: AuditContext, clips, fixed) -> list[dict]:
    """Per clip and model: word errors against the original and the corrected reference (``fixed``)."""
    from asraudit.metrics.wer import clip_counts

    rows = []
    for clip in clips:
        for model, hyp in clip.hyps.items():
            orig = clip_counts(clip.ref, hyp)
            corr = clip_counts(fixed.get(clip.clip_id, clip.ref), hyp)
            rows.append({"clip": clip.clip_id, "model": model, "ref_words": len(clip.ref),
                         "errors": orig.errors, "substitutions": orig.substitutions, "deletions": orig.deletions,
                         "insertions": orig.insertions, "corrected_ref_words": len(fixed.get(clip.clip_id, clip.ref)),
                         "corrected_errors": corr.errors,
                         "hypothesis": ctx.transcripts.get(model, {}).get(clip.clip_id, "")})
    return rows


def _said(ctx: AuditContext) -> None:
    """What each clip says: the spec's said_field, else the reference with the panel's edits applied."""
    from asraudit.probes.battery_run import corrected_texts

    field = ctx.spec.corpus.said_field
    for clip in ctx.corpus:
        value = clip.metadata.get(field) if field else None
        ctx.said[clip.id] = value if isinstance(value, str) else (clip.reference or "")
    if not field:
        ctx.said.update(corrected_texts(ctx.edit_items))


# ------------------------------------------------------------------ conventions


def conventions(ctx: AuditContext) -> None:
    """Switch rate (min over arms) and agreement with the reference's conventions, per model."""
    from asraudit.probes.families import load_catalogue
    from asraudit.probes.rendering import agreement, collect, pooled_switch_rates, switch_rates

    cs = ctx.spec.conventions
    names = list(ctx.identities)
    audit = collect(load_catalogue(cs.language), {m: ctx.predictions.models[m].rows for m in names})
    switch = pooled_switch_rates(audit, cs.min_per_arm) + switch_rates(audit, cs.min_per_arm)
    rows = []
    for s in switch:
        lo, hi = s.interval
        rows.append({"model": s.model, "group": s.group, "pooled": s.pooled, "s": _finite(s.switch),
                     "lo": _finite(lo), "hi": _finite(hi), "measurable": s.measurable, "note": s.reason(),
                     "arms": {a.label: {"follow": a.hits, "n": a.clips} for a in s.arms}})
    agree = agreement(audit, by="class", n_boot=min(ctx.spec.bootstrap, 1000), seed=ctx.spec.seed)
    arows = [{"model": a.model, "group": a.group, "rate": _finite(a.rate), "lo": _finite(a.low), "hi": _finite(a.high),
              "agree": a.agree, "rendered": a.rendered} for a in agree]
    # The report shows the pooled groups (one row per model and pool); per-family rows go to the Parquet table.
    shown = [r for r in rows if r["pooled"]] or rows
    ctx.summary["conventions"] = {"switch": shown, "agreement": arows}
    ctx.tables["conventions"] = [{k: v for k, v in r.items() if k != "arms"} for r in rows]
    for name in names:
        m = ctx.model_summary(name)
        measured = [r for r in rows if r["model"] == name and r["measurable"]]
        if measured:
            # The best-measured group: the one whose limiting arm has the most clips.
            best = max(measured, key=lambda r: min(a["n"] for a in r["arms"].values() if a["n"] >= cs.min_per_arm))
            m.update({"switch_rate": best["s"], "switch_rate_ci": [best["lo"], best["hi"]],
                      "switch_note": f"{best['group']} ({len(measured)} measurable group(s))"})
        else:
            used = [r for r in rows if r["model"] == name]
            m.update({"switch_rate": None, "switch_note": "not measurable: " + (
                used[0]["note"] if used else "no convention family occurs in the references")})
        overall = next((a for a in arows if a["model"] == name and a["group"] == "all"), None)
        if overall:
            m.update({"convention_agreement": overall["rate"],
                      "convention_agreement_ci": [overall["lo"], overall["hi"]]})
