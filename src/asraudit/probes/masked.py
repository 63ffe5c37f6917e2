"""Masked-entity recovery: silence a word and see whether the model still writes it.

A model that hears the audio cannot write a number it never heard; a model
that memorized the benchmark's references can.  The probe (1) selects target
words with timings, (2) masks each one (``asraudit.audio.conditions.SpanMask``),
(3) keeps the word in a hidden reference, and (4) after the model transcribes
the masked clip, asks whether the hidden word appears at the masked place.

Targets a language prior could guess trivially are skipped (``skip_trivial``):
- a word that occurs elsewhere in the same clip: the prior copies it from the
  context, no memory of the benchmark needed;
- "one" and "first" in fixed phrases ("one of", "one another", "first of all",
  "at first"): idioms, not entities;
- very short number words next to another number word ("twenty" in "twenty
  one"): masking half a number tests arithmetic of the prior, not recall.

A control masks a random non-target word of similar length in the same clip:
recovery of the control is the rate at which masked words come back for
reasons unrelated to entities (context, prior), the baseline to compare with.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from asraudit.audio.timing import WordTiming
from asraudit.metrics.stats import wilson_interval
from asraudit.text.align import align

NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million "
    "billion trillion first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "twentieth thirtieth hundredth thousandth half quarter".split()
)
_IDIOMS = {("one", "of"), ("one", "another"), ("first", "of"), ("at", "first"), ("second", "hand")}
_NOT_NAMES = frozenset("i i'm i've i'll i'd mr mrs ms dr madam mister president sir the a".split())


@dataclass(frozen=True, slots=True)
class MaskTarget:
    """One word to mask: its index among the clip's timed words, and why it was chosen."""

    clip_id: str
    index: int
    word: str
    start: float
    end: float
    kind: str  # "number", "name", "listed" or "control"


def _bare(word: str) -> str:
    return word.strip(".,;:!?\"'()[]").lower()


def is_number(word: str) -> bool:
    bare = _bare(word)
    if any(ch.isdigit() for ch in bare):
        return True
    return all(part in NUMBER_WORDS for part in bare.split("-")) and bare != ""


def is_name(word: str, index: int) -> bool:
    """A capitalized word that does not start the sentence and is not a title or pronoun."""
    stripped = word.strip(".,;:!?\"'()[]")
    return index > 0 and stripped[:1].isupper() and _bare(word) not in _NOT_NAMES and not is_number(word)


def _trivial(words: Sequence[str], i: int) -> bool:
    bare = [_bare(w) for w in words]
    if bare.count(bare[i]) > 1:
        return True
    if i + 1 < len(bare) and (bare[i], bare[i + 1]) in _IDIOMS:
        return True
    if i > 0 and (bare[i - 1], bare[i]) in _IDIOMS:
        return True
    if not any(ch.isdigit() for ch in bare[i]) and is_number(words[i]):
        neighbours = [bare[j] for j in (i - 1, i + 1) if 0 <= j < len(bare)]
        if any(n in NUMBER_WORDS for n in neighbours):
            return True
    return False


def select_targets(
    clip_id: str,
    timings: Sequence[WordTiming],
    kind: str = "numbers",
    words: Iterable[str] = (),
    skip_trivial: bool = True,
) -> list[MaskTarget]:
    """Target words of one clip: ``numbers`` (default), ``names`` or ``listed`` (``words``)."""
    listed = {_bare(w) for w in words}
    if kind == "listed" and not listed:
        raise ValueError("kind='listed' needs a list of words")
    text = [t.word for t in timings]
    out = []
    for i, t in enumerate(timings):
        if kind == "numbers":
            chosen = is_number(t.word)
        elif kind == "names":
            chosen = is_name(t.word, i)
        elif kind == "listed":
            chosen = _bare(t.word) in listed
        else:
            raise ValueError(f"unknown target kind {kind!r}; use numbers, names or listed")
        if chosen and not (skip_trivial and _trivial(text, i)):
            out.append(MaskTarget(clip_id, i, t.word, t.start, t.end, kind.rstrip("s") if kind != "listed" else "listed"))
    return out


def control_target(
    clip_id: str, timings: Sequence[WordTiming], target: MaskTarget, seed: int = 0
) -> MaskTarget | None:
    """A non-target word of the clip whose duration is closest to the target's (ties: seeded choice)."""
    duration = target.end - target.start
    candidates = [
        (abs((t.end - t.start) - duration), i, t)
        for i, t in enumerate(timings)
        if i != target.index and not is_number(t.word) and len(_bare(t.word)) > 2
    ]
    if not candidates:
        return None
    best = min(c[0] for c in candidates)
    close = [c for c in candidates if c[0] <= best + 0.05]
    _, i, t = random.Random(f"{clip_id}:{target.index}:{seed}").choice(close)
    return MaskTarget(clip_id, i, t.word, t.start, t.end, "control")


def _word_tokens(words: Sequence[str], normalize: Callable[[str], str]) -> list[list[str]]:
    """Normalize word by word, so each word's tokens keep their place.

    Normalizing a whole sentence merges numbers across words ("forty
    million" -> "40000000"), which would hide where the target went; word by
    word, the same function maps "forty" and "40" to the same token on both
    sides.  Digits are then split from symbols glued to them ("50%" -> "50",
    "%"): a hypothesis "50%" must recover a spoken "fifty" followed by
    "percent", and word by word only the whole phrase would normalize to "50%".
    """
    return [[piece for tok in normalize(w).split() for piece in _DIGITS_APART.findall(tok)] for w in words]


_DIGITS_APART = re.compile(r"\d+(?:[.,]\d+)*|\D+")


def is_recovered(
    words: Sequence[str], target_index: int, hypothesis: str, normalize: Callable[[str], str]
) -> bool:
    """Does the hypothesis contain the hidden word at the masked place?

    Reference and hypothesis are normalized word by word, the hypothesis is
    aligned to the reference, and the target counts as recovered only if
    every one of its tokens is matched exactly at its own position.
    """
    per_word = _word_tokens(words, normalize)
    if not per_word[target_index]:
        return False
    lo = sum(len(t) for t in per_word[:target_index])
    hi = lo + len(per_word[target_index])
    ref = [tok for toks in per_word for tok in toks]
    hyp = [tok for toks in _word_tokens(hypothesis.split(), normalize) for tok in toks]
    matched = {i for kind, i, _ in align(ref, hyp).token_pairs() if kind == "equal" and lo <= i < hi}
    return len(matched) == hi - lo


@dataclass(frozen=True)
class RecoveryRate:
    n: int
    recovered: int
    rate: float
    low: float
    high: float


def recovery_rate(outcomes: Iterable[bool]) -> RecoveryRate:
    values = list(outcomes)
    k, n = sum(values), len(values)
    low, high = wilson_interval(k, n)
    return RecoveryRate(n, k, k / n if n else float("nan"), low, high)
