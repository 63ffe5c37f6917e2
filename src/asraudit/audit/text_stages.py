"""The audit stages that read transcripts: transcribe, mine and score, conventions.

These need only each model's transcript of each clip, so they also run on
a corpus of prediction files without audio.  The transcripts are read from
the store once, by the transcribe stage; the files under ``OUT/preds`` are
an export of them for other tools, never read back.
"""

from __future__ import annotations

import json
from pathlib import Path

from asraudit.audit.context import AuditContext
from asraudit.audit.results import (
    AuditResult,
    ConventionsStage,
    MiningStage,
    ModelConventions,
    ModelInfo,
    TranscribeStage,
)
from asraudit.report.rows import AgreementRow, ArmCount, ConventionsRow, SwitchRow, bounds, finite
from asraudit.report.summary import write_json
from asraudit.display_paths import display_model_spec
from asraudit.data.group_values import group_label
from asraudit.data.paths import safe_stems
from asraudit.data.prediction_writer import write_corpus_predictions
from asraudit.metrics.scorers import get_scorer
from asraudit.metrics.stats import Interval
from asraudit.metrics.wer import clip_counts
from asraudit.probes.battery_run import said_texts
from asraudit.probes.conventions_probe import measure_conventions, text_pairs
from asraudit.probes.lift_run import EditItem
from asraudit.probes.refdis_probe import clip_inputs, measure_refdis
from asraudit.probes.rendering import SwitchRate
from asraudit.probes.wer_ranking import measure_wer_ranking
from asraudit.run.prediction_files import stored_transcripts
from asraudit.run.spec import Transcribe

# ------------------------------------------------------------------ transcribe


def transcribe(ctx: AuditContext, done: AuditResult) -> TranscribeStage:
    """Every model on every clip through the store; the transcripts read back once, exported to <out>/preds."""
    names = list(ctx.identities)
    summary = ctx.executor.run(ctx.store, [ctx.models[n] for n in names], ctx.corpus.clips, Transcribe(),
                               description=f"audit {ctx.spec.name}: transcribe")
    ctx.log_jobs("transcribe", summary.models, stored="already stored")
    preds = ctx.out / "preds"
    preds.mkdir(parents=True, exist_ok=True)
    transcripts: dict[str, dict[str, str]] = {}
    missing: dict[str, int] = {}
    stems = safe_stems(names)  # a name is a label ("org/model", "../x"): files get a safe, distinct stem
    for name in names:
        transcripts[name] = _export(ctx, name, preds / f"{stems[name]}.jsonl")
        missing[name] = len(ctx.corpus) - len(transcripts[name])
        if missing[name]:
            ctx.note(f"{name}: {missing[name]} clip(s) have no transcript")
    _retire_stale_exports(ctx, preds, [f"{stems[name]}.jsonl" for name in names])
    timings = {(t.model_id, t.config_hash): t for t in ctx.store.timings(task="transcribe")}
    models = {}
    for name, entry in zip(names, ctx.spec.models):
        ident = ctx.identities[name]
        t = timings.get((ident.model_id, ident.config_hash))
        shown = display_model_spec(entry.spec, ctx.spec.spec_folder, Path.cwd())
        models[name] = ModelInfo(shown, name in ctx.panel, bool(ident.can_score),
                                 finite(t.rtfx) if t and t.compute_seconds > 0 else None)
    return TranscribeStage(models, transcripts, missing)


# In <out>/preds, the exports the last audit into this out wrote (hidden: folder readers skip it).
EXPORTS_LIST = ".asraudit-exports.json"


