"""WER, CER, precision and intervals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from asraudit.metrics import (
    aggregate,
    bootstrap_ratio,
    clip_counts,
    corpus_cer,
    corpus_wer,
    paired_bootstrap,
    wilson_interval,
)


def test_corpus_wer_is_total_errors_over_total_words_not_a_mean_of_clips():
    score = corpus_wer(["a b c d", "e"], ["a b c d", "x"])
    assert score.rate == pytest.approx(1 / 5)
    assert score.substitutions == 1 and score.clips == 2


def test_wer_matches_jiwer_on_small_cases():
    jiwer = pytest.importorskip("jiwer")
    refs = ["the cat sat on the mat", "hello world", "a b c d e f"]
    hyps = ["the cat sat on mat", "hello there world", "a x c d f g h"]
    out = jiwer.process_words(refs, hyps)
    score = corpus_wer(refs, hyps)
    assert score.rate == pytest.approx(out.wer, abs=1e-12)
    assert (score.substitutions, score.deletions, score.insertions) == (out.substitutions, out.deletions, out.insertions)
    assert corpus_cer(refs, hyps).rate == pytest.approx(jiwer.cer(refs, hyps), abs=1e-12)


def test_precision_ignores_deletions_but_not_insertions():
    deletions_only = corpus_wer(["a b c d"], ["a b"])
    assert deletions_only.rate == 0.5 and deletions_only.precision == 1.0
    insertion = corpus_wer(["a b"], ["a b c d"])
    assert insertion.precision == 0.5


def test_precision_is_undefined_for_an_empty_hypothesis():
    assert math.isnan(corpus_wer(["a"], [""]).precision)


def test_wilson_interval_known_values():
    lo, hi = wilson_interval(0, 31)
    assert lo == 0.0 and hi == pytest.approx(0.11025900073475385, abs=1e-12)
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.2365896, abs=1e-6) and hi == pytest.approx(0.7634104, abs=1e-6)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_rejects_impossible_counts():
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_bootstrap_interval_contains_the_estimate_and_is_reproducible():
    rng = np.random.default_rng(0)
    den = rng.integers(5, 30, size=200)
    num = rng.binomial(den, 0.1)
    a = bootstrap_ratio(num, den, n_boot=500, seed=7)
    b = bootstrap_ratio(num, den, n_boot=500, seed=7)
    assert a == b
    assert a.low < a.estimate < a.high
    assert a.high - a.low < 0.05


def test_bootstrap_interval_narrows_with_more_clips():
    rng = np.random.default_rng(1)
    widths = []
    for n in (50, 2000):
        den = rng.integers(5, 30, size=n)
        num = rng.binomial(den, 0.2)
        iv = bootstrap_ratio(num, den, n_boot=300)
        widths.append(iv.high - iv.low)
    assert widths[1] < widths[0] / 3


def test_paired_bootstrap_prefers_the_better_model():
    rng = np.random.default_rng(2)
    den = rng.integers(5, 30, size=300)
    better = rng.binomial(den, 0.05)
    worse = rng.binomial(den, 0.10)
    assert paired_bootstrap(better, worse, den, n_boot=300) > 0.99
    assert paired_bootstrap(worse, better, den, n_boot=300) < 0.01
    assert paired_bootstrap(better, better, den, n_boot=100) == 0.5


def test_aggregate_keeps_per_clip_counts():
    counts = [clip_counts("a b".split(), "a".split()), clip_counts("c".split(), "c d".split())]
    score = aggregate(counts, n_boot=50)
    assert score.errors_array().tolist() == [1, 1]
    assert score.ref_array().tolist() == [2, 1]
