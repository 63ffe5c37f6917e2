"""The paper's published switch-rate groups against an audit's conventions stage, setting by setting.

A switch rate is the minimum over arms of P(model writes the arm | the
reference uses it); it depends on where the references come from (the
corpus), which arms are counted, how many families are pooled and how many
clips an arm needs (``min_per_arm``).  A published group is drawn beside the
audit's models only when all of these are the same; otherwise the audit says
which differ, as it does for accept-ref sets (``audit.published``).

The release names a group's corpus only in words (its ``scope``); the data
layer reads the corpora from it (``data.published.scope_corpora``).  The
group's arms are looked up in the audit's catalogue: a pool or family with
the same arms (letter case aside) is the audit's group for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from asraudit.data.published import PublishedSwitchGroup, load_published
from asraudit.display_paths import display_path
from asraudit.errors import InputError
from asraudit.metrics.published_rates import switch_of
from asraudit.probes.conventions_probe import ConventionsParams
from asraudit.probes.families import Catalogue, load_catalogue
from asraudit.report.published_rows import PUBLISHED_NOTE, PublishedSwitchComparison, PublishedSwitchModelRow
from asraudit.report.rows import SwitchRow, bounds, finite

AUDITED = "audited"


@dataclass(frozen=True)
class AuditGroup:
    """A family or pool of the audit's catalogue: its arms and how many families it holds."""

    name: str
    kind: str            # "pool" or "family"
    arms: tuple[str, ...]
    families: int


def audit_groups(catalogue: Catalogue) -> list[AuditGroup]:
    """Every pool, then every family, of the catalogue."""
    pools = [AuditGroup(p.name, "pool", p.arms, len(catalogue.pooled(p.name))) for p in catalogue.pools.values()]
    return pools + [AuditGroup(f.name, "family", f.arms, 1) for f in catalogue.families]


def _same_arms(a: Sequence[str], b: Sequence[str]) -> bool:
    return sorted(x.casefold() for x in a) == sorted(x.casefold() for x in b)


def find_group(published: PublishedSwitchGroup, groups: Sequence[AuditGroup]) -> AuditGroup | None:
    """The audit's group with the published arms: one of the same name first, then a pool, then a family."""
    same = [g for g in groups if _same_arms(g.arms, published.arms)]
    return next((g for g in same if g.name == published.name), same[0] if same else None)


def _related(published: PublishedSwitchGroup, catalogue: Catalogue) -> list[AuditGroup]:
    """The audit's groups the published one most likely means although the arms differ: the same name, or
    the pools of the families whose class has that name ("spacing" -> the compound pool)."""
    groups = audit_groups(catalogue)
    pools = {f.pool for f in catalogue.families if f.cls == published.name and f.pool}
    return [g for g in groups if g.name == published.name or (g.kind == "pool" and g.name in pools)]


def differences(published: PublishedSwitchGroup, corpus: str, params: ConventionsParams | None,
                catalogue: Catalogue | None) -> tuple[AuditGroup | None, list[str]]:
    """The audit's group for ``published`` and every setting that differs, in words (none: comparable)."""
    differs = []
    if not published.corpora:
        differs.append(f"corpus: the scope {published.scope!r} names none")
    elif len(published.corpora) > 1:
        differs.append(f"corpus: measured across {' and '.join(published.corpora)} (one arm from each); "
                       f"this audit measures one corpus, {corpus}")
    elif published.corpora[0] != corpus:
        differs.append(f"corpus {published.corpora[0]}, not {corpus}")
    if params is None:
        return None, differs + ["this audit measured no switch rates (no [conventions] table)"]
    if catalogue is None:
        return None, differs + [f"this audit's convention catalogue ({params.language}) could not be read again"]
    group = find_group(published, audit_groups(catalogue))
    if group is None:
        related = "; ".join(f"this audit's {g.kind} {g.name} has {', '.join(g.arms)}"
                            for g in _related(published, catalogue))
        differs.append(f"arms {', '.join(published.arms)}: no family or pool of this audit's catalogue has them"
                       + (f" ({related})" if related else ""))
    elif published.families is not None and published.families != group.families:
        differs.append(f"families: {published.families} pooled, this audit's {group.kind} {group.name} "
                       f"pools {group.families}")
    if published.min_per_arm != params.min_per_arm:
        differs.append(f"min_per_arm {published.min_per_arm} (audit: {params.min_per_arm})")
    # chance is 1/arms: the release is refused when read otherwise (case 344), a chance written rounded included
    return group, differs


def _limiting(row: SwitchRow, min_per_arm: int) -> tuple[str | None, int | None, int | None]:
    """The arm that set an audited switch rate (lowest hit rate among arms with enough clips; first on a tie)."""
    scored = [(label, a) for label, a in row.arms.items() if a.n >= min_per_arm]
    if len(scored) < 2:
        return None, None, None
    label, arm = min(scored, key=lambda la: la[1].follow / la[1].n)
    return label, arm.follow, arm.n


def _rows(published: PublishedSwitchGroup, audited: Sequence[SwitchRow],
          min_per_arm: int) -> list[PublishedSwitchModelRow]:
    """Audited and published rows on one footing, highest switch rate first (no rate last)."""
    rows = [PublishedSwitchModelRow(r.model, AUDITED, r.s, r.s_interval, *_limiting(r, min_per_arm),
                                    note=r.note) for r in audited]
    for p in published.rows:
        s = switch_of(p)
        arm = p.arms.get(s.limiting_arm)
        rows.append(PublishedSwitchModelRow(p.model, PUBLISHED_NOTE, finite(s.switch.estimate), bounds(s.switch),
                                            s.limiting_arm, arm.hits if arm else None, arm.n if arm else None))
    return sorted(rows, key=lambda r: (r.switch is None, -(r.switch or 0.0)))


def compare_published_switches(folder: Path, corpus: str, params: ConventionsParams | None,
                               switch_rows: Sequence[SwitchRow], shown_from: Path
                               ) -> tuple[list[PublishedSwitchComparison], list[str]]:
    """Each published switch group against the audit: rows when comparable, otherwise what differs (and a
    note for the provenance)."""
    results = load_published(folder)
    catalogue = None
    if params is not None:
        try:
            catalogue = load_catalogue(params.language)
        except InputError:  # the conventions stage read it already; a catalogue gone since compares to nothing
            catalogue = None
    out, notes = [], []
    for g in results.switches.values():
        group, differs = differences(g, corpus, params, catalogue)
        rows = []
        if not differs and group is not None:
            rows = _rows(g, [r for r in switch_rows if r.group == group.name], params.min_per_arm)
        else:
            notes.append(f"published switch group {g.name} not drawn beside this audit: {'; '.join(differs)}")
        out.append(PublishedSwitchComparison(g.name, display_path(g.path, shown_from), g.scope, list(g.arms),
                                             g.min_per_arm, g.chance, group.name if group else None, differs,
                                             rows))
    return out, notes
