"""Tolerances for float32 model outputs compared across code paths, batch shapes and CPU kernels.

A token log-probability is a logit minus the log-sum-exp over the vocabulary;
each logit is a dot product over d_model (384-1280) float32 terms after every
layer's matrix products, and a candidate's score sums a few dozen to hundreds
of such log-probs.  Different CPU kernels (AVX2, AVX-512, NEON; oneDNN,
OpenBLAS, Accelerate) and different batch shapes add in different orders and
block sizes, so the results differ by rounding: float32's step is 2^-24 ≈
6e-8 relative, and a sum of n terms in another order moves by up to ~n steps
(a few hundred here: ~2e-5 relative in the worst case, ~1e-6 typically).

The error of a log-prob grows with its magnitude (a log-prob near 0 is a
logit minus a log-sum-exp it dominates, and their rounding errors cancel; a
large negative one is the difference of two independent roundings), so the
bound is relative: ``LOGPROB_RTOL`` = 1e-5 of the value, plus each test's
small absolute floor for values near 0.  Observed: -7.988859 vs -7.988845
(batched vs one by one, AVX-512), 1.7e-6 relative, well inside 1e-5, while
the old absolute 1e-5 failed it.
"""

LOGPROB_RTOL = 1e-5
