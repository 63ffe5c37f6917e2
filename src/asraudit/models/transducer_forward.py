"""Exact transducer likelihoods (RNN-T and TDT), split into per-token terms.

A transducer's joint network gives, at every lattice node ``(t, u)`` (encoder
frame ``t``, ``u`` labels emitted so far), a distribution over the next
symbol: blank or a label.  A TDT (token-and-duration transducer) also gives a
distribution over *durations*: how many frames the emission advances.  The
probability of a text is the sum over every alignment (every path through the
lattice that emits exactly its labels), which one forward pass computes:

* RNN-T: a label keeps ``t`` and moves ``u -> u + 1``; a blank moves
  ``t -> t + 1``.  A complete path ends with the blank that leaves the last
  frame at ``u = U``.
* TDT: both move ``t -> t + d`` for the predicted duration ``d``, at
  probability ``p(symbol) * p(d)``; a blank needs ``d > 0``.  A complete
  path ends with a blank landing exactly on frame ``T`` at ``u = U``.  This
  is the lattice the TDT loss is trained on (Xu et al. 2023; transformers'
  ``tdt_loss`` and NeMo's reference loss use the same arcs, and the tests
  check the value against ``tdt_loss``).

Both are one recursion over *arcs*: a blank arc ``(t, u) -> (t + d, u)`` and
a label arc ``(t, u) -> (t + d, u + 1)``, each with a log-probability.

Per-token terms, as ``ctc_prefix`` does for CTC: the prefix mass
``P(y_1..k)`` is the mass of partial paths whose last arc emits ``y_k``
(these events are disjoint: a path emits ``y_k`` once).  Term ``k`` is
``log P(y_1..k) - log P(y_1..k-1)`` and the last term, ``log p(y) - log
P(y_1..n)``, is ending after the text; the terms sum to ``log p(y)``.  Every
term is ``<= 0`` because every node's outgoing arcs carry at most
probability one.

Float64 numpy: the recursion over ``t`` is vectorised over ``u``; the
``d = 0`` label arcs inside one frame are a running log-sum-exp along ``u``
(``np.logaddexp.accumulate``), so no Python loop runs over ``u``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

NEG_INF = -np.inf


@dataclass(frozen=True)
class Arcs:
    """The lattice of one (audio, text) pair.

    ``blank[i]`` is ``(d, logp[T, U+1])``: blank arcs of duration ``d > 0``
    from every node; ``label[i]`` is ``(d, logp[T, U])``: arcs emitting
    label ``u + 1`` from node ``(t, u)`` with duration ``d >= 0``.
    """

    n_frames: int
    n_labels: int
    blank: tuple[tuple[int, np.ndarray], ...]
    label: tuple[tuple[int, np.ndarray], ...]

    def __post_init__(self):
        for d, _ in self.blank:
            if d <= 0:
                raise ValueError("a blank arc must advance at least one frame")


def rnnt_arcs(log_probs: np.ndarray, labels: Sequence[int], blank: int) -> Arcs:
    """Arcs of an RNN-T from its joint log-probabilities ``[T, U+1, V]`` for ``labels``."""
    lp = np.asarray(log_probs, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    n = len(labels)
    label_lp = lp[:, np.arange(n), labels] if n else np.zeros((lp.shape[0], 0))
    return Arcs(lp.shape[0], n, ((1, lp[:, :, blank]),), ((0, label_lp),))


def tdt_arcs(token_log_probs: np.ndarray, duration_log_probs: np.ndarray, labels: Sequence[int], blank: int,
             durations: Sequence[int]) -> Arcs:
    """Arcs of a TDT from token ``[T, U+1, V]`` and duration ``[T, U+1, D]`` log-probabilities."""
    lp = np.asarray(token_log_probs, dtype=np.float64)
    dp = np.asarray(duration_log_probs, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    n = len(labels)
    label_lp = lp[:, np.arange(n), labels] if n else np.zeros((lp.shape[0], 0))
    blank_arcs = tuple((int(d), lp[:, :, blank] + dp[:, :, i]) for i, d in enumerate(durations) if d > 0)
    label_arcs = tuple((int(d), label_lp + dp[:, :n, i]) for i, d in enumerate(durations))
    return Arcs(lp.shape[0], n, blank_arcs, label_arcs)


def _lse(stack: list[np.ndarray], shape) -> np.ndarray:
    if not stack:
        return np.full(shape, NEG_INF)
    arr = np.stack(stack)
    top = np.max(arr, axis=0)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.sum(np.exp(arr - safe), axis=0))


def forward(arcs: Arcs) -> tuple[np.ndarray, np.ndarray, float]:
    """``(alpha[T, U+1], prefix[U], total)``: node masses, prefix masses and log p(text)."""
    T, U = arcs.n_frames, arcs.n_labels
    alpha = np.full((T, U + 1), NEG_INF)
    entering = np.full((T, U), NEG_INF)  # mass arriving at (t, u+1) by emitting label u+1
    zero_label = [lp for d, lp in arcs.label if d == 0]
    for t in range(T):
        base = [np.where(np.arange(U + 1) == 0, 0.0, NEG_INF)] if t == 0 else []
        into = []
        for d, lp in arcs.blank:
            if t - d >= 0:
                base.append(alpha[t - d] + lp[t - d])
        for d, lp in arcs.label:
            if d > 0 and t - d >= 0 and U:
                into.append(alpha[t - d, :U] + lp[t - d])
        from_earlier = _lse(into, (U,))
        base.append(np.concatenate(([NEG_INF], from_earlier)))
        row = _lse(base, (U + 1,))
        if zero_label and U:
            # alpha[t, u] = logsumexp_j<=u row[j] + sum_{j<=i<u} step[i]: a running sum along u.
            step = _lse([lp[t] for lp in zero_label], (U,))
            cum = np.concatenate(([0.0], np.cumsum(step)))
            if np.all(np.isfinite(cum)):
                row = cum + np.logaddexp.accumulate(row - cum)
            else:
                for u in range(1, U + 1):
                    row[u] = np.logaddexp(row[u], row[u - 1] + step[u - 1])
            entering[t] = np.logaddexp(from_earlier, row[:U] + step)
        else:
            entering[t] = from_earlier
        alpha[t] = row
    ends = [alpha[T - d, U] + lp[T - d, U] for d, lp in arcs.blank if T - d >= 0]
    total = float(_lse(ends, ()) if ends else NEG_INF)
    prefix = _lse(list(entering), (U,)) if T else np.full(U, NEG_INF)
    return alpha, prefix, total


def token_logprobs(arcs: Arcs) -> tuple[np.ndarray, float]:
    """``(per_label, end)`` with ``per_label.sum() + end == log p(text)`` (see the module docstring)."""
    _, prefix, total = forward(arcs)
    n = arcs.n_labels
    previous = np.concatenate(([0.0], prefix[:-1]))
    with np.errstate(invalid="ignore"):
        per_label = np.where(np.isfinite(prefix), prefix - previous, NEG_INF)
        end = total - (prefix[-1] if n else 0.0)
    return per_label, float(end) if np.isfinite(total) else NEG_INF
