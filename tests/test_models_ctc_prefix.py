"""CTC prefix decomposition against brute-force enumeration of every frame path."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from asraudit.models.ctc_prefix import ctc_token_logprobs

BLANK = 0


def _collapse(path) -> tuple[int, ...]:
    out, previous = [], None
    for token in path:
        if token != previous and token != BLANK:
            out.append(token)
        previous = token
    return tuple(out)


@pytest.fixture(scope="module")
def posteriors() -> np.ndarray:
    logits = np.random.default_rng(7).normal(size=(5, 3))
    return logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))


@pytest.fixture(scope="module")
def labelling_probs(posteriors) -> dict[tuple[int, ...], float]:
    """p(labelling) by summing over all 3**5 frame paths."""
    probs: dict[tuple[int, ...], float] = {}
    for path in itertools.product(range(3), repeat=posteriors.shape[0]):
        p = float(np.exp(sum(posteriors[t, c] for t, c in enumerate(path))))
        key = _collapse(path)
        probs[key] = probs.get(key, 0.0) + p
    return probs


@pytest.mark.parametrize("labels", [(1,), (1, 2), (1, 1), (2, 1, 2), (2, 2, 2), ()])
def test_each_token_term_is_the_ratio_of_consecutive_prefix_probabilities(posteriors, labelling_probs, labels):
    per_label, end = ctc_token_logprobs(posteriors, labels, BLANK)
    prefix = [sum(p for y, p in labelling_probs.items() if y[:k] == labels[:k]) for k in range(len(labels) + 1)]
    np.testing.assert_allclose(per_label, np.diff(np.log(prefix)), atol=1e-9)
    assert per_label.sum() + end == pytest.approx(np.log(labelling_probs[labels]), abs=1e-9)
    assert end <= 1e-12


def test_a_labelling_too_long_for_the_frames_has_zero_probability(posteriors):
    per_label, end = ctc_token_logprobs(posteriors, (1, 1, 1), BLANK)  # needs 5 frames: 1 _ 1 _ 1, possible
    assert np.isfinite(per_label.sum() + end)
    per_label, end = ctc_token_logprobs(posteriors, (1, 1, 1, 1), BLANK)  # needs 7 frames
    assert per_label[-1] == -np.inf or end == -np.inf


def test_the_blank_cannot_be_a_label(posteriors):
    with pytest.raises(ValueError):
        ctc_token_logprobs(posteriors, (1, BLANK), BLANK)
