"""Running a ``type = "patch"`` experiment (``audit.spec_patch``): encoder or decoder, edit kind by edit kind.

Two readouts, each through the audit's store and the mechanism readout's one
recipe (``mechanism.experiment.measure_readout``):

* in ``model`` (the fine-tune): the baseline; its decoder reading the
  contrast's encoder output (``mechanism.model_patch.EncoderFrom``); and,
  with ``attention``, the decoder unable to attend to the disputed span of
  each clip, with its control, a span of the same length elsewhere in the
  clip;
* in ``contrast`` (the model it started from): the baseline and its decoder
  reading the fine-tune's encoder output.

Every variant gets accept-ref and the paired change overall (``MechanismRow``)
and per edit kind (``MechanismKindRow``), and its WER.

The disputed span is where the panel's edit sits in the audio: the panel's
reading of the clip (its reference with every edit applied) is force-aligned
with ``[report] align`` (timings shared with the report's cache), an
inserted word has its own times and a deleted one the boundary where it
would be; ``span_pad`` seconds are added on each side (so a deletion's
boundary is a span at all).  A clip with several edits masks from the first
to the last.  The mask reaches the hooks as a paired source that differs
from the clip exactly over the span (``Frames("changed")``), since the job
grid hands a model audio, never clip ids; the source's own activations are
not used.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.timing import TimingCache, align_clips
from asraudit.audit.audio_stages import TIMINGS_NAME
from asraudit.audit.edit_audio import has_audio, said_span, span_times
from asraudit.audit.mechanism_curves import by_kind_rows
from asraudit.audit.spec_patch import PatchSpec
from asraudit.audit.spec_reader import SpecError
from asraudit.errors import InputError
from asraudit.mechanism.experiment import ReadoutParams, Variant, measure_readout, run_variants
from asraudit.metrics.stats import Interval
from asraudit.probes.battery_run import corrected_texts
from asraudit.probes.lift_run import EditItem
from asraudit.report.rows import MechanismRow, bounds, finite, flat_row


@dataclass(frozen=True)
class PatchPlan:
    spec: PatchSpec
    clips: tuple


ATTENTION = "attention = true (the decoder kept from each clip's disputed span)"


def plan_patch(spec: PatchSpec, clips: Sequence) -> PatchPlan:
    chosen = spec.clips.select(clips)
    if not chosen:
        raise SpecError(f"{spec.entry}: clips selects no clip of the corpus ({spec.clips.describe()})", None)
    chosen = tuple(chosen if spec.max_clips is None else chosen[: spec.max_clips])
    if spec.attention:  # the disputed span is seconds of each input: it would act once in each window
        from asraudit.mechanism.experiment import check_windows

        try:
            check_windows((spec.model,), chosen, ATTENTION)
        except InputError as exc:
            raise SpecError(f"{spec.entry}: {exc.message}", None) from None
    return PatchPlan(spec, chosen)


def _rows(run, measured, experiment: str, model_name: str, spec: PatchSpec, directions: dict[str, str]) -> None:
    """``MechanismRow``s (and the Parquet table's rows) of one readout, as the steer experiments write them."""
    for r in measured.variants:
        acc, d = r.accept, measured.deltas[r.label]
        is_base = r.role == "baseline"
        row = MechanismRow(
            experiment=experiment, model=model_name, intervention=r.label, role=r.role, control_of=r.control_of,
            metric="accept-ref", value=None if acc is None else finite(acc.rate),
            value_interval=None if acc is None else bounds(acc.interval),
            n_ref=None if acc is None else acc.n_ref, n_eligible=None if acc is None else acc.n_eligible,
            changed=r.changed, clips=r.n_clips, wer=None if r.wer is None else finite(r.wer.rate),
            delta=None if is_base else finite(d.delta),
            delta_interval=None if is_base else bounds(Interval(d.delta, d.low, d.high)),
            delta_n=None if is_base else d.n, to_ref=None if is_base else d.to_ref,
            to_audio=None if is_base else d.to_audio, direction=directions.get(r.label, ""),
            layer=spec.layer, action="patch", site="encoder")
        run.rows.append(row)
        run.table.append({**flat_row(row), "name": spec.name, "entry": spec.entry, "model_id": r.model_id,
                          "config_hash": r.config_hash, "contrast": spec.contrast})
    run.by_kind.extend(by_kind_rows(measured, experiment, model_name, n_boot=run.ctx.spec.bootstrap,
                                    seed=run.ctx.spec.seed))
    run.ctx.log(f"mechanism {experiment}: accept-ref " + "; ".join(
        f"{r.label}: {'-' if r.accept is None else f'{r.accept.n_ref}/{r.accept.n_eligible}'}"
        + ("" if r.role == "baseline" or not measured.deltas[r.label].n
           else f" (Δ {100 * measured.deltas[r.label].delta:+.1f} pts)") for r in measured.variants))


def disputed_spans(ctx, edits, clips, pad: float) -> tuple[dict[str, tuple[float, float]], list[str]]:
    """clip id -> (start, end) seconds of its edits' span (padded), and why clips could not be timed."""
    refs = {c.id: tuple(ctx.normalize(c.reference or "").split()) for c in clips}
    items = [EditItem(e.edit_id, e.clip_id, e.kind, e.position, refs[e.clip_id], e.ref_start, e.ref_end,
                      tuple(e.a.split())) for e in edits if e.clip_id in refs and e.in_full_panel]
    texts = corrected_texts(items)
    wanted = [(c.id, c, texts[c.id]) for c in clips if c.id in texts and has_audio(c)]
    align = ctx.spec.report.align
    if not wanted:
        return {}, []
    if align == "none":
        return {}, [f"{len(wanted)} clip(s): no aligner ([report] align is \"none\")"]
    from asraudit.models.aligners import make_aligner

    try:
        aligner = make_aligner(align, device=ctx.spec.executor.device)
        timings, failed = align_clips(aligner, wanted, TimingCache(Path(ctx.out) / TIMINGS_NAME))
    except (ImportError, InputError, OSError, ValueError) as exc:
        return {}, [f"{len(wanted)} clip(s): {align} could not align ({exc})"]
    spans, problems = {}, [f"{f.clip_id}: {f.reason}" for f in failed]
    for clip_id, words in timings.items():
        times = []
        for item in (k for k in items if k.clip_id == clip_id):
            span = said_span(item, items)
            if span[1] > len(words) or (span[0] > len(words)):
                problems.append(f"{clip_id}: the aligner timed fewer words than the panel's reading has")
                times = []
                break
            times.append(span_times(words, span))
        if times:
            spans[clip_id] = (max(0.0, min(t for t, _ in times) - pad), max(t for _, t in times) + pad)
    return spans, problems


def _elsewhere(span: tuple[float, float], duration: float) -> tuple[float, float]:
    """A span of the same length (at most) away from ``span``, at the clip's other end."""
    start, end = span
    width = end - start
    if (start + end) / 2 < duration / 2:
        first = max(end, duration - width)
        return first, min(duration, first + width)
    return 0.0, min(width, start)


def _marked(audio: np.ndarray, span: tuple[float, float] | None) -> np.ndarray:
    """``audio`` changed exactly over ``span`` (the paired source that tells the mask where it is)."""
    out = np.array(audio, dtype=np.float32, copy=True)
    if span is not None:
        a, b = (int(round(t * SAMPLE_RATE)) for t in span)
        b = min(max(b, a + 1), len(out))
        out[a:b] = out[a:b] + np.float32(0.5)  # any change will do: only where it differs is read
    return out


def _mask_variants(model, clips, spans: dict[str, tuple[float, float]]) -> list[Variant]:
    from asraudit.mechanism.span_mask import SpanAttentionMask  # torch
    from asraudit.models.whitebox.frames import SourcesByAudio

    audio = {c.id: c.decode() for c in clips}
    disputed = SourcesByAudio.from_pairs(((a, _marked(a, spans.get(cid))) for cid, a in audio.items()),
                                         label="disputed-span")
    other = SourcesByAudio.from_pairs(((a, _marked(a, _elsewhere(spans[cid], len(a) / SAMPLE_RATE)
                                                   if cid in spans else None)) for cid, a in audio.items()),
                                      label="span-elsewhere")
    label = "no attention to the disputed span"
    return [Variant(label, "intervention", model.variant(SpanAttentionMask(source=disputed))),
            Variant("no attention to a span elsewhere", "control", model.variant(SpanAttentionMask(source=other)),
                    control_of=label)]


def run_patch(run, plan: PatchPlan) -> None:
    from asraudit.mechanism.model_patch import EncoderFrom, same_front_end  # torch

    ctx, spec = run.ctx, plan.spec
    model, contrast = run.whitebox(spec.model), run.whitebox(spec.contrast)
    if not same_front_end(model, contrast):
        raise SpecError(f"{spec.entry}: {spec.model} and {spec.contrast} differ below encoder layer 0 (or in depth); "
                        "an encoder exchange needs the model a fine-tune started from", ctx.spec.source)
    params = ReadoutParams(normalizer=ctx.spec.normalizer, miner=ctx.spec.refdis, n_boot=ctx.spec.bootstrap,
                           seed=ctx.spec.seed)
    batch = ctx.spec.executor.batch_size
    clips = list(plan.clips)
    if spec.attention:  # a model whose files did not give its window (plan_patch)
        from asraudit.mechanism.experiment import check_one_window

        try:
            check_one_window(model, clips, ATTENTION)
        except InputError as exc:
            raise SpecError(f"{spec.entry}: {exc.message}", ctx.spec.source) from None

    def readout(title, variants):
        run_variants(ctx.store, variants, clips, batch_size=batch, progress=ctx.progress, description=title)
        return measure_readout(ctx.store, variants, clips, params, panel=run.transcripts,
                               panel_models=list(ctx.panel))

    exchange = f"encoder L{spec.layer} <- "
    title = f"{spec.name}: patch in {spec.model}"
    variants = [Variant("baseline", "baseline", model),
                Variant(exchange + spec.contrast, "intervention", model.variant(EncoderFrom(contrast, spec.layer)))]
    measured = readout(title, variants)
    directions = {exchange + spec.contrast: f"model:{spec.contrast}"}
    if spec.attention:
        spans, problems = disputed_spans(ctx, measured.edits, clips, spec.span_pad)
        if problems:
            ctx.note(f"mechanism {spec.name}: {len(problems)} clip(s) without a timed disputed span (e.g. "
                     f"{problems[0]}); their attention is not masked")
        if spans:
            variants += _mask_variants(model, clips, spans)
            measured = readout(title, variants)
    _rows(run, measured, title, spec.model, spec, directions)
    title = f"{spec.name}: patch in {spec.contrast}"
    variants = [Variant("baseline", "baseline", contrast),
                Variant(exchange + spec.model, "intervention", contrast.variant(EncoderFrom(model, spec.layer)))]
    _rows(run, readout(title, variants), title, spec.contrast, spec, {exchange + spec.model: f"model:{spec.model}"})
