"""Beam search for transducers (RNN-T and TDT) over the joint network, hypotheses merged by labels.

A transducer emits a text along one of many alignments, so its beam search
is not ``generate``'s ``num_beams``.  This is a frame-synchronous search
over the same arcs as ``transducer_forward``'s lattice:

* hypotheses wait in per-frame buckets; frames are processed in order, and
  a bucket's hypotheses are pruned to the ``beam`` best before they expand;
* from a hypothesis at frame ``t`` the candidates are the ``beam`` best
  tokens and, for TDT, the ``beam`` best durations; every (token, duration)
  pair is scored ``log p(token) + log p(duration)`` and the ``beam`` best
  pairs are kept.  A blank must move: a blank paired with duration 0 is
  read as duration 1, the rule the greedy decoder (transformers', NeMo's
  and ours) follows;
* a label that does not move (RNN-T's labels, TDT's duration 0) stays at
  ``t`` and expands again in the next round at the same frame, at most
  ``max_symbols`` labels per frame; the label that reaches the cap moves
  one frame without a blank, as the greedy decoder does (such a hypothesis
  is no longer a lattice path: ``complete`` becomes False);
* anything landing at or past the last frame is finished.  A finished
  hypothesis is ``complete`` when every arc was a lattice arc and it ended
  with a blank landing exactly on the last frame (the forward algorithm's
  end condition).  Finished hypotheses are ranked by score whether complete
  or not, as the greedy decoder returns whatever its path emitted; a TDT
  hypothesis whose last label jumps past the end carries no closing blank
  term, and ``complete`` says so.

Hypotheses with the same labels at the same place (frame, or finished)
merge: their probabilities add (log-add-exp), because they are disjoint
sets of alignments of the same text.  A hypothesis' ``score`` is therefore
the log of the summed probability of the alignments the search kept for
it: at least its best single alignment and, for a complete one, at most the
exact forward log-likelihood of its labels.  With ``beam = 1`` nothing
merges and every choice is the argmax token and argmax duration: the
greedy decoder, step for step.

The network is reached through two callables so that this module needs no
torch: ``joint(t, states)`` gives the token (and duration) log-probabilities
of several prediction-network states at frame ``t``, and
``predict(states, labels)`` advances states by one label each.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

import numpy as np


@dataclass(frozen=True)
class Hypothesis:
    """One partial or finished hypothesis of the search."""

    labels: tuple[int, ...]
    score: float  # log of the summed probability of its kept alignments
    complete: bool  # only lattice arcs so far (and, once finished, ended on the last frame by a blank)
    symbols: int = 0  # labels emitted at the current frame without moving
    state: object = None  # the prediction network's state after ``labels``; None until computed
    parent: object = None  # the state before the last label, while ``state`` is pending


Joint = Callable[[int, list], tuple[np.ndarray, np.ndarray | None]]
Predict = Callable[[list, list[int]], list]


def _top(row: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest entries, the first index winning ties (as ``argmax`` does)."""
    return np.argsort(-row, kind="stable")[:k]


def _merge(into: dict, hyp: Hypothesis) -> None:
    key = (hyp.labels, hyp.complete)
    old = into.get(key)
    if old is None:
        into[key] = hyp
        return
    best = old if old.score >= hyp.score else hyp
    into[key] = replace(best, score=float(np.logaddexp(old.score, hyp.score)))


def _prune(hyps: dict, beam: int) -> list[Hypothesis]:
    return sorted(hyps.values(), key=lambda h: (-h.score, h.labels))[:beam]


def _expansions(token_lp: np.ndarray, duration_lp: np.ndarray | None, beam: int, blank: int, one: int,
                zero: frozenset) -> list[tuple[int, int, float]]:
    """``(token, duration index, log-prob)`` of the ``beam`` best arcs leaving one hypothesis.

    ``one`` is the index of duration 1, ``zero`` the indices of duration 0."""
    tokens = _top(token_lp, beam)
    if duration_lp is None:
        return [(int(k), -1, float(token_lp[k])) for k in tokens]
    pairs: dict[tuple[int, int], float] = {}
    for k in tokens:
        for i in _top(duration_lp, beam):
            i = one if (k == blank and i in zero) else int(i)
            pairs[(int(k), i)] = float(token_lp[k]) + float(duration_lp[i])
    ranked = sorted(pairs.items(), key=lambda kv: -kv[1])[:beam]
    return [(k, i, lp) for (k, i), lp in ranked]


def beam_search(n_frames: int, joint: Joint, predict: Predict, start, *, beam: int, blank: int,
                durations: Sequence[int] | None, max_symbols: int) -> list[Hypothesis]:
    """Finished hypotheses, best first.  ``durations`` is None for an RNN-T."""
    if beam < 1:
        raise ValueError(f"beam size must be at least 1, not {beam}")
    if n_frames <= 0:
        return []
    tdt = durations is not None
    durations = list(durations or ())
    one = durations.index(1) if tdt else -1
    zero = frozenset(i for i, d in enumerate(durations) if d == 0)
    buckets: dict[int, dict] = {0: {}}
    _merge(buckets[0], Hypothesis(labels=(), score=0.0, complete=True, state=start))
    finished: dict = {}
    for t in range(n_frames):
        current = _prune(buckets.pop(t, {}), beam)
        while current:
            current = _with_states(current, predict)
            token_lp, duration_lp = joint(t, [h.state for h in current])
            same_frame: dict = {}
            for row, hyp in enumerate(current):
                dur_row = None if duration_lp is None else duration_lp[row]
                for token, index, step_lp in _expansions(token_lp[row], dur_row, beam, blank, one, zero):
                    is_blank = token == blank
                    advance = durations[index] if tdt else int(is_blank)
                    symbols = 0 if advance > 0 else hyp.symbols + 1
                    complete = hyp.complete
                    if symbols >= max_symbols:  # too many labels without moving: move one frame
                        advance, symbols, complete = 1, 0, False
                    landing = t + advance
                    if landing >= n_frames:
                        complete = complete and is_blank and landing == n_frames
                    new = Hypothesis(
                        labels=hyp.labels if is_blank else hyp.labels + (token,),
                        score=hyp.score + step_lp, complete=complete, symbols=symbols,
                        state=hyp.state if is_blank else None, parent=None if is_blank else hyp.state,
                    )
                    if landing >= n_frames:
                        _merge(finished, replace(new, state=None, parent=None))
                    elif advance == 0:
                        _merge(same_frame, new)
                    else:
                        _merge(buckets.setdefault(landing, {}), new)
            current = _prune(same_frame, beam)
    return sorted(finished.values(), key=lambda h: (-h.score, h.labels))


def _with_states(hyps: list[Hypothesis], predict: Predict) -> list[Hypothesis]:
    """Compute the prediction-network states still pending (one batched step for all of them)."""
    pending = [i for i, h in enumerate(hyps) if h.state is None]
    if not pending:
        return hyps
    states = predict([hyps[i].parent for i in pending], [hyps[i].labels[-1] for i in pending])
    out = list(hyps)
    for i, state in zip(pending, states):
        out[i] = replace(hyps[i], state=state, parent=None)
    return out
