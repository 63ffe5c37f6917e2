"""Switch rate and rendering agreement on hand-made clips whose truth is known."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from asraudit.probes.families import load_catalogue
from asraudit.probes.occurrences import pair_occurrences, scan
from asraudit.probes.rendering import agreement, collect, pooled_switch_rates, switch_rates

NAMES = ["Smith", "Jones", "Duff", "Salvini", "Barnier", "Tajani", "Verhofstadt", "Weber"]


@pytest.fixture(scope="module")
def catalogue():
    return load_catalogue("en")


def _clip(arm: str, name: str) -> str:
    return f"Thank you, {arm} {name}, for the answer."


def _corpus(n_clips: int, written_by, seed: int = 0) -> dict[str, dict[str, SimpleNamespace]]:
    """Half the references write "Mr", half "Mister"; ``written_by(ref_arm, rng)`` is the model's arm."""
    rng = random.Random(seed)
    rows = {}
    for i in range(n_clips):
        ref_arm = "Mr" if i % 2 == 0 else "Mister"
        name = NAMES[i % len(NAMES)]
        rows[f"clip{i}"] = SimpleNamespace(reference=_clip(ref_arm, name),
                                           hypothesis=_clip(written_by(ref_arm, rng), name).lower())
    return {"model": rows}


def _only(results, group):
    [r] = [r for r in results if r.group == group]
    return r


def test_fixed_habit_model_scores_switch_zero_whichever_habit_it_has(catalogue):
    for habit in ("Mr.", "Mister"):
        audit = collect(catalogue, _corpus(200, lambda ref, rng, h=habit: h))
        s = _only(switch_rates(audit), "mister")
        assert s.measurable
        assert s.switch == 0.0
        # The arm it never writes is the limiting one; the other is perfect.
        hits = {a.label: (a.hits, a.clips) for a in s.arms}
        writes = "Mr" if habit == "Mr." else "Mister"
        other = "Mister" if writes == "Mr" else "Mr"
        assert hits[writes] == (100, 100) and hits[other] == (0, 100)
        assert s.limiting.label == other
        low, high = s.interval
        assert low == 0.0 and high < 0.05


def test_coin_flip_model_scores_switch_near_one_half(catalogue):
    audit = collect(catalogue, _corpus(4000, lambda ref, rng: rng.choice(["Mr", "Mister"]), seed=7))
    s = _only(switch_rates(audit), "mister")
    assert s.chance == 0.5
    assert all(a.rate == pytest.approx(0.5, abs=0.03) for a in s.arms)
    # The minimum of two fair coins sits at or just under one half.
    assert 0.46 <= s.switch <= 0.51
    low, high = s.interval
    assert 0.44 < low and high < 0.54  # clearly off both 0 (a habit) and 1 (tracking)


def test_reference_tracking_model_scores_switch_one(catalogue):
    audit = collect(catalogue, _corpus(200, lambda ref, rng: ref))
    s = _only(switch_rates(audit), "mister")
    assert s.switch == 1.0
    assert s.interval[0] > 0.95


def test_switch_is_the_minimum_across_arms_not_the_mean(catalogue):
    # Follows the reference on 90% of "Mr" clips but only 20% of "Mister" clips.
    def biased(ref, rng):
        follow = rng.random() < (0.9 if ref == "Mr" else 0.2)
        return ref if follow else ("Mister" if ref == "Mr" else "Mr")

    audit = collect(catalogue, _corpus(2000, biased, seed=3))
    s = _only(switch_rates(audit), "mister")
    rates = {a.label: a.rate for a in s.arms}
    assert rates["Mr"] == pytest.approx(0.9, abs=0.04) and rates["Mister"] == pytest.approx(0.2, abs=0.04)
    assert s.switch == rates["Mister"]
    assert s.switch < 0.3  # the mean would be ~0.55, above chance


def test_a_corpus_that_uses_one_arm_is_not_measurable_and_names_the_arm(catalogue):
    rows = {f"c{i}": SimpleNamespace(reference=_clip("Mr", "Smith"), hypothesis=_clip("Mr.", "Smith"))
            for i in range(30)}
    s = _only(switch_rates(collect(catalogue, {"m": rows})), "mister")
    assert not s.measurable
    assert "only one arm" in s.reason() and "Mr, 30 clips" in s.reason()
    assert s.switch != s.switch  # NaN, never a made-up number


def test_an_arm_below_the_minimum_count_cannot_make_a_family_measurable(catalogue):
    audit = collect(catalogue, _corpus(8, lambda ref, rng: ref))  # 4 clips per arm
    s = _only(switch_rates(audit, min_per_arm=5), "mister")
    assert not s.measurable and "fewer than two arms with >= 5 clips" in s.reason()
    assert _only(switch_rates(audit, min_per_arm=4), "mister").measurable


def test_a_clip_counts_once_per_arm_judged_at_its_first_occurrence(catalogue):
    ref = "Mr Smith met Mr Jones and Mr Weber."
    rows = {"c": SimpleNamespace(reference=ref, hypothesis="Mr Smith met Mister Jones and Mister Weber.")}
    s = _only(switch_rates(collect(catalogue, {"m": rows}), min_per_arm=1), "mister")
    [mr] = [a for a in s.arms if a.label == "Mr"]
    assert (mr.clips, mr.hits) == (1, 1)