def _retire_stale_exports(ctx: AuditContext, preds: Path, written: list[str]) -> None:
    """Remove the exports an earlier audit into this ``out`` wrote for models this one does not have.

    ``<out>/preds`` is read as one model per file (``asraudit wer --preds <out>/preds``, as the README shows): a
    model dropped from the spec kept its old export there and was scored beside the audit's models.  Only files
    the list says asraudit wrote are removed (their transcripts stay in the store), never a file of the user's
    own and never one of this run's inputs; the list is then rewritten with this run's exports."""
    listed = preds / EXPORTS_LIST
    try:
        earlier = json.loads(listed.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        earlier = []
    inputs = {Path(m.spec.removeprefix("replay:")).resolve() for m in ctx.spec.models if m.replay}
    inputs |= {Path(p).resolve() for p in (ctx.spec.corpus.manifest, ctx.spec.corpus.predictions) if p}
    for name in earlier if isinstance(earlier, list) else []:
        stale = preds / str(name)
        if (name not in written and stale.parent == preds and stale.suffix == ".jsonl" and stale.is_file()
                and stale.resolve() not in inputs):
            stale.unlink()
            ctx.log(f"removed {stale.name} from {preds.name}/: an earlier audit's export of a model this spec lacks")
    write_json(written, listed)


def _export(ctx: AuditContext, name: str, path) -> dict[str, str]:
    """The model's stored transcripts, clip -> text in corpus order, also written as a leaderboard JSONL file
    (the same two steps ``asraudit transcribe`` takes: the store is read once, the file is only an export)."""
    ident = ctx.identities[name]
    stored = stored_transcripts(ctx.store, ident.model_id, ident.config_hash, (clip.id for clip in ctx.corpus))
    write_corpus_predictions(ctx.corpus, ident.model_id, stored, path)
    return {clip.id: stored[clip.id].text or "" for clip in ctx.corpus if clip.id in stored}


def references(ctx: AuditContext) -> dict[str, str]:
    """clip -> raw reference, in corpus order (a clip without one has the empty reference)."""
    return {clip.id: clip.reference or "" for clip in ctx.corpus}


# ------------------------------------------------------------------ mine and score


def mine_and_score(ctx: AuditContext, done: AuditResult) -> MiningStage:
    """The reference-error probe's one recipe over the transcripts, plus the audit's tables."""
    names = list(ctx.identities)
    transcripts = done.transcribe.transcripts
    clips = clip_inputs(references(ctx), transcripts, ctx.normalize, names)
    group_field = ctx.spec.corpus.group_field
    groups = {c.id: group_label(c.field(group_field), group_field, c.source, c.row)
              for c in ctx.corpus} if group_field else None
    counts = get_scorer(ctx.spec.scorer, ctx.spec.normalizer).counts
    result = measure_refdis(clips, ctx.panel, ctx.spec.refdis, scored=names, groups=groups,
                            n_boot=ctx.spec.bootstrap, seed=ctx.spec.seed, counts=counts)
    full = result.mining.full_panel_edits()
    refs = result.mining.refs
    edit_items = [EditItem(e.edit_id, e.clip_id, e.kind, e.position, refs[e.clip_id], e.ref_start, e.ref_end,
                           tuple(e.a.split())) for e in full]
    tables = {
        "edits": [_edit_row(e) for e in result.edits],
        "verdicts": [{"edit_id": e.edit_id, "clip": e.clip_id, "kind": e.kind, "model": m, "verdict": v,
                      "text": e.texts.get(m, "")} for e in result.edits for m, v in e.verdicts.items()],
        "clips": _clip_rows(result.clips, result.corrected, transcripts, counts),
    }
    truth_field = ctx.spec.corpus.said_field
    truth = None
    if truth_field:
        truth = {c.id: tuple(ctx.normalize(v).split()) for c in ctx.corpus
                 if isinstance(v := c.metadata.get(truth_field), str)}
    ranking = measure_wer_ranking(result.clips, result.edits, names, ctx.panel, truth,
                                  n_boot=ctx.spec.bootstrap, seed=ctx.spec.seed, counts=counts)
    return MiningStage(result, ctx.spec.refdis, tuple(ctx.panel), group_field, edit_items, _said(ctx, edit_items),
                       tables, ranking, truth_field)


def _edit_row(e) -> dict:
    return {"edit_id": e.edit_id, "clip": e.clip_id, "kind": e.kind, "position": e.position,
            "ref_start": e.ref_start, "ref_end": e.ref_end, "r": e.r, "a": e.a, "votes": e.votes,
            "n_panel": e.n_panel, "in_full_panel": e.in_full_panel,
            "loo_for": list(e.loo_for)}  # JSON text in the table, as every list: a model name may hold a comma


def _clip_rows(clips, fixed, transcripts, counts=clip_counts) -> list[dict]:
    """Per clip and model: word errors against the original and the corrected reference (``fixed``)."""
    rows = []
    for clip in clips:
        for model, hyp in clip.hyps.items():
            orig = counts(clip.ref, hyp)
            corr = counts(fixed.get(clip.clip_id, clip.ref), hyp)
            rows.append({"clip": clip.clip_id, "model": model, "ref_words": len(clip.ref),
                         "errors": orig.errors, "substitutions": orig.substitutions, "deletions": orig.deletions,
                         "insertions": orig.insertions, "corrected_ref_words": len(fixed.get(clip.clip_id, clip.ref)),
                         "corrected_errors": corr.errors,
                         "hypothesis": transcripts.get(model, {}).get(clip.clip_id, "")})
    return rows


def _said(ctx: AuditContext, edit_items: list[EditItem]) -> dict[str, str]:
    """What each clip says: the spec's said_field, else the reference with the panel's edits applied."""
    field = ctx.spec.corpus.said_field
    said = None
    if field:
        said = {c.id: v for c in ctx.corpus if isinstance(v := c.metadata.get(field), str)}
    return said_texts(ctx.corpus, said, edit_items)


# ------------------------------------------------------------------ conventions


def switch_row(s: SwitchRate) -> SwitchRow:
    iv = s.wilson()
    return SwitchRow(s.model, s.group, s.pooled, finite(iv.estimate), bounds(iv), s.measurable,
                     s.reason(), {a.label: ArmCount(a.hits, a.clips) for a in s.arms})


def conventions(ctx: AuditContext, done: AuditResult) -> ConventionsStage:
    """Switch rate (min over arms) and agreement with the reference's conventions, per model."""
    params = ctx.spec.conventions
    names = list(ctx.identities)
    transcripts = done.transcribe.transcripts
    measured = measure_conventions(text_pairs(references(ctx), {m: transcripts[m] for m in names}), params,
                                   n_boot=min(ctx.spec.bootstrap, 1000), seed=ctx.spec.seed)
    switch = measured.pooled + measured.switch
    rows = [switch_row(s) for s in switch]
    agree = [AgreementRow(a.model, a.group, finite(a.rate), bounds(Interval(a.rate, a.low, a.high)), a.agree,
                          a.rendered) for a in measured.agreement]   # a bootstrap over clips (probes.rendering)
    # The report shows the pooled groups (one row per model and pool); per-family rows go to the Parquet table.
    shown = [r for r in rows if r.pooled] or rows
    table = [{"model": r.model, "group": r.group, "pooled": r.pooled, "s": r.s, "lo": r.s_interval.low,
              "hi": r.s_interval.high,  # Parquet: flat bound columns, as before layout 2.0
              "measurable": r.measurable, "note": r.note} for r in rows]
    per_model = {}
    for name in names:
        measured_rows = [(s, r) for s, r in zip(switch, rows) if r.model == name and r.measurable]
        best_switch, note = None, ""
        if measured_rows:
            # The best-measured group: the one whose limiting arm has the most clips.
            s, best = max(measured_rows, key=lambda sr: min(a.n for a in sr[1].arms.values()
                                                             if a.n >= params.min_per_arm))
            best_switch, note = s.wilson(), f"{best.group} ({len(measured_rows)} measurable group(s))"
        else:
            used = [r for r in rows if r.model == name]
            note = "not measurable: " + (used[0].note if used else "no convention family occurs in the references")
        overall = next((a for a in measured.agreement if a.model == name and a.group == "all"), None)
        agreement = None if overall is None else Interval(overall.rate, overall.low, overall.high)
        per_model[name] = ModelConventions(best_switch, note, agreement)
    return ConventionsStage(ConventionsRow(shown, agree), per_model, table, tuple(rows))
