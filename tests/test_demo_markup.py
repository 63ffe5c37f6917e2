"""parliament-mini's sentence markup: spoken text, record and planted truth agree."""

from __future__ import annotations

from collections import Counter

from asraudit.demo.build_benchmark import SENTENCES, clip_plan
from asraudit.demo.markup import load_sentences, parse_sentence
from asraudit.demo.voices import VOICES


def test_markup_yields_spoken_text_record_and_truth():
    s = parse_sentence("x", "train", "{+Madam President, +}{-We, -}we cut [number:twenty|20] [percent:percent|per cent] {~today|now~}.")
    assert s.spoken == "We, we cut twenty percent today."
    assert s.record == "Madam President, we cut 20 per cent now."
    kinds = [(e.kind, e.position, e.r, e.a) for e in s.edits]
    # Positions are relative to the record: the omitted "We" follows the recorded opener.
    assert kinds == [("delete", "start", "Madam President", ""), ("insert", "middle", "", "We"),
                     ("substitute", "end", "now", "today")]
    assert [(c.family, c.said, c.recorded) for c in s.conventions] == [("number", "twenty", "20"), ("percent", "percent", "per cent")]


def test_every_planted_span_points_at_its_text_in_the_record():
    for s in load_sentences(SENTENCES):
        for e in s.edits:
            assert s.record[e.ref_start:e.ref_end] == e.r, s.id
        for c in s.conventions:
            assert s.record[c.ref_start:c.ref_end] == c.recorded, s.id
        assert "{" not in s.record + s.spoken and "[" not in s.record + s.spoken


def test_the_benchmark_has_every_edit_kind_and_both_splits():
    sentences = load_sentences(SENTENCES)
    kinds = Counter(e.kind for s in sentences for e in s.edits)
    assert kinds["delete"] >= 20 and kinds["insert"] >= 20 and kinds["substitute"] >= 5
    assert {e.position for s in sentences for e in s.edits} == {"start", "middle", "end"}
    assert Counter(s.split for s in sentences)["test"] >= 40


def test_voice_roles_decide_which_clips_exist():
    sentences = load_sentences(SENTENCES)
    plan = clip_plan(sentences)
    assert len({v.id for v in VOICES}) >= 8
    for s, v in plan:
        assert v.role == "benchmark" or (v.role, s.split) in {("control", "train"), ("fresh", "test")}
    fresh_train = [1 for s, v in plan if v.role == "fresh" and s.split == "train"]
    assert not fresh_train
