"""Three WERs per model and the ranking each gives: what corrected references change.

A leaderboard ranks models by WER against the record (the benchmark's own
references).  If the record is wrong in places, a model that learned to
reproduce its errors climbs that ranking without hearing better.  Two other
yardsticks say whether it would keep its place:

* **corrected**: the record with the panel's mined edits applied.  A panel
  member must never be scored against corrections it voted for (its own
  readings would count as right by construction), so a member is scored
  against the corrections its *leave-one-out* panel mined (``Edit.loo_for``);
  every other model against the whole panel's (``Edit.in_full_panel``): exactly the edits that carry the
  model's verdict.  On a clip the whole panel corrected but where the member
  got no verdict (its leave-one-out panel was too small, or disagreed), the
  member is scored against its own panel's reading, i.e. the record there,
  and the row counts those clips.
* **truth**: what was actually said, when the benchmark knows it (a planted
  benchmark's ``said`` field).  Real benchmarks do not; the row is then absent.

All three are over the same clips (every ranked model ran them and the
reference is not empty), with clip-bootstrap intervals drawn from the same
resamples, so rankings compare like with like.  ``corrected_minus_truth`` is
how far the panel's correction is from the truth for that model (a paired
bootstrap of the difference): small means a benchmark corrected by a panel
says what the truth would.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED, Interval, bootstrap_ratio, bootstrap_ratio_difference
from asraudit.metrics.wer import ClipCounts, clip_counts
from asraudit.probes.corrected import apply_edits
from asraudit.probes.refdis import ClipInput, Edit

SCHEMES = ("record", "corrected", "truth")


@dataclass(frozen=True)
class ModelWers:
    """One model's WER three ways, over the ranking's common clips."""

    model: str
    panel_member: bool                      # scored against leave-one-out corrections
    record: Interval
    corrected: Interval
    truth: Interval | None                  # None without a truth field
    corrected_minus_truth: Interval | None  # corrected WER - truth WER (paired)
    record_fallback_clips: int              # member only: panel-corrected clips it is scored on uncorrected


@dataclass(frozen=True)
class WerRanking:
    """Per model the three WERs; per scheme the models ordered best (lowest WER) first."""

    clips: int
    models: dict[str, ModelWers]
    ranking: dict[str, tuple[str, ...]]     # scheme -> models, best first ("truth" only with a truth field)

    def rank_of(self, model: str, scheme: str) -> int | None:
        """1-based place of ``model`` under ``scheme`` (None when the scheme was not measured)."""
        order = self.ranking.get(scheme)
        return None if order is None else order.index(model) + 1


def _judged_edits(edits: Sequence[Edit], model: str) -> dict[str, list[Edit]]:
    """clip -> the edits ``model`` is judged against: those carrying its verdict.

    The miner gives a model a verdict exactly on the edits of the panel it is
    judged by (its leave-one-out panel for a member, the whole panel for any
    other model), so these are the corrections it may be scored against."""
    out: dict[str, list[Edit]] = {}
    for e in edits:
        if model in e.verdicts:
            out.setdefault(e.clip_id, []).append(e)
    return out


def measure_wer_ranking(clips: Sequence[ClipInput], edits: Sequence[Edit], models: Sequence[str],
                        members: Sequence[str], truth: Mapping[str, tuple[str, ...]] | None = None, *,
                        n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED,
                        counts: Callable[[Sequence[str], Sequence[str]], ClipCounts] = clip_counts) -> WerRanking:
    """The three WERs of every model in ``models`` and the ranking under each (see the module docstring).

    ``clips`` are normalized (as mined), ``edits`` the mining's edits, ``members``
    the panel, ``truth`` clip -> normalized tokens of what was said; ``counts`` is
    the scorer's word-error count (``metrics.scorers``; default: plain alignment)."""
    models = list(dict.fromkeys(models))
    common = [c for c in clips if c.ref and all(m in c.hyps for m in models)]
    if truth is not None:
        common = [c for c in common if c.clip_id in truth]
    member_set = set(members)
    corrected_clips = {e.clip_id for e in edits if e.in_full_panel}
    rows: dict[str, ModelWers] = {}
    for m in models:
        rec_e, rec_n, cor_e, cor_n, tru_e, tru_n = [], [], [], [], [], []
        fallback = 0
        judged = _judged_edits(edits, m)
        for c in common:
            hyp = c.hyps[m]
            base = counts(c.ref, hyp)
            rec_e.append(base.errors)
            rec_n.append(len(c.ref))
            mine = judged.get(c.clip_id, ())
            if m in member_set and not mine and c.clip_id in corrected_clips:
                fallback += 1
            fixed = apply_edits(c.ref, mine)
            cor_e.append(counts(fixed, hyp).errors)
            cor_n.append(len(fixed))
            if truth is not None:
                said = truth[c.clip_id]
                tru_e.append(counts(said, hyp).errors)
                tru_n.append(len(said))
        record = bootstrap_ratio(rec_e, rec_n, n_boot=n_boot, seed=seed)
        corrected = bootstrap_ratio(cor_e, cor_n, n_boot=n_boot, seed=seed)
        truth_wer = gap = None
        if truth is not None:
            truth_wer = bootstrap_ratio(tru_e, tru_n, n_boot=n_boot, seed=seed)
            gap = bootstrap_ratio_difference(cor_e, cor_n, tru_e, tru_n, n_boot=n_boot, seed=seed)
        rows[m] = ModelWers(m, m in member_set, record, corrected, truth_wer, gap, fallback)
    ranking = {
        "record": _order(rows, lambda r: r.record),
        "corrected": _order(rows, lambda r: r.corrected),
    }
    if truth is not None:
        ranking["truth"] = _order(rows, lambda r: r.truth)
    return WerRanking(len(common), rows, ranking)


def _order(rows: Mapping[str, ModelWers], pick) -> tuple[str, ...]:
    """Models by WER, lowest first; ties keep the given model order (stable sort), NaN last."""
    def key(name: str) -> float:
        value = pick(rows[name]).estimate
        return float("inf") if value != value else value

    return tuple(sorted(rows, key=key))
