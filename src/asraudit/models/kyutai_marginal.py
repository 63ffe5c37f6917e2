"""A certified marginal over a token stream's placements of a text.

A frame-synchronous stream model (Kyutai STT) emits one token per frame:
the text's pieces at the frames it chooses, a *blank* (a padding or other
special token, which the transcript strips) at every other frame.  Each
prediction conditions on every earlier stream token, blanks included, so

    p(text | audio) = sum over placements s of p(s | audio),

a placement being a stream whose non-blank tokens are exactly the text's
pieces, has no recursion that would collapse it: two placements share no
model state after they first differ.  ``search`` therefore enumerates
placements best-first, frame by frame, and returns two numbers:

* ``L``, the total probability of the complete placements it kept: a sum of
  exact terms, so ``L <= p(text | audio)``;
* ``U = L + P``, where ``P`` is the total probability of every partial
  placement (a stream prefix) it pruned.  The probability of a prefix is the
  sum of the probabilities of *all* its completions, and those that read as
  the text are some of them, so each pruned prefix adds at most its own
  probability to p(text | audio): ``p(text | audio) <= U``.

Prefixes that leave the event (any token other than a blank or the next
piece) or cannot finish (more pieces left than frames) add nothing to
p(text | audio) and are dropped without being counted in ``P``.  The
search keeps the ``beam`` most probable prefixes per frame; ``certified``
doubles the beam until ``log U - log L`` is at most a tolerance, so the
score is exact within that stated tolerance, or raises ``BoundNotClosed``.

Per-token terms, like ``ctc_prefix`` splits CTC: ``E_k`` is the total mass
of kept prefixes at the frame they emit piece k (disjoint events: a stream
emits its k-th piece at one frame), the probability of the event A_k "the
stream's first k non-blank tokens are the text's first k pieces, the k-th
early enough that the rest still fits".  Term k = log E_k - log E_k-1, and
the end term log L - log E_K (nothing but blanks after the last piece).
The terms add up to log L.  Each E_k is certified by the same bound: the
only mass of A_k the search misses is under pruned prefixes, so
E_k <= P(A_k) <= E_k + (U - L), and E_k >= L makes log P(A_k) - log E_k
<= log U - log L too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

NEG_INF = -np.inf

# ``first()``: log-probabilities ``[1, V]`` of the stream's first token.
# ``step(parents, tokens)``: keep the model state's rows ``parents`` (in that order), feed each row its
# ``tokens`` entry as its next stream token, and return the log-probabilities ``[rows, V]`` of the token after.
First = Callable[[], np.ndarray]
Step = Callable[[np.ndarray, np.ndarray], np.ndarray]


class BoundNotClosed(ValueError):
    """The beam cap was reached with the bounds further apart than the tolerance."""


@dataclass(frozen=True)
class Marginal:
    """The outcome of one search: certified bounds on log p(text | audio) and the prefix masses."""

    log_lower: float  # log L: the kept complete placements' total probability
    log_upper: float  # log U: log L plus every pruned prefix's probability
    log_prefix: tuple[float, ...]  # log E_k, k = 1..K
    beam: int  # the most prefixes kept per frame

    @property
    def gap(self) -> float:
        """log U - log L (0 when nothing was pruned; 0 when both are -inf: a text that cannot fit)."""
        if self.log_upper == NEG_INF:
            return 0.0
        return self.log_upper - self.log_lower

    def terms(self) -> tuple[list[float], float]:
        """(per-piece terms, end term): log E_k - log E_k-1, then log L - log E_K; they add up to log L."""
        previous, per_piece = 0.0, []
        for value in self.log_prefix:
            per_piece.append(value - previous if np.isfinite(value) else NEG_INF)
            previous = value
        end = self.log_lower - previous if np.isfinite(self.log_lower) else NEG_INF
        return per_piece, float(end)


def _logsumexp(values: np.ndarray) -> float:
    if values.size == 0:
        return NEG_INF
    top = float(np.max(values))
    if top == NEG_INF:
        return NEG_INF
    return top + float(np.log(np.sum(np.exp(values - top))))


def search(first: First, step: Step, targets: Sequence[int], blanks: Sequence[int], n_frames: int, beam: int) -> Marginal:
    """Placements of ``targets`` among ``n_frames`` stream tokens, at most ``beam`` prefixes per frame."""
    targets_arr = np.asarray(list(targets), dtype=np.int64)
    blank_arr = np.asarray(sorted(set(int(b) for b in blanks)), dtype=np.int64)
    K = len(targets_arr)
    if set(targets_arr.tolist()) & set(blank_arr.tolist()):
        raise ValueError("the target pieces contain a blank token")
    prefix = np.full(K, NEG_INF)
    if K > n_frames:
        return Marginal(NEG_INF, NEG_INF, tuple(prefix), beam)  # no placement exists: p = 0 exactly
    if n_frames == 0:
        return Marginal(0.0, 0.0, (), beam)
    pruned = NEG_INF
    emitted = np.zeros(1, dtype=np.int64)  # pieces emitted by each kept prefix
    logp = np.zeros(1)
    lp = np.asarray(first(), dtype=np.float64)
    n_blank = len(blank_arr)
    for t in range(n_frames):
        left = n_frames - t - 1  # frames after this one
        rows = np.arange(len(logp))
        # Children that emit a blank: the same number of pieces, one child per blank token.
        blank_ok = (K - emitted) <= left
        blank_lp = (logp[:, None] + lp[:, blank_arr])[blank_ok].reshape(-1)
        blank_parent = np.repeat(rows[blank_ok], n_blank)
        blank_token = np.tile(blank_arr, int(blank_ok.sum()))
        blank_k = emitted[blank_parent]
        # Children that emit the next piece.
        emit_ok = (emitted < K) & ((K - emitted - 1) <= left)
        emit_parent = rows[emit_ok]
        emit_k = emitted[emit_ok] + 1
        emit_token = targets_arr[emit_k - 1] if K else np.zeros(0, dtype=np.int64)
        emit_lp = logp[emit_ok] + lp[emit_parent, emit_token]
        np.logaddexp.at(prefix, emit_k - 1, emit_lp)  # E_k: mass at the frame piece k is emitted
        child_lp = np.concatenate([blank_lp, emit_lp])
        parents = np.concatenate([blank_parent, emit_parent])
        tokens = np.concatenate([blank_token, emit_token])
        counts = np.concatenate([blank_k, emit_k])
        if t == n_frames - 1:  # every feasible child is complete (no frame left for another piece)
            return Marginal(_logsumexp(child_lp), float(np.logaddexp(_logsumexp(child_lp), pruned)), tuple(prefix), beam)
        if child_lp.size == 0:
            break
        if child_lp.size > beam:
            order = np.argsort(-child_lp, kind="stable")
            pruned = float(np.logaddexp(pruned, _logsumexp(child_lp[order[beam:]])))
            keep = np.sort(order[:beam])  # the kept rows in a fixed order: results do not depend on ties' order
        else:
            keep = np.arange(child_lp.size)
        logp, emitted = child_lp[keep], counts[keep]
        lp = np.asarray(step(parents[keep], tokens[keep]), dtype=np.float64)
    return Marginal(NEG_INF, pruned, tuple(prefix), beam)


def certified(run: Callable[[int], Marginal], *, tolerance: float, start_beam: int, max_beam: int,
              describe: Callable[[], str]) -> Marginal:
    """``run(beam)`` with the beam doubled from ``start_beam`` until its gap is within ``tolerance``.

    Raises ``BoundNotClosed`` (naming ``describe()``) when ``max_beam`` is reached first: an
    approximation is never returned as the score."""
    beam = max(1, min(start_beam, max_beam))
    while True:
        result = run(beam)
        if result.gap <= tolerance:
            return result
        if beam >= max_beam:
            raise BoundNotClosed(
                f"{describe()}: the placement search did not close its bounds (log U - log L = {result.gap:.3g} nats "
                f"> tolerance {tolerance:g} at {beam} hypotheses per frame): raise score_max_beam or score_tolerance"
            )
        beam = min(2 * beam, max_beam)
