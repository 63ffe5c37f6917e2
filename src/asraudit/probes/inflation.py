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
from itertools import compress, repeat
from operator import eq
from typing import Callable, Mapping, Sequence

import numpy as np
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED, Interval, bootstrap_ratios, json_number
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
            return {"value": json_number(x.estimate), "value_interval": x.to_json()}

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
        verdicts = e.verdicts
        for m in compress(verdicts, map(eq, verdicts.values(), repeat("ref"))):  # verdict "ref", found in C
            echoed.setdefault(m, {}).setdefault(e.clip_id, []).append(e)
    # Clip by clip (each clip's words stay in the cache while every model is counted on them), each distinct
    # hypothesis counted once against the reference and the corrected one: models writing the same words on a
    # clip (a third or more of a leaderboard's hypotheses) have the same counts.
    names = list(dict.fromkeys(models))  # each model once, in order
    kept = [clip for clip in clips if clip.ref]
    fixed_of = [corrected.get(clip.clip_id, clip.ref) for clip in kept]
    count_row = _errors_of_clip if counts is clip_counts else _counter_of_clip(errors)
    # per clip, in ``names`` order: the models' hypotheses (None: the model did not run the clip) and their
    # errors against the reference and against the corrected one
    hyp_rows, err_rows, fixed_rows = [], [], []
    for clip, fixed in zip(kept, fixed_of):
        row = list(map(clip.hyps.get, names))
        err, fixed_err = count_row(clip.ref, fixed, fixed == clip.ref, row)
        hyp_rows.append(row)
        err_rows.append(err)
        fixed_rows.append(fixed_err)
    # Then model by model, each column one transposition (in C) of those rows: the values, in the order, that
    # the model's own loop over its clips appends.
    n_ref_all = [len(clip.ref) for clip in kept]
    n_fixed_all = [len(fixed) for fixed in fixed_of]
    at_all: dict[str, list[int]] | None = None
    columns: dict[str, tuple[list[int], ...]] = {}  # errors, words, corrected errors, corrected words, gain
    n_echoed = dict.fromkeys(names, 0)
    by_model = zip(names, zip(*hyp_rows), zip(*err_rows), zip(*fixed_rows)) if kept else \
        ((m, (), (), ()) for m in names)
    for m, hyps, orig_err, corr_err in by_model:
        if None in orig_err:  # a model that did not run every clip: its clips only
            ran = [i for i, e in enumerate(orig_err) if e is not None]
            hyps, its_clips = [hyps[i] for i in ran], [kept[i] for i in ran]
            orig_err, corr_err = [orig_err[i] for i in ran], [corr_err[i] for i in ran]
            orig_n, corr_n = [n_ref_all[i] for i in ran], [n_fixed_all[i] for i in ran]
            at = None
        else:
            orig_err, corr_err = list(orig_err), list(corr_err)
            its_clips, orig_n, corr_n, at = kept, n_ref_all, n_fixed_all, at_all
        gain = [0] * len(orig_err)
        echoes = echoed.get(m)
        if echoes:  # the clips where the model echoed a reference error: the rest gain nothing
            if at is None:
                at = {}
                for k, clip in enumerate(its_clips):
                    at.setdefault(clip.clip_id, []).append(k)
                if its_clips is kept:
                    at_all = at
            for clip_id, mine in echoes.items():
                for k in at.get(clip_id, ()):
                    n_echoed[m] += len(mine)
                    ref = its_clips[k].ref
                    gain[k] = errors(ref, follow_audio(ref, hyps[k], mine)) - orig_err[k]
        columns[m] = (orig_err, orig_n, corr_err, corr_n, gain)
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


def _errors_of_clip(ref, fixed, unchanged: bool, row) -> tuple[list, list]:
    """``word_errors(ref, hyp)`` and ``word_errors(fixed, hyp)`` of each hypothesis of ``row`` (None where it is
    None: a model that did not run the clip), each distinct one counted once, all by one ``cdist`` of
    rapidfuzz's ``Levenshtein.distance``, the scorer ``word_errors`` calls: the same distances, without a
    Python call per hypothesis (``unchanged``: ``fixed == ref``, the second list is the first)."""
    # Hypotheses told apart by identity (prepare_clips makes equal ones one object; equal ones that are not are
    # counted each, equally), in C: id -> hypothesis in order of first use, then each one's place from 1.
    ids = list(map(id, row))
    first = {id(None): None}
    first.update(zip(ids, row))
    at = list(map(dict(zip(first, range(len(first)))).__getitem__, ids))
    if len(first) == 1:  # no scored model ran the clip
        return [None] * len(at), [None] * len(at)
    distinct = list(first.values())
    del distinct[0]
    rows = cdist([ref] if unchanged else [ref, fixed], distinct, scorer=Levenshtein.distance,
                 dtype=np.int32).tolist()
    first = [None, *rows[0]]
    err = list(map(first.__getitem__, at))
    if unchanged:
        return err, err
    second = [None, *rows[1]]
    return err, list(map(second.__getitem__, at))


def _counter_of_clip(errors: Callable[[Sequence[str], Sequence[str]], int]):
    """``_errors_of_clip`` for another scorer: ``errors`` called once per distinct hypothesis (and once more
    against ``fixed`` where the clip has a correction), in the order the models first wrote them."""

    def count_row(ref, fixed, unchanged: bool, row) -> tuple[list, list]:
        slot = {None: 0}
        at = [slot.setdefault(hyp, len(slot)) for hyp in row]
        first, second = [None], [None]
        for hyp in list(slot)[1:]:
            base = errors(ref, hyp)
            first.append(base)
            second.append(base if unchanged else errors(fixed, hyp))
        err = list(map(first.__getitem__, at))
        return err, (err if unchanged else list(map(second.__getitem__, at)))

    return count_row
