"""The transducer forward algorithm against brute force, on random joint outputs.

Every alignment of a short text through a tiny lattice is enumerated
explicitly (a depth-first walk that multiplies arc probabilities, sharing no
code with the recursion), for RNN-T and for TDT with durations {0, 1, 2}.
The forward total must equal the enumerated sum, each prefix mass the
enumerated mass of partial paths ending in that label, the per-token terms
must add up to the total, and the greedy path's probability is at most the
total.  float64 throughout, so the comparisons hold to 1e-9 relative.
"""

from __future__ import annotations

import numpy as np
import pytest

from asraudit.models.transducer_forward import forward, rnnt_arcs, tdt_arcs, token_logprobs

RTOL = 1e-9  # float64 sums of at most a few hundred terms


def _log_softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=axis, keepdims=True))


def _random_joint(rng, T, U, V, D=0):
    tokens = _log_softmax(rng.normal(size=(T, U + 1, V)) * 2)
    durations = _log_softmax(rng.normal(size=(T, U + 1, D))) if D else None
    return tokens, durations


def _moves(kind, lp, dp, labels, blank, durations, t, u):
    """(log p, next t, next u, emitted label?) of every arc leaving node (t, u)."""
    U = len(labels)
    if kind == "rnnt":
        yield lp[t, u, blank], t + 1, u, False
        if u < U:
            yield lp[t, u, labels[u]], t, u + 1, True
        return
    for i, d in enumerate(durations):
        if d > 0:
            yield lp[t, u, blank] + dp[t, u, i], t + d, u, False
        if u < U:
            yield lp[t, u, labels[u]] + dp[t, u, i], t + d, u + 1, True


def _enumerate(kind, lp, dp, labels, blank, durations=()):
    """(total probability, prefix probabilities) by walking every path."""
    T, U = lp.shape[0], len(labels)
    total = [0.0]
    prefix = np.zeros(U)

    def walk(t, u, p):
        for logp, nt, nu, emitted in _moves(kind, lp, dp, labels, blank, durations, t, u):
            q = p * np.exp(logp)
            if emitted and nt < T:
                prefix[nu - 1] += q
            if not emitted and nu == U and nt == T:
                total[0] += q  # a complete path: the final blank lands exactly on T
            elif nt < T:
                walk(nt, nu, q)

    walk(0, 0, 1.0)
    return total[0], prefix


def _greedy_in_lattice(kind, lp, dp, labels, blank, durations=()):
    """The most probable single alignment found greedily among arcs that can still complete."""
    T, U = lp.shape[0], len(labels)
    t = u = 0
    logp = 0.0
    while True:
        options = [m for m in _moves(kind, lp, dp, labels, blank, durations, t, u)
                   if (m[3] and m[1] < T) or (not m[3] and (m[1] < T or (m[1] == T and m[2] == U)))]
        best = max(options, key=lambda m: m[0])
        logp += best[0]
        t, u = best[1], best[2]
        if t == T:
            return logp


CASES = [
    ("rnnt", 3, [1, 2]),
    ("rnnt", 4, [2, 2, 1]),
    ("rnnt", 1, [3]),
    ("rnnt", 3, []),
    ("tdt", 4, [1, 2]),
    ("tdt", 5, [2, 2, 1]),
    ("tdt", 3, []),
    ("tdt", 2, [1, 3, 1]),
]


@pytest.mark.parametrize("kind,T,labels", CASES)
def test_forward_equals_enumeration(kind, T, labels):
    rng = np.random.default_rng(sum(labels) + 10 * T + len(kind))
    V, blank, durations = 4, 0, (0, 1, 2)
    lp, dp = _random_joint(rng, T, len(labels), V, len(durations) if kind == "tdt" else 0)
    arcs = rnnt_arcs(lp, labels, blank) if kind == "rnnt" else tdt_arcs(lp, dp, labels, blank, durations)
    _, prefix, total = forward(arcs)
    brute_total, brute_prefix = _enumerate(kind, lp, dp, labels, blank, durations)
    assert brute_total > 0
    assert total == pytest.approx(np.log(brute_total), rel=RTOL)
    np.testing.assert_allclose(np.exp(prefix), brute_prefix, rtol=RTOL)

    per_label, end = token_logprobs(arcs)
    assert per_label.sum() + end == pytest.approx(total, rel=RTOL)
    assert np.all(per_label <= 1e-12) and end <= 1e-12
    assert _greedy_in_lattice(kind, lp, dp, labels, blank, durations) <= total + 1e-12


def test_rnnt_texts_form_a_distribution():
    """An RNN-T node's arcs sum to one, so the probabilities of every text sum to one.

    Over all texts of up to 4 labels from a 2-label vocabulary on 2 frames, the mass
    that is missing is the mass of texts longer than 4 labels: one of the 2 frames then
    emits at least 3 labels in a row, probability at most 2 p^3 for the largest
    per-node label probability p."""
    rng = np.random.default_rng(3)
    T, V, blank = 2, 3, 0
    texts = [[]]
    for _ in range(4):
        texts += [t + [a] for t in texts if len(t) == max(len(x) for x in texts) for a in (1, 2)]
    texts = [list(t) for t in {tuple(t) for t in texts}]
    # One fixed joint for every prefix: a context-free joint, the same log-probs at every u.
    lp = _log_softmax(rng.normal(size=(T, 1, V)) + np.array([2.0, 0, 0]))
    mass = sum(np.exp(forward(rnnt_arcs(np.repeat(lp, len(t) + 1, axis=1), t, blank))[2]) for t in texts)
    p_label = 1 - np.exp(lp[:, 0, blank]).min()
    assert 1 - 2 * p_label**3 <= mass <= 1 + 1e-12


def test_matches_the_tdt_training_loss():
    """The forward total equals transformers' TDT loss (negated) on the same logits."""
    torch = pytest.importorskip("torch")
    from transformers.loss.loss_tdt import tdt_loss

    rng = np.random.default_rng(7)
    T, labels, V, durations = 6, [1, 3, 2], 5, [0, 1, 2, 3, 4]
    token_logits = rng.normal(size=(1, T, len(labels) + 1, V)) * 2
    duration_logits = rng.normal(size=(1, T, len(labels) + 1, len(durations)))
    loss = tdt_loss(
        torch.tensor(token_logits, dtype=torch.float64), torch.tensor(duration_logits, dtype=torch.float64),
        torch.tensor([labels]), torch.tensor([T]), torch.tensor([len(labels)]), blank_token_id=0,
        durations=durations, reduction="none",
    )
    arcs = tdt_arcs(_log_softmax(token_logits[0]), _log_softmax(duration_logits[0]), labels, 0, durations)
    # The loss accumulates in float32 internally: 1e-5 relative covers its rounding.
    assert forward(arcs)[2] == pytest.approx(-float(loss[0]), rel=1e-5)
