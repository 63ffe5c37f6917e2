"""The report's edit browser and provenance section: the two that show raw text from corpus and models.

The browser (template ``templates/edit_browser.html.j2``, autoescaped)
keeps each edit's verdicts as ``data-v-<model index>`` attributes so the
page's script filters without parsing text; every word shown is escaped.
Each edit plays its clip (``report.listen``: the audio and its waveform
strip) with the disputed span marked where the audit placed it, and carries
the review marks the page exports as the review sheet ``asraudit refdis
--review`` reads.
"""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace
from typing import Sequence

from asraudit.probes.review import context_of
from asraudit.report.html_parts import NOT_RUN, Markup, esc, table
from asraudit.report.listen import ClipSound, ReportAudio
from asraudit.report.rows import EditModelView, EditView, Provenance
from asraudit.report.svg import finite
from asraudit.report.templating import render, safe

VERDICTS = ("ref", "audio", "other", "ineligible", "none")


def _highlight(tokens: Sequence[str], span: object, replacement: str | None, cls: str) -> str:
    """The tokens with ``span`` marked; with ``replacement`` the span's words are swapped for it (the panel's reading)."""
    if not (isinstance(span, (list, tuple)) and len(span) == 2 and all(isinstance(s, int) for s in span)):
        return esc(" ".join(tokens)) if replacement is None else f'<mark class="{cls}">{esc(replacement or "∅")}</mark>'
    start, end = max(0, span[0]), max(span[0], span[1])
    inner = " ".join(tokens[start:end]) if replacement is None else replacement
    middle = f'<mark class="{cls}">{esc(inner) if inner else "∅"}</mark>'
    return " ".join(p for p in (esc(" ".join(tokens[:start])), middle, esc(" ".join(tokens[end:]))) if p)


JUDGEMENTS = (("yes", "wrong"), ("no", "right"), ("unsure", "unclear"))  # the review sheet's words (probes.review)
CONTEXT_S = 0.5     # heard on each side of a span: enough to place it in the sentence, short enough to stay on it
WAVE_WIDTH, WAVE_MID = 240, 20  # the waveform strip's SVG units (viewBox 0 0 240 40)


def disagrees(edit: "EditView", view: "EditModelView") -> bool:
    """The model's normalized transcript of the clip differs from the reference's ("what went wrong" is a
    clip, as a reader of erroneous sentences means it: the words at a zero-width span cannot show an insert).
    A model not competent on the clip (verdict ``ineligible``) says nothing either way; without words, its
    verdict decides (audio or other)."""
    if view.verdict == "ineligible":
        return False
    if not (isinstance(edit.ref_tokens, list) and isinstance(view.tokens, list)):
        return view.verdict in ("audio", "other")
    return [str(t) for t in view.tokens] != [str(t) for t in edit.ref_tokens]


def disagreements(edit: "EditView") -> int:
    """How many models' transcripts of the edit's clip differ from the reference."""
    return sum(1 for v in (edit.models or {}).values() if v is not None and disagrees(edit, v))


def disagreement_order(edits: Sequence["EditView"]) -> list[int]:
    """Indices of ``edits``, most models disagreeing with the reference first; ties keep the mined order."""
    return sorted(range(len(edits)), key=lambda i: (-disagreements(edits[i]), i))


def review_row(e: "EditView") -> list[object]:
    """The review sheet's columns for one edit (``probes.review.SHEET_COLUMNS``), judgement and note left empty."""
    tokens = [str(t) for t in e.ref_tokens] if isinstance(e.ref_tokens, list) else []
    span = e.span if isinstance(e.span, list) and len(e.span) == 2 else [0, 0]
    place = SimpleNamespace(ref_start=span[0], ref_end=span[1], kind=e.kind, r=e.r, a=e.a)
    return [e.edit_id, e.clip, e.kind, e.position, context_of(tokens, place), e.r, e.a,
            "" if e.votes is None else e.votes, "" if e.n_panel is None else e.n_panel, "panel", "", ""]


def _wave_path(peaks: Sequence[float]) -> str:
    """One vertical stroke per column, at least half a unit tall so silence still draws a line."""
    step = WAVE_WIDTH / max(1, len(peaks))
    return "".join(f"M{(i + 0.5) * step:.1f} {WAVE_MID - max(0.5, 18 * p):.1f}V{WAVE_MID + max(0.5, 18 * p):.1f}"
                   for i, p in enumerate(peaks))


def _listen_view(e: "EditView", sound: "ClipSound | None", index: int | None, audio_note: str) -> dict:
    """What the edit's audio block shows: the strip, the span and its context in strip units, a label."""
    start, end = finite(e.start_s), finite(e.end_s)
    timed = start is not None and end is not None and end >= start
    if sound is None or sound.src is None:
        why = "audio left out (beyond the page's size budget)" if sound is not None else audio_note
        label = why if not timed else f"{why}; span {start:.2f}–{end:.2f} s"
        return {"sound": None, "window": None, "span_label": label}
    duration = max(sound.duration_s, 1e-6)
    x = lambda t: round(min(max(t, 0.0), duration) / duration * WAVE_WIDTH, 2)  # noqa: E731
    view = {"sound": {"index": index}, "window": None,
            "span_label": e.timing_note or "no word timings for this edit"}
    if timed:
        lo, hi = x(start - CONTEXT_S), x(end + CONTEXT_S)
        view.update(window=(lo, round(hi - lo, 2)), marked=(x(start), max(0.6, round(x(end) - x(start), 2))),
                    start=f"{start:.3f}", end=f"{end:.3f}",
                    span_label=(f"span {start:.2f}–{end:.2f} s" if end > start
                                else f"span at {start:.2f} s (words the audio does not have)"))
    return view


