"""Mining precision/recall against planted truth."""

from __future__ import annotations

from dataclasses import dataclass


from asraudit.probes.refdis_truth import PlantedError, audio_corrected, planted_from_truth, score_against_truth
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


def test_audio_correction_adds_unsaid_record_words_and_drops_unsaid_insertions():
    n = get_normalizer("whisper")
    record = {"c1": "I want to thank Mr Lange for his patience.", "c2": "we cannot accept cuts.",
              "c3": "I firmly oppose the position."}
    spoken = {"c1": "I want to thank Mister Lange for his patience.", "c2": "We, we cannot accept cuts.",
              "c3": "I strongly oppose the position."}
    planted = [PlantedError("c2", "insert", "", "We,", 0, 0), PlantedError("c3", "substitute", "firmly", "strongly", 2, 8)]
    unsaid = {"c1": {5: "mispronounced", 7: "skipped"},  # Lange, his
              "c2": {0: "skipped"},                         # the spoken-only "We,"
              "c3": {1: "mispronounced"}}                   # "strongly", inside the planted substitution
    fixed = audio_corrected(planted, {c: (record[c], spoken[c]) for c in record}, unsaid)
    assert [(p.clip_id, p.kind, p.r, p.origin) for p in fixed.added] == [
        ("c1", "substitute", "Lange", "audio"), ("c1", "delete", "his", "audio")]
    assert fixed.dropped == [planted[0]]
    assert planted[1] in fixed.errors and planted[0] not in fixed.errors
    mined = [Mined("c1", "substitute", "lange", "longe"), Mined("c1", "insert", "", "his"),
             Mined("c3", "substitute", "firmly", "strongly"), Mined("c2", "insert", "", "we")]
    as_written = score_against_truth(mined, planted, n)
    as_heard = score_against_truth(mined, fixed.errors, n)
    assert as_written.overall.matched == 2 and as_written.by_kind["substitute"].precision == 0.5
    # "lange" is now a correct substitution; "his" is only found by an edit that removes it from the
    # reference (an insertion does not), and the unsaid "We," no longer needs finding.
    assert as_heard.by_kind["substitute"].precision == 1.0
    assert as_heard.by_kind["delete"].recall == 0.0 and as_heard.by_kind["insert"].planted == 0
    assert as_heard.by_kind["insert"].precision == 0.0


def test_a_repeated_insertion_is_dropped_only_when_every_word_of_it_was_unsaid():
    record, spoken = "the rules remain unclear.", "The, the the rules remain unclear."
    planted = [PlantedError("c", "insert", "", "The, the", 0, 0)]
    one = audio_corrected(planted, {"c": (record, spoken)}, {"c": {1: "skipped"}})
    both = audio_corrected(planted, {"c": (record, spoken)}, {"c": {0: "skipped", 1: "mispronounced"}})
    assert one.dropped == [] and one.added == [] and both.dropped == planted
    # the third "the" faces the record's word: a record error of its own
    third = audio_corrected(planted, {"c": (record, spoken)}, {"c": {2: "mispronounced"}})
    assert [(p.r, p.kind) for p in third.added] == [("the", "substitute")] and third.dropped == []
