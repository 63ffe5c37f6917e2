"""The spec's ``[published]`` table and the match of an audit against the paper's published sets.

    [published]
    dir = "../shared/reference/hume-paper-results"   # the paper's released results folder
    corpus = "voxpopuli"                              # the release's name for this audit's corpus

A published set is shown beside the audit only when it measured the same
thing: the corpus the spec names, the same panel (model names, in any
order) and the same miner settings.  Otherwise accept-ref's denominator (the
edits a panel mined) differs and the numbers are not comparable; the audit
then notes which sets were close and why they were left out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from asraudit.audit.spec_reader import Section, SpecError
from asraudit.data.published import MinerSettings, PublishedSet, load_published
from asraudit.display_paths import display_path
from asraudit.errors import InputError
from asraudit.metrics.published_rates import accept_ref_of
from asraudit.probes.refdis import MinerParams
from asraudit.report.published_rows import PublishedComparison, PublishedModelRow
from asraudit.report.rows import bounds, finite


@dataclass(frozen=True)
class PublishedSpec:
    dir: Path
    corpus: str


def parse_published(s: Section) -> PublishedSpec:
    """The ``[published]`` table; the folder is read here, so a broken release stops the audit before any model."""
    folder = s.path("dir", kind="folder")
    if folder is None or not folder.is_dir():
        raise s.fail("dir must name the folder of the paper's released results")
    corpus = s.get("corpus", str)
    if not corpus:
        raise s.fail("corpus must name the release's corpus this audit measures (e.g. \"voxpopuli\")")
    s.done()
    try:
        results = load_published(folder)
    except InputError as exc:
        raise SpecError(f"{s.where}: {exc}", s.source) from None
    # A name the release does not use compares with nothing: found here, not as a note once every model has run.
    known = {st.corpus for st in results.sets.values()} | {c for g in results.switches.values() for c in g.corpora}
    if known and corpus not in known:
        raise s.fail(f"corpus {corpus!r} is no corpus of the release, so nothing would be compared: it names "
                     f"{', '.join(sorted(known))}: give this audit's corpus as the release writes it")
    return PublishedSpec(folder, corpus)


def settings_of(params: MinerParams) -> MinerSettings:
    return MinerSettings(params.majority, params.min_run_len, params.include_middle, params.min_ref_match,
                         params.min_consensus_cer)


def mismatch(published: PublishedSet, corpus: str, panel: Sequence[str], settings: MinerSettings) -> str:
    """Why ``published`` is not comparable with the audit ('' when it is)."""
    if published.corpus != corpus:
        return f"corpus {published.corpus}, not {corpus}"
    if sorted(published.panel) != sorted(panel):
        return f"panel {', '.join(published.panel)}, not {', '.join(panel)}"
    differ = [f"{k} {getattr(published.settings, k)} (audit: {getattr(settings, k)})"
              for k in MinerSettings.__dataclass_fields__
              if not math.isclose(float(getattr(published.settings, k)), float(getattr(settings, k)), abs_tol=1e-9)]
    return ("settings " + ", ".join(differ)) if differ else ""


def compare_published(spec: PublishedSpec, panel: Sequence[str], params: MinerParams,
                      shown_from: Path) -> tuple[list[PublishedComparison], list[str]]:
    """The published sets that match the audit, as summary rows, and a note for each set of the same corpus
    that does not (or one note when none is of that corpus)."""
    results = load_published(spec.dir)
    mine = settings_of(params)
    matched, notes = [], []
    for s in results.sets.values():
        why = mismatch(s, spec.corpus, panel, mine)
        if not why:
            matched.append(_comparison(s, shown_from))
        elif s.corpus == spec.corpus:
            notes.append(f"published set {s.name} not shown: {why}")
    if not matched and not any(s.corpus == spec.corpus for s in results.sets.values()):
        names = sorted({s.corpus for s in results.sets.values()})
        notes.append(f"[published] corpus {spec.corpus!r}: no published set of it (the release has {', '.join(names)})")
    return matched, notes


def _comparison(s: PublishedSet, shown_from: Path) -> PublishedComparison:
    rows = []
    for r in s.rows:
        iv = accept_ref_of(r).accept_ref
        rows.append(PublishedModelRow(r.model, r.in_panel, finite(iv.estimate), bounds(iv), r.ref, r.ref + r.audio))
    settings = {k: getattr(s.settings, k) for k in MinerSettings.__dataclass_fields__}
    return PublishedComparison(s.name, display_path(s.path, shown_from), s.corpus, list(s.panel), settings, rows)
