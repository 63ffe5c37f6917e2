"""``--compat hume``'s speed-ups change nothing but the time: each is checked against the plain path it replaces.

The text2num filter read from a string's words answers what the filter of the
joined string answers.
"""

from __future__ import annotations

import json
import random

import pytest

from asraudit.probes import refdis_compat_numbers
from asraudit.probes.refdis_compat_numbers import NUMBER_WORDS, may_hold_number, tokens_may_hold_number

_NOISE = list(".,;:!?'\"-()/&%$#*+= \t\u00a0\u2019\u2014éüßİK…0123（）中文ｓ£€")


def _texts(shared_reference_dir, rng: random.Random) -> list[str]:
    """Every raw string of three prediction files, lower-cased, and with noise (brackets, CJK, symbols)."""
    texts = []
    for path in sorted((shared_reference_dir / "predictions").glob("*.jsonl"))[:3]:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            for t in (row["text"], row["pred_text"]):
                chars = list(t)
                for _ in range(rng.randint(0, 4)):
                    chars.insert(rng.randint(0, len(chars)), rng.choice(_NOISE))
                texts += [t, t.lower(), "".join(chars)]
    words = sorted(NUMBER_WORDS) + ["fives", "twoss", "ss", "s", "hundreds", "o'clock", "1st", "twenty-one"]
    texts += [" ".join(rng.choice(words + ["cat", "(one)", "two（three）"]) for _ in range(rng.randint(0, 6)))
              for _ in range(2000)]
    return texts + ["", " ", "（applause）", "one hundred and twenty pounds", "二十 twenty"]


def test_the_number_filter_on_words_is_the_filter_on_the_joined_string(shared_reference_dir, monkeypatch):
    assert not any(w.endswith("s") for w in NUMBER_WORDS)  # the run's trailing "s" rule reads the word alone
    texts = _texts(shared_reference_dir, random.Random(0))
    for limit in (400_000, 7):  # and when the remembered words are forgotten, again and again
        monkeypatch.setattr(refdis_compat_numbers, "_WORDS_LIMIT", limit)
        monkeypatch.setattr(refdis_compat_numbers, "_known", (set(), set()))
        hits = 0
        for t in texts:
            for words in (tuple(t.split()), tuple(t.lower().split())):
                want = may_hold_number(" ".join(words))
                assert tokens_may_hold_number(words) == want, words
                hits += want
        assert hits > 100
