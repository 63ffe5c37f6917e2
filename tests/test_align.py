"""Word alignment: hand-made cases and property tests against a plain DP."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from asraudit.text.align import align, align_chars, align_words, edit_counts


def _dp_distance(a, b) -> int:
    """Textbook Levenshtein distance with unit costs (the independent reference)."""
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
        prev = cur
    return prev[-1]


def _apply(alignment) -> list[str]:
    """Rebuild the hypothesis from the reference by applying the operations."""
    out: list[str] = []
    for op in alignment.ops:
        if op.kind == "equal":
            out.extend(alignment.ref[op.ref_start:op.ref_end])
        elif op.kind in ("substitute", "insert"):
            out.extend(alignment.hyp[op.hyp_start:op.hyp_end])
    return out


def test_identical_sequences_are_one_equal_span():
    al = align_words("the cat sat", "the cat sat")
    assert [op.kind for op in al.ops] == ["equal"]
    assert al.errors == 0


def test_substitution_deletion_insertion_have_the_right_indices():
    al = align("a b c d".split(), "a x c d e".split())
    assert al.substitutions == 1 and al.deletions == 0 and al.insertions == 1
    assert ("substitute", 1, 1) in al.token_pairs()
    assert ("insert", None, 4) in al.token_pairs()


def test_deleted_reference_words_map_to_no_hypothesis_word():
    al = align("thank you madam president".split(), "madam president".split())
    assert al.deletions == 2
    assert al.ref_to_hyp() == [None, None, 0, 1]


def test_empty_sides():
    assert align([], "a b".split()).insertions == 2
    assert align("a b".split(), []).deletions == 2
    assert align([], []).ops == ()


def test_alignment_is_deterministic():
    ref, hyp = "a a b a".split(), "a b a a".split()
    assert align(ref, hyp) == align(ref, hyp)


def test_character_alignment_counts_characters():
    al = align_chars("kitten", "sitting")
    assert al.errors == 3


def test_edit_counts_agree_with_alignment():
    ref, hyp = "one two three four".split(), "one too three for five".split()
    al = align(ref, hyp)
    assert edit_counts(ref, hyp) == (al.substitutions, al.deletions, al.insertions)


tokens = st.lists(st.sampled_from(["a", "b", "c", "d", "the", "of"]), max_size=12)


@settings(max_examples=400, deadline=None)
@given(tokens, tokens)
def test_alignment_cost_is_minimal_and_reconstructs_the_hypothesis(ref, hyp):
    al = align(ref, hyp)
    assert al.errors == _dp_distance(ref, hyp)
    assert _apply(al) == hyp
    # Every reference and hypothesis token appears exactly once, in order.
    pairs = al.token_pairs()
    assert [i for _, i, _ in pairs if i is not None] == list(range(len(ref)))
    assert [j for _, _, j in pairs if j is not None] == list(range(len(hyp)))
    for kind, i, j in pairs:
        if kind == "equal":
            assert ref[i] == hyp[j]
        if kind == "substitute":
            assert ref[i] != hyp[j]
    assert edit_counts(ref, hyp) == (al.substitutions, al.deletions, al.insertions)
    assert al.hits + al.substitutions + al.deletions == len(ref)
