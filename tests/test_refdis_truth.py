"""Mining precision/recall against planted truth."""

from __future__ import annotations

from dataclasses import dataclass


from asraudit.probes.refdis_truth import PlantedError, planted_from_truth, score_against_truth
from asraudit.text.normalize import get_normalizer


@dataclass
class Mined:
    clip_id: str
    kind: str
    r: str
    a: str


def test_matching_is_per_kind_one_to_one_and_tolerates_a_word_more():
    n = get_normalizer("whisper")
    planted = [
        PlantedError("c1", "delete", "Madam President", ""),
        PlantedError("c2", "insert", "", "We, we"),
        PlantedError("c3", "substitute", "firmly", "strongly"),
        PlantedError("c4", "delete", "Thank you.", ""),
    ]
    mined = [
        Mined("c1", "delete", "madam president", ""),
        Mined("c1", "delete", "madam president", ""),  # a duplicate cannot match twice
        Mined("c2", "insert", "", "we"),
        Mined("c3", "substitute", "firmly", "strongly"),
        Mined("c5", "insert", "", "uh"),
    ]
    s = score_against_truth(mined, planted, n)
    assert s.by_kind["delete"].recall == 0.5 and s.by_kind["delete"].precision == 0.5
    assert s.by_kind["insert"].recall == 1.0 and s.by_kind["insert"].precision == 0.5
    assert s.by_kind["substitute"].recall == 1.0 and s.by_kind["substitute"].precision == 1.0
    assert s.overall.matched == 3 and len(s.missed) == 1 and len(s.spurious) == 2
    lo, hi = s.overall.recall_ci
    assert lo < 0.75 < hi


def test_kind_must_agree():
    n = get_normalizer("whisper")
    s = score_against_truth([Mined("c", "insert", "", "madam president")],
                            [PlantedError("c", "delete", "Madam President", "")], n)
    assert s.overall.matched == 0


def test_clip_filter_and_truth_loader():
    truth = {"a": {"edits": [{"kind": "delete", "r": "x", "a": ""}]}, "b": {"edits": []}}
    planted = planted_from_truth(truth)
    assert planted == [PlantedError("a", "delete", "x", "")]
    s = score_against_truth([], planted, get_normalizer("none"), clips=["b"])
    assert s.overall.planted == 0 and s.overall.recall != s.overall.recall  # NaN: nothing to find
