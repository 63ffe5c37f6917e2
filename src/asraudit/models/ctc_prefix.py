"""Per-token log-probabilities for CTC models, by prefix probabilities.

A CTC model gives log p(y | x) for a whole label sequence y (the sum over
all frame alignments that collapse to y), not a probability per token.  The
audio-lift probe sums log-probabilities over a span, so we need a per-token
decomposition that adds up to log p(y | x).  The natural one is the chain
rule over the distribution of label sequences:

    log p(y) = sum_k log P(y_1..k) - log P(y_1..k-1)  +  log p(y) - log P(y_1..n)

where P(y_1..k) is the *prefix probability*: the probability that the
collapsed output starts with y_1..y_k (Graves 2008, section 7.3; the
quantity CTC prefix beam search uses).  The last term is the probability of
stopping after y, the analogue of Whisper's end-of-text.  Every term is
<= 0, and the sum is exactly the CTC log-likelihood.

All prefix probabilities come from one forward pass: the mass entering the
state of label k at frame t from an earlier state is the probability that
y_k is first emitted at t after a prefix y_1..k-1, and these events are
disjoint across t.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

NEG_INF = -np.inf


def _logsumexp(*arrays: np.ndarray) -> np.ndarray:
    stacked = np.stack(arrays)
    top = np.max(stacked, axis=0)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.sum(np.exp(stacked - safe), axis=0))


def ctc_token_logprobs(log_probs: np.ndarray, labels: Sequence[int], blank: int) -> tuple[np.ndarray, float]:
    """Chain-rule log-probabilities of ``labels`` under frame posteriors ``log_probs`` ``[T, V]``.

    Returns ``(per_label, end)``: ``per_label[k] = log P(y_1..k+1) - log
    P(y_1..k)`` and ``end = log p(y) - log P(y)`` (stopping after the last
    label).  ``per_label.sum() + end`` is the CTC log-likelihood of ``labels``.
    """
    lp = np.asarray(log_probs, dtype=np.float64)
    labels = [int(t) for t in labels]
    if blank in labels:
        raise ValueError("the label sequence contains the blank token")
    n_frames = lp.shape[0]
    n = len(labels)
    ext = [blank]
    for token in labels:
        ext += [token, blank]
    ext_arr = np.array(ext)
    n_states = len(ext)
    # A label may be reached from two states back when it differs from the previous label.
    can_skip = np.zeros(n_states, dtype=bool)
    for s in range(3, n_states, 2):
        can_skip[s] = ext[s] != ext[s - 2]
    label_states = np.arange(1, n_states, 2)

    alpha = np.full(n_states, NEG_INF)
    alpha[0] = lp[0, blank]
    prefix = np.full(n, NEG_INF)
    if n and n_frames:
        alpha[1] = lp[0, labels[0]]
        prefix[0] = alpha[1]
    for t in range(1, n_frames):
        emit = lp[t, ext_arr]
        from_prev = np.full(n_states, NEG_INF)
        from_prev[1:] = alpha[:-1]
        from_skip = np.full(n_states, NEG_INF)
        from_skip[2:] = alpha[:-2]
        from_skip[~can_skip] = NEG_INF
        entering = _logsumexp(from_prev, from_skip) + emit
        if n:
            prefix = _logsumexp(prefix, entering[label_states])
        alpha = _logsumexp(alpha, from_prev, from_skip) + emit
    if not n_frames:
        total = NEG_INF
    elif n:
        total = float(np.logaddexp(alpha[-1], alpha[-2]))  # ending on the last label or a blank after it
    else:
        total = float(alpha[0])
    previous = np.concatenate(([0.0], prefix[:-1]))
    with np.errstate(invalid="ignore"):
        per_label = prefix - previous
        end = total - (prefix[-1] if n else 0.0)
    per_label = np.where(np.isfinite(prefix), per_label, NEG_INF)
    return per_label, float(end) if np.isfinite(total) else NEG_INF
