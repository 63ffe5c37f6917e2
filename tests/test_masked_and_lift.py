"""Masked-entity recovery scoring and audio lift arithmetic."""

from __future__ import annotations

import math

import pytest

from asraudit.models.base import TokenScores
from asraudit.probes.lift import audio_lift, locate_span, span_chars, span_token_indices, summarize_lift
from asraudit.probes.masked import (
    WordTiming,
    control_target,
    is_number,
    is_recovered,
    recovery_rate,
    select_targets,
)
from asraudit.text.normalize import get_normalizer


def _timed(text: str, step: float = 0.4) -> list[WordTiming]:
    return [WordTiming(w, i * step, i * step + step * 0.8) for i, w in enumerate(text.split())]


def test_numbers_are_selected_and_trivial_ones_skipped():
    timings = _timed("One of the 27 Member States spent twenty one million, and 27 more said seventeen, 40 percent")
    chosen = [t.word for t in select_targets("c", timings)]
    # "One of" is an idiom, "27" repeats in the clip, "twenty"/"one"/"million" are parts of one
    # spelled-out number; digits stay targets even next to a number word ("40 percent").
    assert chosen == ["seventeen,", "40"]
    everything = [t.word for t in select_targets("c", timings, skip_trivial=False)]
    assert "27" in everything and "One" in everything


def test_names_and_listed_targets():
    timings = _timed("Yesterday Mr Juncker met Angela Merkel in Brussels")
    assert [t.word for t in select_targets("c", timings, kind="names")] == ["Juncker", "Angela", "Merkel", "Brussels"]
    assert [t.word for t in select_targets("c", timings, kind="listed", words=["brussels"])] == ["Brussels"]


def test_is_number_covers_digits_words_and_hyphenated_numbers():
    assert is_number("1,500") and is_number("twenty-five") and is_number("3rd") and is_number("per") is False


def test_recovered_only_when_the_hidden_word_is_at_the_masked_place():
    n = get_normalizer("whisper")
    words = "we spent 40 million euros".split()
    assert is_recovered(words, 2, "We spent forty million euros.", n)
    assert not is_recovered(words, 2, "We spent million euros.", n)
    assert not is_recovered(words, 2, "We spent 14 million euros.", n)
    # The number appearing elsewhere is not recovery at the masked place.
    assert not is_recovered(words, 2, "40 we spent million euros", n)


def test_control_is_a_non_number_word_of_similar_duration():
    timings = [WordTiming("the", 0.0, 0.1), WordTiming("budget", 0.2, 0.6), WordTiming("27", 0.7, 1.1),
               WordTiming("rose", 1.2, 1.5)]
    target = select_targets("c", timings)[0]
    control = control_target("c", timings, target)
    assert control.word == "budget" and control.kind == "control"
    assert control_target("c", timings, target) == control  # deterministic


def test_recovery_rate_has_a_wilson_interval():
    r = recovery_rate([True, False, False, False])
    assert r.rate == 0.25 and r.n == 4 and 0 < r.low < 0.25 < r.high < 1


def _scores(text, tokens, logprobs):
    offsets, pos = [], 0
    for tok in tokens:
        start = text.index(tok, pos)
        offsets.append((start, start + len(tok)))
        pos = start + len(tok)
    return TokenScores(text, tuple(tokens), tuple(logprobs), offsets=tuple(offsets))


def test_span_tokens_ignore_a_neighbour_that_only_touches_with_its_space():
    s = _scores("Madam President, thank you", ["Madam", " President", ",", " thank", " you"], [-1, -2, -3, -4, -5])
    start, end = locate_span(s.text, "thank you")
    assert span_token_indices(s, start, end) == [3, 4]
    start, end = locate_span(s.text, "Madam President")
    assert span_token_indices(s, start, end) == [0, 1]


def test_lift_is_the_per_character_log_likelihood_gain_from_audio():
    text = "Madam President, thank you"
    with_audio = _scores(text, ["Madam", " President", ",", " thank", " you"], [-0.1, -0.2, -0.3, -0.5, -0.5])
    silent = _scores(text, ["Madam", " President", ",", " thank", " you"], [-3.0, -4.0, -0.3, -2.0, -2.0])
    start, end = locate_span(text, "thank you")
    assert span_chars(text, start, end) == 8
    assert audio_lift(with_audio, silent, start, end) == pytest.approx((-1.0 - -4.0) / 8)
    # A span the prior writes as easily without audio has zero lift.
    assert audio_lift(with_audio, with_audio, 0, 5) == 0


def test_lift_refuses_different_texts_and_empty_spans():
    a = _scores("a b", ["a", " b"], [-1, -1])
    b = _scores("a c", ["a", " c"], [-1, -1])
    with pytest.raises(ValueError, match="texts differ"):
        audio_lift(a, b, 0, 1)
    with pytest.raises(ValueError):
        audio_lift(a, a, 1, 2)


def test_lift_summary_mean_and_interval():
    s = summarize_lift([0.5, 0.7, 0.6, float("nan"), -0.1], n_boot=200)
    assert s.n == 4 and s.mean == pytest.approx(0.425) and s.share_positive == 0.75
    assert s.interval.low <= s.mean <= s.interval.high
    assert math.isnan(summarize_lift([]).mean)
