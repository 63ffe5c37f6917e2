"""The bootstrap's packed-count path gives bit-for-bit the intervals of the float path."""

from __future__ import annotations

import numpy as np
import pytest

from asraudit.metrics import stats


@pytest.mark.parametrize("n", [1, 7, 1000, 50_000])
def test_packed_counts_give_identical_intervals(monkeypatch, n):
    rng = np.random.default_rng(n)
    den = rng.integers(0, 20, n).astype(float)
    num = rng.integers(0, 4, n).astype(float)
    assert stats._packed_counts(num, den) is not None
    packed = stats.bootstrap_ratio(num, den, n_boot=200, seed=3)
    monkeypatch.setattr(stats, "_packed_counts", lambda *_: None)
    assert packed == stats.bootstrap_ratio(num, den, n_boot=200, seed=3)


def test_fractions_negatives_and_huge_totals_take_the_float_path():
    assert stats._packed_counts(np.array([0.5, 1.0]), np.array([1.0, 2.0])) is None
    assert stats._packed_counts(np.array([-1.0, 1.0]), np.array([1.0, 2.0])) is None
    assert stats._packed_counts(np.array([1.0, 1.0]), np.array([2.0**31, 2.0])) is None


def test_prefetched_indices_are_the_same_draws(monkeypatch):
    rng = np.random.default_rng(0)
    den = rng.integers(1, 20, 5000).astype(float)
    num = rng.integers(0, 4, 5000).astype(float)
    monkeypatch.setattr(stats, "_PREFETCH_MIN", 0)  # draw the next chunk on the second thread
    ahead = stats.bootstrap_ratio(num, den, n_boot=300, seed=9)
    paired_ahead = stats.paired_bootstrap(num, num[::-1].copy(), den, n_boot=300, seed=9)
    monkeypatch.setattr(stats, "_PREFETCH_MIN", 10**18)
    assert ahead == stats.bootstrap_ratio(num, den, n_boot=300, seed=9)
    assert paired_ahead == stats.paired_bootstrap(num, num[::-1].copy(), den, n_boot=300, seed=9)
