"""What reference errors cost in WER, per model.

Three numbers over the same clips (each model's clips with a non-empty
reference), each with a clip-bootstrap interval drawn from the same resampled
clips:

* WER against the original references;
* WER against the corrected references (mined edits applied, or a human
  correction);
* WER gained by echoing reference errors: the model's original-reference WER
  recomputed with every span where it wrote the reference's error (verdict
  ``ref``) replaced by the audio rendering, minus its actual WER.  Positive
  means reproducing the benchmark's errors made the model look that much
  better than transcribing the audio would have.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED, Interval, bootstrap_ratios
from asraudit.metrics.wer import ClipCounts, clip_counts, word_errors
from asraudit.probes.corrected import hyp_span_of
from asraudit.probes.refdis import ClipInput, Edit, HypCells


@dataclass(frozen=True)
class WerCost:
    model: str
    clips: int
    ref_words: int
    corrected_words: int
    n_echoed: int
    original: Interval
    corrected: Interval
    gained: Interval

    def to_json(self) -> dict:
        def iv(x: Interval) -> dict:
            return {"value": x.estimate, "value_interval": x.to_json()}

        return {
            "clips": self.clips,
            "ref_words": self.ref_words,
            "corrected_words": self.corrected_words,
            "n_echoed": self.n_echoed,
            "wer_original": iv(self.original),
            "wer_corrected": iv(self.corrected),
            "wer_gained": iv(self.gained),
        }


def follow_audio(ref: Sequence[str], hyp: Sequence[str], echoed: Sequence[Edit]) -> tuple[str, ...]:
    """``hyp`` with each echoed edit's place rewritten to the audio rendering."""
    if not echoed:
        return tuple(hyp)
    cells = HypCells(ref, hyp)
    out = list(hyp)
    spans = sorted(((hyp_span_of(cells, e.ref_start, e.ref_end), e.a.split()) for e in echoed), reverse=True)
    for (lo, hi), audio in spans:
        out[lo:hi] = audio
    return tuple(out)


def wer_cost(
    clips: Sequence[ClipInput],
    corrected: Mapping[str, tuple[str, ...]],
    edits: Sequence[Edit],
    models: Sequence[str],
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    counts: Callable[[Sequence[str], Sequence[str]], ClipCounts] = clip_counts,
) -> dict[str, WerCost]:
    """WER original / corrected / gained for each model (see the module docstring); ``counts`` is the
    scorer's word-error count (``metrics.scorers``; default: plain alignment)."""
    # The plain alignment's error count is the edit distance itself (no operations built); another scorer counts its way.
    errors = word_errors if counts is clip_counts else (lambda r, h: counts(r, h).errors)
    echoed: dict[str, dict[str, list[Edit]]] = {}  # model -> clip -> the edits it echoed there
    for e in edits:
        for m, v in e.verdicts.items():
            if v == "ref":
                echoed.setdefault(m, {}).setdefault(e.clip_id, []).append(e)
    # Clip by clip (each clip's words stay in the cache while every model is counted on them), each distinct
    # hypothesis counted once against the reference and the corrected one: models writing the same words on a
    # clip (a third or more of a leaderboard's hypotheses) have the same counts.
    columns = {m: ([], [], [], [], []) for m in models}  # errors, words, corrected errors, corrected words, gain
    n_echoed = dict.fromkeys(models, 0)
    none_echoed: dict[str, list[Edit]] = {}
    many = _distances_of_clip if counts is clip_counts else None
    for clip in clips:
        ref = clip.ref
        if not ref:
            continue
        fixed = corrected.get(clip.clip_id, ref)
        unchanged = fixed == ref  # most clips: no edit
        n_ref, n_fixed = len(ref), len(fixed)
        hyps = clip.hyps
        # the plain alignment's counts of the clip's distinct hypotheses in one call (those the loop below
        # would count one by one: the same edit distances)
        counted: dict[tuple[str, ...], tuple[int, int]] = \
            many(ref, fixed, unchanged, hyps, columns) if many is not None else {}
        for m in columns:  # each model once, in order
            hyp = hyps.get(m)
            if hyp is None:
                continue
            both = counted.get(hyp)
            if both is None:
                base = errors(ref, hyp)
                both = counted[hyp] = (base, base if unchanged else errors(fixed, hyp))
            orig_err, orig_n, corr_err, corr_n, gain = columns[m]
            orig_err.append(both[0])
            orig_n.append(n_ref)
            corr_err.append(both[1])
            corr_n.append(n_fixed)
            mine = echoed.get(m, none_echoed).get(clip.clip_id)
            if mine:  # most clips: the model echoed no reference error there
                n_echoed[m] += len(mine)
                gain.append(errors(ref, follow_audio(ref, hyp, mine)) - both[0])
            else:
                gain.append(0)
    # Models that ran the same clips have equal words columns: one list object each (the bootstrap converts an
    # object once), the values unchanged.
    same: dict[tuple[int, ...], list[int]] = {}
    for m, (orig_err, orig_n, corr_err, corr_n, gain) in columns.items():
        columns[m] = (orig_err, same.setdefault(tuple(orig_n), orig_n), corr_err,
                      same.setdefault(tuple(corr_n), corr_n), gain)
    sums = {m: (len(orig_n), sum(orig_n), sum(corr_n), n_echoed[m], [(orig_err, orig_n), (corr_err, corr_n),
                                                                     (gain, orig_n)])
            for m, (orig_err, orig_n, corr_err, corr_n, gain) in columns.items()}
    # every model's three intervals in one pass over the resamples (the same intervals as one at a time)
    intervals = iter(bootstrap_ratios([pair for *_, pairs in sums.values() for pair in pairs], n_boot=n_boot,
                                      seed=seed))
    return {m: WerCost(m, n_clips, n_words, n_corrected, n_echoed, next(intervals), next(intervals), next(intervals))
            for m, (n_clips, n_words, n_corrected, n_echoed, _) in sums.items()}


def _distances_of_clip(ref, fixed, unchanged: bool, hyps, scored) -> dict[tuple[str, ...], tuple[int, int]]:
    """``(word_errors(ref, hyp), word_errors(fixed, hyp))`` of each distinct hypothesis of the scored models (of
    every model of the clip where none other ran it), by one ``cdist`` of rapidfuzz's ``Levenshtein.distance``,
    the scorer ``word_errors`` calls: the same distances, without a Python call per hypothesis."""
    distinct = list(dict.fromkeys(hyps.values() if hyps.keys() <= scored.keys()
                                  else (h for m, h in hyps.items() if m in scored)))
    if not distinct:
        return {}
    rows = cdist([ref] if unchanged else [ref, fixed], distinct, scorer=Levenshtein.distance,
                 dtype=np.int32).tolist()
    return dict(zip(distinct, zip(rows[0], rows[0] if unchanged else rows[1])))
