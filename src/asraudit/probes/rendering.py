"""Rendering conventions: switch rate and reference-rendering agreement.

Two readouts of the same occurrences (see :mod:`asraudit.probes.occurrences`
for how they are found on raw text):

**Switch rate** (the paper's readout).  Clips are partitioned by the arm the
reference uses, and

    s = min over arms a of P(model writes arm a | reference uses arm a).

A model with a fixed habit writes one arm everywhere: it scores 1 on that arm
and 0 on the other, so s is near 0 whatever its habit.  A model choosing at
random scores about 1/2 on both (chance: 1/k for k arms in use); only a model
whose spelling follows the reference exceeds chance.  The minimum, not the
mean, is the point: the mean of a fixed habit is 1/2 and would look like
chance.  The Wilson interval is on the limiting arm's proportion.  It does
not account for having taken a minimum, so read values near chance as chance.

The unit is a clip, not an occurrence: occurrences in one clip share a
speaker and a context, so they are not independent draws.  A clip counts once
per arm its reference uses, judged at the first occurrence of that arm, which
keeps chance at exactly 1/2 for a coin flip however many occurrences a clip
holds.  A clip where the model wrote other words (or nothing) counts in the
denominator as a miss: the condition is on the reference alone.

**Rendering agreement** (the Open ASR Leaderboard's variant).  Per occurrence
where the model wrote the same words at the aligned place *and* used some arm
of the family, the share where it used the reference's arm.  Occurrences the
model missed or wrote outside the family count for neither side.  On a corpus
that uses one arm per family this is how often the model matches the
benchmark's house style; the interval is a clip bootstrap because occurrences
in one clip are not independent.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Protocol

from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, Interval, bootstrap_ratio, wilson_interval
from asraudit.probes.families import OVERALL, Catalogue
from asraudit.probes.occurrences import Occurrence, ScannedText, pair_occurrences, scan

DEFAULT_MIN_PER_ARM = 5


class _Row(Protocol):
    reference: str
    hypothesis: str


@dataclass
class ConventionAudit:
    """Every reference occurrence of every family, judged for every model."""

    catalogue: Catalogue
    occurrences: dict[str, list[Occurrence]]  # model -> occurrences, clip order kept
    clips_ran: dict[str, set[str]]  # model -> clips it has a hypothesis for
    references: dict[str, ScannedText] = field(default_factory=dict)  # clip -> scanned reference
    hypotheses: dict[str, dict[str, str]] = field(default_factory=dict)  # model -> clip -> hyp (as scanned: readable)

    @property
    def models(self) -> list[str]:
        return list(self.occurrences)


def collect(catalogue: Catalogue, models: Mapping[str, Mapping[str, _Row]]) -> ConventionAudit:
    """Scan and pair every (model, clip): ``models[m][clip]`` has raw reference and hypothesis.

    Each model is judged against its own row's reference; a reference shared by
    several models is scanned once.
    """
    cache: dict[str, ScannedText] = {}
    audit = ConventionAudit(catalogue, {}, {})
    for model, rows in models.items():
        found: list[Occurrence] = []
        audit.clips_ran[model] = set(rows)
        audit.hypotheses[model] = {}
        for clip_id, row in rows.items():
            ref = cache.get(row.reference)
            if ref is None:
                ref = cache[row.reference] = scan(catalogue, row.reference)
            audit.references.setdefault(clip_id, ref)
            audit.hypotheses[model][clip_id] = row.hypothesis
            if ref.renderings:
                hyp = scan(catalogue, row.hypothesis)
                audit.hypotheses[model][clip_id] = hyp.text  # the text the spans are of (``occurrences.readable``)
                found.extend(pair_occurrences(clip_id, ref, hyp))
        audit.occurrences[model] = found
    return audit


# --------------------------------------------------------------------------
# Switch rate


@dataclass(frozen=True)
class ArmTally:
    """One arm of a switch-rate group for one model."""

    label: str
    clips: int  # clips whose reference uses this arm (and the model ran)
    hits: int  # of those, clips where the model wrote this arm at the first occurrence
    rendered: int  # of those, clips where the model wrote the words in any arm of the family

    @property
    def rate(self) -> float:
        return self.hits / self.clips if self.clips else float("nan")


@dataclass(frozen=True)
class SwitchRate:
    """Switch rate of one model on one family (or pool of families)."""

    group: str  # family or pool name
    model: str
    arms: tuple[ArmTally, ...]
    min_per_arm: int
    pooled: bool = False

    @property
    def scored_arms(self) -> list[ArmTally]:
        """Arms with enough clips to enter the minimum."""
        return [a for a in self.arms if a.clips >= self.min_per_arm]

    @property
    def measurable(self) -> bool:
        return len(self.scored_arms) >= 2

    @property
    def limiting(self) -> ArmTally | None:
        """The arm with the lowest hit rate (the first such arm on a tie)."""
        scored = self.scored_arms
        if len(scored) < 2:
            return None
        return min(scored, key=lambda a: a.rate)

    @property
    def switch(self) -> float:
        lim = self.limiting
        return lim.rate if lim else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        lim = self.limiting
        if lim is None:
            return float("nan"), float("nan")
        return wilson_interval(lim.hits, lim.clips)

    def wilson(self) -> Interval:
        """The switch rate with the Wilson interval of its limiting arm."""
        low, high = self.interval
        return Interval(self.switch, low, high, 0.95, "wilson")

    @property
    def chance(self) -> float:
        """What a model picking uniformly among the scored arms would score."""
        n = len(self.scored_arms)
        return 1 / n if n else float("nan")

    @property
    def left_out(self) -> list[ArmTally]:
        """Arms the reference uses, but on too few clips to enter the minimum."""
        return [a for a in self.arms if 0 < a.clips < self.min_per_arm]

    def reason(self) -> str:
        """Why the group is not measurable (empty when it is)."""
        if self.measurable:
            return ""
        used = [a for a in self.arms if a.clips]
        if not used:
            return "no clip this model ran uses the family"
        if len(used) == 1:
            n = used[0].clips
            return f"the references use only one arm ({used[0].label}, {n} clip{'' if n == 1 else 's'})"
        counts = ", ".join(f"{a.label} {a.clips}" for a in used)
        return f"fewer than two arms with >= {self.min_per_arm} clips ({counts})"


GroupOf = Callable[[Occurrence], tuple[str, int] | None]


def _first_per_unit(occurrences: Iterable[Occurrence], group_of: GroupOf) -> dict[tuple[str, str, int], Occurrence]:
    """(group, clip, arm position) -> the first occurrence in that clip (text order)."""
    first: dict[tuple[str, str, int], Occurrence] = {}
    for occ in occurrences:
        g = group_of(occ)
        if g is None:
            continue
        unit = (g[0], occ.clip_id, g[1])
        if unit not in first or occ.ref_span[0] < first[unit].ref_span[0]:
            first[unit] = occ
    return first


def _switch(audit: ConventionAudit, groups: dict[str, tuple[str, ...]], group_of: GroupOf,
            min_per_arm: int, pooled: bool) -> list[SwitchRate]:
    out = []
    for model, occurrences in audit.occurrences.items():
        tallies: dict[str, list[list[int]]] = {g: [[0, 0, 0] for _ in arms] for g, arms in groups.items()}
        for (group, _clip, arm), occ in _first_per_unit(occurrences, group_of).items():
            t = tallies[group][arm]
            t[0] += 1
            t[1] += occ.status == "agree"
            t[2] += occ.rendered
        for group, arms in groups.items():
            out.append(SwitchRate(group, model, tuple(ArmTally(label, *tallies[group][i])
                                                      for i, label in enumerate(arms)), min_per_arm, pooled))
    return out


def switch_rates(audit: ConventionAudit, min_per_arm: int = DEFAULT_MIN_PER_ARM) -> list[SwitchRate]:
    """Switch rate per family and model, for every family the references use."""
    fams = audit.catalogue.families
    used = {occ.family for occs in audit.occurrences.values() for occ in occs}
    groups = {fams[i].name: fams[i].arms for i in sorted(used)}
    return _switch(audit, groups, lambda o: (fams[o.family].name, o.ref_arm), min_per_arm, False)


def pooled_switch_rates(audit: ConventionAudit, min_per_arm: int = DEFAULT_MIN_PER_ARM) -> list[SwitchRate]:
    """Switch rate per pool and model, arms pooled by position across the pool's families.

    A clip counts once per pool and arm position (at its first occurrence in
    any of the pool's families), so a clip with "Mr" and "Dr" is one
    abbreviated-honorific clip, not two.
    """
    cat = audit.catalogue
    used = {cat.families[o.family].pool for occs in audit.occurrences.values() for o in occs}
    groups = {name: pool.arms for name, pool in cat.pools.items() if name in used}

    def group_of(o: Occurrence) -> tuple[str, int] | None:
        pool = cat.families[o.family].pool
        return (pool, o.ref_arm) if pool else None

    return _switch(audit, groups, group_of, min_per_arm, True)


def reference_usage(audit: ConventionAudit) -> dict[str, list[int]]:
    """Family name -> clips whose reference uses each arm (over every clip any model ran)."""
    fams = audit.catalogue.families
    clips: dict[int, list[set[str]]] = {}
    for clip_id, ref in audit.references.items():
        for r in ref.renderings.values():
            clips.setdefault(r.family, [set() for _ in fams[r.family].arms])[r.arm].add(clip_id)
    return {fams[i].name: [len(s) for s in per_arm] for i, per_arm in sorted(clips.items())}


# --------------------------------------------------------------------------
# Rendering agreement


@dataclass(frozen=True)
class Agreement:
    """Reference-rendering agreement of one model on one group of families."""

    group: str  # a class name, a family name, or "all"
    model: str
    agree: int
    rendered: int  # occurrences where the model wrote the words in some arm (the denominator)
    outside: int  # wrote different words, or the words outside the family
    missed: int  # wrote nothing at the aligned place
    clips: int  # clips contributing to ``rendered``
    low: float
    high: float

    @property
    def rate(self) -> float:
        return self.agree / self.rendered if self.rendered else float("nan")

    @property
    def occurrences(self) -> int:
        return self.rendered + self.outside + self.missed


def agreement(audit: ConventionAudit, by: str = "class", n_boot: int = DEFAULT_BOOTSTRAP,
              seed: int = 0) -> list[Agreement]:
    """Agreement per model and class (``by="class"``) or family (``by="family"``), plus "all"."""
    if by not in ("class", "family"):
        raise ValueError(f"by must be 'class' or 'family', not {by!r}")
    fams = audit.catalogue.families
    label = (lambda o: fams[o.family].cls) if by == "class" else (lambda o: fams[o.family].name)
    out = []
    for model, occurrences in audit.occurrences.items():
        groups: dict[str, list[Occurrence]] = defaultdict(list)
        for occ in occurrences:
            groups[label(occ)].append(occ)
            groups[OVERALL].append(occ)  # a family or class of this name is refused (families.build_family)
        order = sorted(g for g in groups if g != OVERALL) + ([OVERALL] if groups else [])
        for g in order:
            out.append(_agreement(g, model, groups[g], n_boot, seed))
    return out


def _agreement(group: str, model: str, occs: list[Occurrence], n_boot: int, seed: int) -> Agreement:
    per_clip: dict[str, list[int]] = {}
    outside = missed = 0
    for o in occs:
        if o.rendered:
            c = per_clip.setdefault(o.clip_id, [0, 0])
            c[0] += o.status == "agree"
            c[1] += 1
        elif o.status == "outside":
            outside += 1
        else:
            missed += 1
    agree = sum(c[0] for c in per_clip.values())
    rendered = sum(c[1] for c in per_clip.values())
    if rendered:
        iv = bootstrap_ratio([c[0] for c in per_clip.values()], [c[1] for c in per_clip.values()],
                             n_boot=n_boot, seed=seed)
        low, high = iv.low, iv.high
    else:
        low = high = float("nan")
    return Agreement(group, model, agree, rendered, outside, missed, len(per_clip), low, high)
