"""The audit's translation stage: ``[translation]`` through the probe's one entry.

Which models: those the section names, else every audited model that can
render another language (a multilingual Whisper, a speech LLM with a known
translation prompt); the others are named in a note.  Each is loaded a
second time with the target's language token (or translation prompt), so its
renderings are stored apart from its transcripts (``models.target_language``).
Spans: the planted ones of ``truth`` when the section gives a truth file,
else the panel's mined insertions and deletions.
"""

from __future__ import annotations

import functools

from asraudit.audit.context import AuditContext
from asraudit.audit.results import AuditResult, TranslationStage
from asraudit.audit.spec import AuditSpec, SpecError
from asraudit.models.registry import load_model
from asraudit.errors import InputError
from asraudit.models.target_language import cannot_render, prompt_use, renderer_options
from asraudit.probes.translation_probe import (
    items_from_edits,
    items_from_truth,
    measure_translation,
    read_truth,
)
from asraudit.report.rows import bounds, finite
from asraudit.report.translation_rows import TranslationRow, TranslationSection
from asraudit.run.grid import materialize
from asraudit.text.normalize import get_normalizer


def check_translation(spec: AuditSpec, loaded: dict[str, object]) -> None:
    """Before any model runs: every model the section names can render its target, and some model can."""
    section = spec.translation
    params = section.params
    named = list(section.models)
    params.validate().keyed(get_normalizer(spec.normalizer))  # a span two lexicon entries give: before any model runs
    for name in named:
        reason = cannot_render(loaded[name], params.target, params.prompt)
        if reason is not None:
            raise SpecError(f"[translation] models: {name} cannot render {params.target}: {reason}", spec.source)
    if not named and not any(cannot_render(m, params.target, params.prompt) is None for m in loaded.values()):
        raise SpecError(f"[translation]: none of the audit's models can render {params.target} (a multilingual "
                        "Whisper or a speech LLM can; English-only Whispers cannot)", spec.source)
    try:  # a prompt no renderer reads (only speech LLMs read one) is refused; some readers: a note at the stage
        prompt_use(_renderers_of(section, loaded), params.target, params.prompt, "[translation] prompt")
    except InputError as exc:
        raise SpecError(str(exc), spec.source) from None


def _renderers_of(section, loaded: dict[str, object]) -> dict[str, object]:
    """The loaded models the stage renders with: those the section names, else every one that can render."""
    if section.models:
        return {name: loaded[name] for name in section.models if name in loaded}
    return {name: m for name, m in loaded.items()
            if cannot_render(m, section.params.target, section.params.prompt) is None}


def _renderable(ctx: AuditContext) -> list[str]:
    ts = ctx.spec.translation
    if ts.models:
        return ctx.models_named(ts.models)
    chosen = []
    for name in ctx.models_named():
        reason = cannot_render(materialize(ctx.models[name]), ts.params.target, ts.params.prompt)
        if reason is None:
            chosen.append(name)
        else:
            ctx.note(f"translation: {name} left out: {reason}")
    return chosen


def _renderer(ctx: AuditContext, name: str):
    """The model ``name`` loaded to render the target language (a factory for Ray, like the audit's own)."""
    ts = ctx.spec.translation
    entry = dict(zip(ctx.identities, ctx.spec.models))[name]
    options = dict(entry.options)
    options.setdefault("device", ctx.spec.executor.device)
    if ctx.spec.executor.compute_type:
        options.setdefault("compute_type", ctx.spec.executor.compute_type)
    options = renderer_options(materialize(ctx.models[name]), options, ts.params.target, ts.params.prompt)
    factory = functools.partial(load_model, entry.spec, **options)
    return factory() if ctx.spec.executor.kind == "local" else factory


def translation(ctx: AuditContext, done: AuditResult) -> TranslationStage | None:
    params = ctx.spec.translation.params
    if params.truth is not None:
        references = {clip.id: clip.reference or "" for clip in ctx.corpus}
        items = items_from_truth(read_truth(params.truth), references, ctx.normalize, str(params.truth))
    else:
        items = items_from_edits(done.mining.edit_items if done.mining is not None else [])
    if not items:
        ctx.note("translation: no dropped or invented spans on the audit's clips; translation probe not run")
        return None
    names = _renderable(ctx)
    unread = prompt_use({n: materialize(ctx.models[n]) for n in names}, params.target, params.prompt,
                        "[translation] prompt")
    if unread is not None:
        ctx.note(f"translation: {unread}")
    transcribers = [ctx.models[n] for n in names]
    renderers = [_renderer(ctx, n) for n in names]
    result = measure_translation(ctx.store, ctx.executor, transcribers, renderers, ctx.corpus.clips, items,
                                 ctx.normalize, params, seed=ctx.spec.seed,
                                 description=f"audit {ctx.spec.name}: translation")
    for label, jobs in zip(("transcribe", f"render {params.target}"), result.jobs):
        ctx.log_jobs(f"translation {label}", jobs.models)
    by_id = ctx.names_by_id()
    rows = [TranslationRow(by_id.get(c.model, c.model), c.kind, c.transcript, c.k, c.n,
                           finite(c.k / c.n) if c.n else None, bounds(c.interval)) for c in result.cells]
    section = TranslationSection(params.target, result.lexicon, "planted" if params.truth is not None else "mined",
                                 names, rows, {by_id.get(m, m): dict(v) for m, v in result.excluded.items()})
    table = [{**o.to_json(), "model": by_id.get(o.model, o.model)} for o in result.outcomes]
    return TranslationStage(section, table)
