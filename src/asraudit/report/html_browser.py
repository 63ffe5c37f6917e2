"""The report's edit browser and provenance section: the two that show raw text from corpus and models.

The browser keeps each edit's verdicts as ``data-v-<model index>``
attributes so the page's script filters without parsing text; every word
shown is escaped.
"""

from __future__ import annotations

import json
from typing import Mapping, Sequence

from asraudit.report.html_parts import NOT_RUN, Markup, esc, mapping, table
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


def edit_browser(edits: Sequence[Mapping], models: Sequence[str]) -> str:
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
        per_model = mapping(e.get("models"))
        attrs = "".join(f' data-v-{i}="{esc(mapping(per_model[m]).get("verdict") or "none")}"'
                        for i, m in enumerate(models) if m in per_model)
        tokens = e.get("ref_tokens")
        tokens = [str(t) for t in tokens] if isinstance(tokens, list) else str(e.get("reference") or "").split()
        lines = []
        for m in models:
            if m not in per_model:
                continue
            v = mapping(per_model[m])
            verdict = str(v.get("verdict") or "none")
            hyp = v.get("tokens")
            words = (_highlight([str(t) for t in hyp], v.get("span"), None, "h") if isinstance(hyp, list)
                     else esc(v.get("text") or ""))
            lines.append(f'<div class="hyp"><span class="v-{esc(verdict)}">[{esc(verdict)}]</span> '
                         f'<b>{esc(m)}</b>: {words}</div>')
            if v.get("raw"):
                lines.append(f'<div class="raw">as written: {esc(v.get("raw"))}</div>')
        items.append(
            f'<div class="edit"{attrs}><div class="meta">clip <b>{esc(e.get("clip") or "–")}</b> · '
            f'{esc(e.get("kind") or "–")} · {esc(e.get("position") or "–")} · '
            f'r = “{esc(e.get("r") or "")}” → a = “{esc(e.get("a") or "")}”</div>'
            f'<div class="hyp">reference: {_highlight(tokens, e.get("span"), None, "r")}</div>'
            f'<div class="hyp">panel: {_highlight(tokens, e.get("span"), str(e.get("a") or ""), "a")}</div>'
            + "".join(lines) + "</div>")
    return (f'<div class="filters" id="edit-filters">model <select id="filter-model">{options}</select> '
            f'verdict {boxes} <span class="note"><span id="edit-count">{len(edits)}</span> of {len(edits)} shown'
            f"</span></div><div id=\"edits\">{''.join(items)}</div>")


def _plain(key: str, value: object) -> str:
    """A provenance value as one line of text: strings as they are, the run time in seconds, the rest as JSON."""
    if key == "runtime_s" and finite(value) is not None:
        return f"{finite(value):.1f} s"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def provenance_section(prov: Mapping) -> str:
    """What produced these numbers: versions, models with their config hashes, seed, parameters."""
    if not prov:
        return NOT_RUN
    known = ("asraudit", "created", "seed", "normalizer", "python", "store", "runtime_s")
    pairs = [(k, prov.get(k)) for k in known if prov.get(k) is not None]
    pairs += [(k, v) for k, v in prov.items() if k not in known + ("models", "packages", "spec")]
    parts = ['<dl class="kv">' + "".join(f"<dt>{esc(k)}</dt><dd>{esc(_plain(k, v))}</dd>" for k, v in pairs) + "</dl>"]
    models = mapping(prov.get("models"))
    if models:
        rows = [[name, mapping(m).get("model_id"), Markup(f"<code>{esc(mapping(m).get('config_hash') or '–')}</code>"),
                 mapping(m).get("spec")]
                for name, m in models.items()]
        parts.append("<h3>Models</h3>" + table(["name", "model id", "config hash", "spec"], rows, "provenance-models"))
    packages = mapping(prov.get("packages"))
    if packages:
        parts.append("<details><summary>Packages</summary>"
                     + table(["package", "version"], sorted(packages.items()), "provenance-packages") + "</details>")
    if prov.get("spec") is not None:
        parts.append("<details><summary>Spec</summary><pre>"
                     + esc(json.dumps(prov["spec"], indent=2, ensure_ascii=False, default=str)) + "</pre></details>")
    return "".join(parts)
