"""Where each edit the report shows is in its clip, and the clips' audio for the page.

The edit's place comes from a forced alignment of what the panel says was
said (the normalized reference with the clip's edits applied,
``probes.battery_run.corrected_texts``), so the disputed words have their
own timings: an insert's spoken words are in the aligned text, and a
delete's unspoken words are not, so they sit at the boundary between two
aligned words (a span of zero width, played with its context).  Aligning
the reference instead would force words that were never said onto the
audio.  The aligner is ``[report] align`` (pocketsphinx by default: no
download, about 50 ms per clip); its timings share the audit's cache
(``word_timings.jsonl``), so a rerun aligns nothing.  An edit whose clip
cannot be aligned (digits for pocketsphinx, no audio) carries the reason
instead of times: the page says it rather than guessing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from asraudit.audio.timing import TimingCache, WordTiming, align_clips
from asraudit.audit.audio_stages import TIMINGS_NAME
from asraudit.audit.context import AuditContext
from asraudit.errors import InputError
from asraudit.probes.battery_run import corrected_texts
from asraudit.probes.lift_run import EditItem
from asraudit.report.listen import ENCODED_CACHE, WITHHELD_AUDIO, EncodedCache, ReportAudio, prepare_audio
from asraudit.report.rows import EditView

NO_ALIGN = "none"


def has_audio(clip) -> bool:
    return not isinstance(clip.audio, Path) or clip.audio.is_file()


def said_span(item: EditItem, items: Sequence[EditItem]) -> tuple[int, int]:
    """The edit's word span in its clip's corrected text (every edit of the clip applied, as corrected_texts does)."""
    before = [k for k in items if k.clip_id == item.clip_id and (k.start, k.end) < (item.start, item.end)]
    start = item.start + sum(len(k.a) - (k.end - k.start) for k in before)
    return start, start + len(item.a)


def span_times(timings: Sequence[WordTiming], span: tuple[int, int]) -> tuple[float, float]:
    """Seconds of a word span; an empty span is the boundary where it would be (the previous word's end)."""
    start, end = span
    if end > start:
        return timings[start].start, timings[end - 1].end
    point = timings[start - 1].end if start > 0 else (timings[0].start if timings else 0.0)
    return point, point


def time_edits(ctx: AuditContext, edits: list[EditView], items: Sequence[EditItem]) -> None:
    """Fill each shown edit's ``start_s``/``end_s`` from an alignment, or its ``timing_note`` saying why not."""
    if not edits:
        return
    align = ctx.spec.report.align
    if align == NO_ALIGN:
        for e in edits:
            e.timing_note = "no word timings: the audit's [report] align is \"none\""
        return
    by_id = {k.edit_id: k for k in items}
    texts = corrected_texts(items)
    wanted = {e.clip: texts[e.clip] for e in edits if e.clip in texts and e.clip in ctx.corpus
              and has_audio(ctx.corpus[e.clip])}
    timings, failures = {}, {}
    if wanted:
        try:
            from asraudit.models.aligners import make_aligner
            aligner = make_aligner(align, device=ctx.spec.executor.device)
            timings, failed = align_clips(aligner, [(c, ctx.corpus[c], t) for c, t in wanted.items()],
                                          TimingCache(ctx.out / TIMINGS_NAME))
            failures = {f.clip_id: f.reason for f in failed}
        except (ImportError, InputError, OSError, ValueError) as exc:
            ctx.note(f"report: the edits' clips could not be aligned with {align}: {exc}")
            failures = {c: str(exc) for c in wanted}
    for e in edits:
        item = by_id.get(e.edit_id)
        if e.clip not in wanted or item is None:
            e.timing_note = "no word timings: the clip has no audio in this audit"
        elif e.clip in failures:
            e.timing_note = f"no word timings: {align} could not align the clip ({failures[e.clip]})"
        elif said_span(item, items)[1] > len(timings[e.clip]):
            e.timing_note = f"no word timings: {align} timed fewer words than the panel's reading has"
        else:
            e.start_s, e.end_s = (round(t, 3) for t in span_times(timings[e.clip], said_span(item, items)))
    if failures:
        ctx.note(f"report: {len(failures)} of {len(wanted)} edit clip(s) could not be aligned with {align}; "
                 "their edits play without a marked span")


def edit_audio(ctx: AuditContext, edits: Sequence[EditView]) -> ReportAudio | None:
    """The audio of every clip the report shows an edit of, within ``[report] audio_budget_mb``; None when no
    clip has audio (the page then says so in the words of a page rebuilt from summary.json: it is that page)."""
    if not ctx.spec.report.audio:
        return WITHHELD_AUDIO
    clips = [c for c in dict.fromkeys(e.clip for e in edits) if c in ctx.corpus]
    audible = [c for c in clips if has_audio(ctx.corpus[c])]
    if not audible:
        return None
    sources = {c: ctx.corpus[c].decode for c in audible}
    return prepare_audio(sources, ctx.out, ctx.spec.report.audio_budget_mb, EncodedCache(ctx.out / ENCODED_CACHE))
