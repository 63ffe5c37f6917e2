"""Case 234: a ``[[mechanism]]`` steer entry's positives that ``pair_by`` gives no negative partner.

``clip_pairs`` pairs the positive and negative clips sharing a ``pair_by``
value.  A positive whose sentence has no negative clip was dropped without a
word, so the direction was learned from fewer pairs than the user thought;
and the values were compared as printed: every clip whose sentence was
missing (pandas writes NaN) was in one group "nan", so two clips of
different sentences were paired and their difference learned as the
contrast, and a sentence ``1.0`` (a float column with a gap) missed its
partner ``1``.  Now the values are read as group values (``group_label``:
NaN is no value, ``1.0`` is ``1``), and the plan keeps the positives left
without a partner, which the stage names in one line of the audit's notes
(a plan with no pair at all is refused, as before).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from asraudit.audit.mechanism import plan_steer  # noqa: E402
from asraudit.audit.spec_mechanism import parse_mechanism  # noqa: E402
from asraudit.audit.spec_reader import SpecError  # noqa: E402
from asraudit.data.corpus import Clip  # noqa: E402

ENTRY = {"type": "steer", "model": "whisper-tiny.en-organism", "layer": 3,
         "positive": {"field": "voice_role", "value": "benchmark"},
         "negative": {"field": "voice_role", "value": "fresh"}, "pair_by": "sentence", "holdout": 0,
         "ablate": {"field": "voice_role", "value": "benchmark"}}


def clip(cid, sentence, role):
    return Clip(cid, np.zeros(16000, np.float32), "x", metadata={"sentence": sentence, "voice_role": role})


def spec():
    (entry,) = parse_mechanism([ENTRY], "spec.toml", Path("."))
    return entry


def test_positives_without_a_partner_are_named_in_one_line():
    clips = [clip(f"s{i}-{r}", f"s{i}", r) for i in range(3) for r in ("benchmark", "fresh")]
    clips += [clip(f"lone{i}", f"t{i}", "benchmark") for i in range(4)]
    plan = plan_steer(spec(), clips)
    assert [p.label for p in plan.learn] == ["s0-benchmark vs s0-fresh", "s1-benchmark vs s1-fresh",
                                            "s2-benchmark vs s2-fresh"]
    assert plan.unpaired_note() == (
        "mechanism steer #1: 4 of 7 positive clip(s) (voice_role benchmark) have no negative (voice_role fresh) of "
        "the same sentence and are not learned from ('lone0', 'lone1', 'lone2', ...); the direction is learned from "
        "3 pair(s)")
    every = plan_steer(spec(), clips[:6])
    assert every.unpaired_note() is None and len(every.learn) == 3  # each positive paired: no line


def test_missing_sentences_do_not_pair_and_a_float_sentence_meets_its_int():
    nan = float("nan")
    clips = [clip("a", 1, "benchmark"), clip("b", 1.0, "fresh"),
             clip("c", nan, "benchmark"), clip("d", nan, "fresh"), clip("e", None, "benchmark"), clip("f", "", "fresh")]
    plan = plan_steer(spec(), clips)
    assert [p.label for p in plan.learn] == ["a vs b"]  # not "c vs d": two clips whose sentences nobody knows
    assert "2 of 3 positive clip(s)" in plan.unpaired_note() and "('c', 'e')" in plan.unpaired_note()
    with pytest.raises(SpecError, match="no learning pairs: no sentence value has both a positive and a negative"):
        plan_steer(spec(), clips[2:])  # only clips without a sentence: nothing is left to learn from