def edit_browser(edits: Sequence["EditView"], models: Sequence[str], audio: "ReportAudio") -> str:
    """Each edit: its audio with the span marked, the reference with the disputed span, the panel's reading in
    place, every model's words, and the review marks.

    Verdicts are stored per edit as ``data-v-<model index>`` attributes, so the
    script filters by model and verdict without parsing any text; indices,
    not names, because two model names can differ only in punctuation.
    ``data-rank`` is the edit's place in :func:`disagreement_order`.
    """
    if not edits:
        return NOT_RUN
    rank = {i: r for r, i in enumerate(disagreement_order(edits))}
    playable = [c for c in audio.clips.values() if c.src is not None]
    audio_index = {c.clip: k for k, c in enumerate(playable)}
    views = []
    for n, e in enumerate(edits):
        per_model = {m: v for m, v in (e.models or {}).items() if v is not None}
        tokens = [str(t) for t in e.ref_tokens] if isinstance(e.ref_tokens, list) else []
        lines = []
        for m in models:
            if m not in per_model:
                continue
            v = per_model[m]
            words = (_highlight([str(t) for t in v.tokens], v.span, None, "h") if isinstance(v.tokens, list)
                     else esc(v.text or ""))
            lines.append({"verdict": str(v.verdict or "none"), "model": m, "words": safe(words), "raw": v.raw})
        views.append({
            "index": n, "edit_id": e.edit_id, "clip": e.clip or "–", "kind": e.kind or "–",
            "position": e.position or "–", "r": e.r or "", "a": e.a or "", "rank": rank[n],
            "disagree": disagreements(e), "judged": len(per_model),
            "verdicts": [(i, per_model[m].verdict or "none") for i, m in enumerate(models) if m in per_model],
            "reference": safe(_highlight(tokens, e.span, None, "r")),
            "panel": safe(_highlight(tokens, e.span, str(e.a or ""), "a")),
            "lines": lines,
            **_listen_view(e, audio.clips.get(e.clip), audio_index.get(e.clip), audio.note),
        })
    return render("edit_browser.html.j2", models=models, verdicts=VERDICTS, edits=views,
                  n_wrong=sum(1 for v in views if v["disagree"]), context_s=CONTEXT_S, audio_note=audio.note,
                  judgements=JUDGEMENTS,
                  audio=[{"index": k, "src": c.src, "duration": f"{c.duration_s:.3f}", "path": _wave_path(c.peaks)}
                         for k, c in enumerate(playable)])


def _plain(key: str, value: object) -> str:
    """A provenance value as one line of text: strings as they are, the run time in seconds, the rest as JSON."""
    if key == "runtime_s" and finite(value) is not None:
        return f"{finite(value):.1f} s"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def provenance_section(prov: "Provenance | None", specs: dict[str, str] | None = None) -> str:
    """What produced these numbers: versions, models with their config hashes (and ``specs``: each model as the
    spec named it), seed, parameters."""
    if prov is None:
        return NOT_RUN
    values = {f.name: getattr(prov, f.name) for f in dataclasses.fields(prov)}
    known = ("asraudit", "created", "seed", "normalizer", "python", "store", "runtime_s")
    pairs = [(k, values[k]) for k in known if values.get(k) is not None]
    pairs += [(k, _plain_value(v)) for k, v in values.items()
              if k not in known + ("models", "packages", "spec") and v is not None]
    parts = ['<dl class="kv">' + "".join(f"<dt>{esc(k)}</dt><dd>{esc(_plain(k, v))}</dd>" for k, v in pairs) + "</dl>"]
    models = {n: m for n, m in (prov.models or {}).items() if m is not None}
    if models:
        rows = [[name, m.model_id, Markup(f"<code>{esc(m.config_hash or '–')}</code>"), (specs or {}).get(name)]
                for name, m in models.items()]
        parts.append("<h3>Models</h3>" + table(["name", "model id", "config hash", "spec"], rows, "provenance-models"))
    if prov.packages:
        parts.append("<details><summary>Packages</summary>"
                     + table(["package", "version"], sorted(prov.packages.items()), "provenance-packages")
                     + "</details>")
    if prov.spec is not None:
        parts.append("<details><summary>Spec</summary><pre>"
                     + esc(json.dumps(prov.spec, indent=2, ensure_ascii=False, default=str)) + "</pre></details>")
    return "".join(parts)


def _plain_value(value: object) -> object:
    """A nested row of the provenance (corpus, sampling) as plain JSON values."""
    return dataclasses.asdict(value) if dataclasses.is_dataclass(value) and not isinstance(value, type) else value
