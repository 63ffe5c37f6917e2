"""The transducer beam search on synthetic joint networks, against the exact forward algorithm.

The joint here is a deterministic random function of (frame, labels so far),
so it depends on the whole label context like a real prediction network.
With a beam wide enough to keep every hypothesis, merging by log-add-exp
must reproduce the forward algorithm's exact sum over alignments for every
text short enough that no alignment hits the per-frame label cap; for
longer texts it can only miss alignments (score <= forward).  With beam 1
the search is the greedy decoder written out independently below.
float64 throughout: 1e-9 relative.
"""

from __future__ import annotations

import numpy as np
import pytest

from asraudit.models.transducer_beam import beam_search
from asraudit.models.transducer_forward import forward, rnnt_arcs, tdt_arcs

RTOL = 1e-9  # float64 sums of at most a few hundred terms
BLANK = 0


def _log_softmax(x):
    x = x - x.max()
    return x - np.log(np.exp(x).sum())


class RandomJoint:
    """log p(token), log p(duration) at (t, labels): seeded by the context, so repeatable."""

    def __init__(self, V: int, D: int, seed: int):
        self.V, self.D, self.seed = V, D, seed

    def at(self, t: int, labels: tuple[int, ...]):
        rng = np.random.default_rng([self.seed, t, len(labels), *labels])
        tokens = _log_softmax(rng.normal(size=self.V) * 1.5)
        durations = _log_softmax(rng.normal(size=self.D)) if self.D else None
        return tokens, durations

    def joint(self, t, states):
        rows = [self.at(t, labels) for labels in states]
        tokens = np.stack([r[0] for r in rows])
        return tokens, (np.stack([r[1] for r in rows]) if self.D else None)

    @staticmethod
    def predict(states, labels):
        return [state + (label,) for state, label in zip(states, labels)]

    def lattice(self, T: int, labels: tuple[int, ...]):
        grid = [[self.at(t, labels[:u]) for u in range(len(labels) + 1)] for t in range(T)]
        tokens = np.array([[cell[0] for cell in row] for row in grid])
        durations = np.array([[cell[1] for cell in row] for row in grid]) if self.D else None
        return tokens, durations


def _search(joint: RandomJoint, T, beam, durations, max_symbols):
    return beam_search(T, joint.joint, joint.predict, (), beam=beam, blank=BLANK,
                       durations=durations, max_symbols=max_symbols)


def _forward(joint: RandomJoint, T, labels, durations):
    tokens, dur = joint.lattice(T, labels)
    arcs = rnnt_arcs(tokens, labels, BLANK) if durations is None else tdt_arcs(tokens, dur, labels, BLANK, durations)
    return forward(arcs)[2]


CASES = [("rnnt", None, 3, 11), ("rnnt", None, 3, 12), ("tdt", (0, 1, 2), 3, 13), ("tdt", (0, 1, 2, 3), 3, 14)]


@pytest.mark.parametrize("kind,durations,T,seed", CASES)
def test_a_beam_that_keeps_everything_sums_every_alignment(kind, durations, T, seed):
    V, max_symbols = 3, 3
    joint = RandomJoint(V, len(durations or ()), seed)
    found = _search(joint, T, beam=10_000, durations=durations, max_symbols=max_symbols)
    complete = [h for h in found if h.complete]
    exact = [h for h in complete if len(h.labels) < max_symbols]
    assert len(exact) >= 5, "too few short texts: nothing compared"
    for hyp in exact:  # no alignment of a text this short reaches the per-frame cap
        assert hyp.score == pytest.approx(_forward(joint, T, hyp.labels, durations), rel=RTOL)
    for hyp in complete[:60]:  # longer texts: alignments with max_symbols labels at one frame were cut
        assert hyp.score <= _forward(joint, T, hyp.labels, durations) + 1e-12
    # Every text of up to two labels appears, each once among the complete hypotheses.
    texts = [h.labels for h in complete]
    assert len(texts) == len(set(texts))
    short = {()} | {(a,) for a in (1, 2)} | {(a, b) for a in (1, 2) for b in (1, 2)}
    assert short <= set(texts)


def _greedy(joint: RandomJoint, T, durations, max_symbols):
    """The greedy transducer decoder (argmax token, argmax duration; a blank moves; a per-frame cap)."""
    t, symbols, labels, logp = 0, 0, (), 0.0
    while t < T:
        tokens, dur = joint.at(t, labels)
        k = int(np.argmax(tokens))
        step = tokens[k]
        if durations is None:
            advance = int(k == BLANK)
        else:
            i = int(np.argmax(dur))
            if k == BLANK and durations[i] == 0:
                i = list(durations).index(1)
            advance, step = durations[i], step + dur[i]
        logp += step
        if k != BLANK:
            labels += (k,)
        symbols = 0 if advance > 0 else symbols + 1
        if symbols >= max_symbols:
            advance, symbols = 1, 0
        t += advance
    return labels, logp


@pytest.mark.parametrize("kind,durations", [("rnnt", None), ("tdt", (0, 1, 2))])
def test_beam_one_is_the_greedy_decoder(kind, durations):
    for seed in range(20):
        joint = RandomJoint(5, len(durations or ()), seed)
        (best, *rest) = _search(joint, 8, beam=1, durations=durations, max_symbols=2)
        assert rest == []
        labels, logp = _greedy(joint, 8, durations, max_symbols=2)
        assert best.labels == labels and best.score == pytest.approx(logp, rel=RTOL)


@pytest.mark.parametrize("kind,durations", [("rnnt", None), ("tdt", (0, 1, 2))])
def test_scores_are_bounded_by_the_forward_likelihood(kind, durations):
    """A pruned beam keeps only some alignments of a text: never more than all of them."""
    checked = 0
    for seed in range(10):
        joint = RandomJoint(6, len(durations or ()), 100 + seed)
        for hyp in _search(joint, 7, beam=3, durations=durations, max_symbols=4):
            if hyp.complete:
                checked += 1
                assert hyp.score <= _forward(joint, 7, hyp.labels, durations) + 1e-12
    assert checked >= 10


def test_bad_beam_and_empty_input():
    joint = RandomJoint(3, 0, 0)
    with pytest.raises(ValueError, match="at least 1"):
        _search(joint, 3, beam=0, durations=None, max_symbols=3)
    assert _search(joint, 0, beam=2, durations=None, max_symbols=3) == []
