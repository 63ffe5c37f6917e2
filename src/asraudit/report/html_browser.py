"""The report's edit browser and provenance section: the two that show raw text from corpus and models.

The browser keeps each edit's verdicts as ``data-v-<model index>``
attributes so the page's script filters without parsing text; every word
shown is escaped.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Sequence

from asraudit.report.html_parts import NOT_RUN, Markup, esc, table
from asraudit.report.rows import EditView, Provenance
from asraudit.report.svg import finite

VERDICTS = ("ref", "audio", "other", "ineligible", "none")


def _highlight(tokens: Sequence[str], span: object, replacement: str | None, cls: str) -> str:
    """The tokens with ``span`` marked; with ``replacement`` the span's words are swapped for it (the panel's reading)."""
    if not (isinstance(span, (list, tuple)) and len(span) == 2 and all(isinstance(s, int) for s in span)):
        return esc(" ".join(tokens)) if replacement is None else f'<mark class="{cls}">{esc(replacement or "∅")}</mark>'
    start, end = max(0, span[0]), max(span[0], span[1])
    inner = " ".join(tokens[start:end]) if replacement is None else replacement
    middle = f'<mark class="{cls}">{esc(inner) if inner else "∅"}</mark>'
    return " ".join(p for p in (esc(" ".join(tokens[:start])), middle, esc(" ".join(tokens[end:]))) if p)


def edit_browser(edits: Sequence["EditView"], models: Sequence[str]) -> str:
    """Each edit: the reference with the disputed span, the panel's reading in place, every model's words.

    Verdicts are stored per edit as ``data-v-<model index>`` attributes, so the
    script filters by model and verdict without parsing any text; indices,
    not names, because two model names can differ only in punctuation.
    """
    if not edits:
        return NOT_RUN
    options = "".join(f'<option value="{i}">{esc(m)}</option>' for i, m in enumerate(models))
    boxes = "".join(f'<label><input type="checkbox" value="{v}" checked> {v} '
                    f'(<span class="vc" data-verdict="{v}">0</span>)</label>' for v in VERDICTS)
    items = []
    for e in edits:
        per_model = {m: v for m, v in (e.models or {}).items() if v is not None}
        attrs = "".join(f' data-v-{i}="{esc(per_model[m].verdict or "none")}"'
                        for i, m in enumerate(models) if m in per_model)
        tokens = [str(t) for t in e.ref_tokens] if isinstance(e.ref_tokens, list) else []
        lines = []
        for m in models:
            if m not in per_model:
                continue
            v = per_model[m]
            verdict = str(v.verdict or "none")
            words = (_highlight([str(t) for t in v.tokens], v.span, None, "h") if isinstance(v.tokens, list)
                     else esc(v.text or ""))
            lines.append(f'<div class="hyp"><span class="v-{esc(verdict)}">[{esc(verdict)}]</span> '
                         f'<b>{esc(m)}</b>: {words}</div>')
            if v.raw:
                lines.append(f'<div class="raw">as written: {esc(v.raw)}</div>')
        items.append(
            f'<div class="edit"{attrs}><div class="meta">clip <b>{esc(e.clip or "–")}</b> · '
            f'{esc(e.kind or "–")} · {esc(e.position or "–")} · '
            f'r = “{esc(e.r or "")}” → a = “{esc(e.a or "")}”</div>'
            f'<div class="hyp">reference: {_highlight(tokens, e.span, None, "r")}</div>'
            f'<div class="hyp">panel: {_highlight(tokens, e.span, str(e.a or ""), "a")}</div>'
            + "".join(lines) + "</div>")
    return (f'<div class="filters" id="edit-filters">model <select id="filter-model">{options}</select> '
            f'verdict {boxes} <span class="note"><span id="edit-count">{len(edits)}</span> of {len(edits)} shown'
            f"</span></div><div id=\"edits\">{''.join(items)}</div>")


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
