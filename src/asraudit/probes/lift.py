"""Audio lift: did the audio, or the language prior, make a text likely?

    λ(r) = (log p(r | x) − log p(r | x_∅)) / chars(r)

where x is the clip, x_∅ the silent clip of the same length, and r a span of
text (the reference span at a mined edit, the audio rendering a, a masked
target).  Both log-probabilities come from teacher forcing the whole
transcript and summing the log-probs of the tokens that cover the span, so
the span is scored in its context.

λ > 0: the audio raised the span's likelihood (the model heard it).  λ ≈ 0:
the model finds the span as likely with no audio at all (the prior writes it).
A benchmark-optimized model that echoes an unspoken reference phrase shows
λ(r) ≈ 0 with a high p(r | x).

Why per character: the number of tokens of a span depends on the tokenizer
and on the spelling (an arm "Mr" is one token, "mister" may be two), while the
evidence the audio brings grows with the length of what was said.  Characters
are tokenizer-independent, so λ is comparable across models and between the
reference and the audio rendering of one edit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED, Interval, bootstrap_ratio
from asraudit.models.base import TokenScores


def span_token_indices(scores: TokenScores, start: int, end: int) -> list[int]:
    """Indices of the tokens whose characters overlap text[start:end].

    Whitespace does not count as overlap: Whisper's BPE tokens carry their
    leading space, and a token that only touches the span with that space
    belongs to the next word, not to the span.
    """
    if not scores.offsets:
        raise ValueError("these scores carry no token offsets; span lift needs them")
    if not 0 <= start < end <= len(scores.text):
        raise ValueError(f"span [{start}, {end}) is not inside the scored text of length {len(scores.text)}")
    picked = []
    for k, (a, b) in enumerate(scores.offsets):
        lo, hi = max(a, start), min(b, end)
        if lo < hi and scores.text[lo:hi].strip():
            picked.append(k)
    return picked


def span_logprob(scores: TokenScores, start: int, end: int) -> float:
    """Sum of the log-probs of the tokens covering text[start:end]."""
    return float(sum(scores.logprobs[k] for k in span_token_indices(scores, start, end)))


def span_chars(text: str, start: int, end: int) -> int:
    """Characters of the span, whitespace excluded (so spacing conventions do not count)."""
    return sum(1 for ch in text[start:end] if not ch.isspace())


def audio_lift(with_audio: TokenScores, with_silence: TokenScores, start: int, end: int) -> float:
    """λ of text[start:end], from scores of the same text under x and x_∅."""
    if with_audio.text != with_silence.text:
        raise ValueError("lift compares the same text under two inputs; the scored texts differ")
    chars = span_chars(with_audio.text, start, end)
    if chars == 0:
        raise ValueError("the span has no characters to normalise by")
    return (span_logprob(with_audio, start, end) - span_logprob(with_silence, start, end)) / chars


def locate_span(text: str, span: str, occurrence: int = 0) -> tuple[int, int]:
    """Character range of the ``occurrence``-th (0-based) appearance of ``span`` in ``text``."""
    pos = -1
    for _ in range(occurrence + 1):
        pos = text.find(span, pos + 1)
        if pos < 0:
            raise ValueError(f"{span!r} does not occur {occurrence + 1} time(s) in {text!r}")
    return pos, pos + len(span)


@dataclass(frozen=True)
class LiftSummary:
    """Mean λ over items (edits, targets) with a bootstrap interval over items."""

    n: int
    mean: float
    interval: Interval
    share_positive: float


def summarize_lift(values: Sequence[float], n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED) -> LiftSummary:
    arr = np.asarray([v for v in values if v == v], dtype=np.float64)  # drop NaN
    if arr.size == 0:
        nan = float("nan")
        return LiftSummary(0, nan, Interval(nan, nan, nan), nan)
    interval = bootstrap_ratio(arr, np.ones_like(arr), n_boot=n_boot, seed=seed)
    return LiftSummary(int(arr.size), float(arr.mean()), interval, float(np.mean(arr > 0)))