def test_missed_occurrences_count_as_misses_for_switch_but_are_ignored_by_agreement(catalogue):
    rows = {
        "a": SimpleNamespace(reference="Thank you, Mr Smith.", hypothesis="Thank you, Mr Smith."),
        "b": SimpleNamespace(reference="Thank you, Mr Jones.", hypothesis="Thank you, Jones."),
    }
    audit = collect(catalogue, {"m": rows})
    s = _only(switch_rates(audit, min_per_arm=1), "mister")
    [mr] = [a for a in s.arms if a.label == "Mr"]
    assert (mr.clips, mr.hits, mr.rendered) == (2, 1, 1)
    a = _only([r for r in agreement(audit, n_boot=50)], "honorific")
    assert (a.agree, a.rendered, a.missed, a.outside) == (1, 1, 1, 0)
    assert a.rate == 1.0


def test_agreement_ignores_occurrences_outside_the_family(catalogue):
    rows = {
        "same": SimpleNamespace(reference="I agree with Mr Smith.", hypothesis="I agree with Mister Smith."),
        "other_word": SimpleNamespace(reference="I agree with Mr Jones.", hypothesis="I agree with Mrs Jones."),
        "other_number": SimpleNamespace(reference="We have 21 members.", hypothesis="We have twenty-two members."),
        "same_number": SimpleNamespace(reference="We have 21 members.", hypothesis="We have 21 members."),
        "dropped": SimpleNamespace(reference="Ask Mr Weber now.", hypothesis="Ask Weber now."),
    }
    audit = collect(catalogue, {"m": rows})
    by = {r.group: r for r in agreement(audit, n_boot=50)}
    assert (by["honorific"].agree, by["honorific"].rendered) == (0, 1)  # only "same" counts
    assert (by["honorific"].outside, by["honorific"].missed) == (1, 1)
    assert (by["number"].agree, by["number"].rendered, by["number"].outside) == (1, 1, 1)
    assert (by["all"].agree, by["all"].rendered) == (1, 2)


@pytest.mark.parametrize("ref, hyp, ref_text, hyp_text", [
    ("Is there any one here?", "Is there anyone here?", "any one", "anyone"),
    ("She turned twenty-one today.", "She turned 21 today.", "twenty-one", "21"),
    ("Up by 5 per cent this year.", "Up by 5% this year.", "per cent", "%"),
    ("It fell in nineteen ninety nine.", "It fell in 1999.", "nineteen ninety nine", "1999"),
    ("A €20 million fund.", "A 20 million euros fund.", "€20 million", "20 million euros"),
    ("The T. V. was on.", "The TV was on.", "T. V.", "TV"),
])
def test_arms_with_different_token_counts_pair_at_the_aligned_place(catalogue, ref, hyp, ref_text, hyp_text):
    [occ] = pair_occurrences("c", scan(catalogue, ref), scan(catalogue, hyp))
    assert occ.status == "disagree"
    assert ref[slice(*occ.ref_span)] == ref_text
    assert hyp[slice(*occ.hyp_span)] == hyp_text


def test_same_words_in_another_family_member_are_outside_not_disagreement(catalogue):
    [occ] = pair_occurrences("c", scan(catalogue, "We need 21 votes."), scan(catalogue, "We need twenty-two votes."))
    assert occ.status == "outside" and occ.hyp_arm is None
    assert "twenty-two" == "We need twenty-two votes."[slice(*occ.hyp_span)]


def test_number_words_inside_longer_numbers_are_not_occurrences(catalogue):
    cardinal = catalogue.family("cardinal_11_99")
    assert cardinal.find("one hundred and twenty-one people") == []
    assert cardinal.find("nineteen ninety-nine") == []
    assert cardinal.find("21.5 per cent, 10:30, 1,021") == []
    [(start, end, arm, key)] = catalogue.family("year").find("in nineteen ninety-nine")
    assert (arm, key) == (1, "1999")
    [(_, _, arm, key)] = cardinal.find("twenty-one million")
    assert (arm, key) == (1, "21")


def test_pooled_switch_combines_families_by_arm_position(catalogue):
    # Each family alone has 3 clips per arm (below 5); pooled, 6 per position.
    rows = {}
    for i, (abbr, full) in enumerate([("Mr", "Mister"), ("Dr", "Doctor")]):
        for k in range(3):
            rows[f"{abbr}{k}"] = SimpleNamespace(reference=f"Ask {abbr} Smith.", hypothesis=f"Ask {abbr} Smith.")
            rows[f"{full}{k}"] = SimpleNamespace(reference=f"Ask {full} Smith.", hypothesis=f"Ask {abbr} Smith.")
    audit = collect(catalogue, {"m": rows})
    assert not any(r.measurable for r in switch_rates(audit))
    pooled = _only(pooled_switch_rates(audit), "honorific")
    assert pooled.measurable
    assert {a.label: (a.hits, a.clips) for a in pooled.arms} == {"abbreviated": (6, 6), "spelled out": (0, 6)}
    assert pooled.switch == 0.0 and pooled.limiting.label == "spelled out"


def test_agreement_groups_by_class_and_reports_all(catalogue):
    rows = {
        "a": SimpleNamespace(reference="The colour of the EU flag.", hypothesis="The color of the EU flag."),
        "b": SimpleNamespace(reference="Ask Mr Smith.", hypothesis="Ask Mr. Smith."),
    }
    by = {r.group: r for r in agreement(collect(catalogue, {"m": rows}), n_boot=50)}
    assert set(by) == {"honorific", "initialism", "spelling", "all"}
    assert by["spelling"].rate == 0.0 and by["honorific"].rate == 1.0 and by["initialism"].rate == 1.0
    assert by["all"].agree == 2 and by["all"].rendered == 3
