"""The leaderboard scorer: each place its normalizer or its alignment differs from asraudit's, and WER both ways."""

from __future__ import annotations

import json

import pytest

from asraudit.cli import main
from asraudit.metrics.scorers import get_scorer, merged_compound_counts
from asraudit.metrics.wer import clip_counts
from asraudit.text.normalize import get_normalizer

pytest.importorskip("kaldialign")

WHISPER = get_normalizer("whisper")
LEADERBOARD = get_normalizer("leaderboard")


@pytest.mark.parametrize("raw, whisper, leaderboard", [
    # fillers: Whisper drops six literal words, the leaderboard whole families with any elongation
    ("Ummm, hmmm, erm, yes", "ummm hmmm erm yes", "yes"),
    ("uh I see", "i see", "i see"),
    ("ah-ha I see", "ah ha i see", "i see"),
    # acronyms: dotted or spaced single letters become one token
    ("The U.S.A. and the B B C", "the u s a and the b b c", "the usa and the bbc"),
    ("the 5 G network", "the 5 g network", "the 5g network"),
    ("a big cat", "a big cat", "a big cat"),  # a lone "a" is a word, not an acronym
    # "'s" is "is" only after a pronoun; after a name it is a possessive
    ("John's car", "john is car", "john s car"),
    ("It's here", "it is here", "it is here"),
    # a trailing ellipsis leaves no "." token
    ("wait... what...", "wait what .", "wait what"),
    # clock times
    ("half past four", "half past 4", "4 30"),
    ("quarter to five", "quarter to 5", "4 45"),
    ("at 4:00", "at 4 0", "at 4"),
    # spaced compounds and the extra spellings
    ("an e-mail via wi-fi", "an e mail via wi fi", "an email via wifi"),
    ("ok, all right", "ok all right", "okay alright"),
    # shared with Whisper: numbers, British spellings, titles
    ("Mr. Smith paid twenty dollars for the colour", "mister smith paid $20 for the color",
     "mister smith paid $20 for the color"),
])
def test_each_difference_of_the_leaderboard_normalizer(raw, whisper, leaderboard):
    assert WHISPER(raw) == whisper
    assert LEADERBOARD(raw) == leaderboard


@pytest.mark.parametrize("raw, whisper, leaderboard", [
    # name spelling variants fold to one spelling (the leaderboard's english_name_normalizer)
    ("Stephen met Jon MacDonald", "stephen met jon macdonald", "steven met john mcdonald"),
    ("Phillip, Karl and Lewis", "phillip karl and lewis", "philip carl and louis"),
    ("Mohamed and Muhammad", "mohamed and muhammad", "mohammed and mohammed"),
    # one step only: "kristen" becomes "kristin", which stays
    ("Kristen and Kristin", "kristen and kristin", "kristin and kristin"),
    # the spelling entries the leaderboard corrected in Whisper's table
    ("the archaeology of it", "the archeology</span> of it", "the archeology of it"),
    ("a cancellation", "a cancellation", "a cancelation"),
    ("a cancelation", "a cancellation", "a cancelation"),
    ("the flyer was pummelled", "the flyer was pummel", "the flier was pummeled"),
    ("a travelogue", "a travelogue", "a travelog"),
])
def test_the_leaderboard_tables_names_and_corrected_spellings(raw, whisper, leaderboard):
    assert WHISPER(raw) == whisper
    assert LEADERBOARD(raw) == leaderboard


@pytest.mark.parametrize("raw, whisper, leaderboard", [
    # "oh" is the interjection unless the digits go on after it
    ("Oh my god", "0 my god", "oh my god"),
    ("oh, oh", "00", "oh oh"),
    ("Room oh five", "room 05", "room oh 5"),     # one digit after it and no number before: a word
    ("one point oh", "one.0", "one oh"),          # the pending "1." is written before the word
    ("plus oh my", "+0 my", "+oh my"),            # a sign before it is kept, as the leaderboard's reader does
    # inside a run of digits it is still a zero
    ("four oh one", "401", "401"),
    ("Oh seven nine eight", "0798", "0798"),
    ("nineteen oh five", "1905", "1905"),
    ("double oh seven", "007", "007"),
])
def test_oh_is_a_zero_only_inside_a_run_of_digits(raw, whisper, leaderboard):
    assert WHISPER(raw) == whisper
    assert LEADERBOARD(raw) == leaderboard


def test_without_oh_the_number_reader_is_whispers():
    import random

    from whisper_normalizer.english import EnglishNumberNormalizer

    from asraudit.text.leaderboard_english import LeaderboardNumbers

    words = ["o", "zero", "one", "five", "eleven", "twenty", "hundred", "thousand", "and", "point", "double",
             "minus", "dollars", "cents", "per", "cent", "first", "twentieth", "room", "12", "3.5", "$5", "a"]
    rng = random.Random(18)
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 7))) for _ in range(3000)]
    whisper, leaderboard = EnglishNumberNormalizer(), LeaderboardNumbers()
    assert [leaderboard(t) for t in texts] == [whisper(t) for t in texts]


def test_a_name_variant_is_no_error_under_the_leaderboard_scorer():
    s = get_scorer("leaderboard")
    ref, hyp = s.normalize("Stephen Smith met Jon").split(), s.normalize("Steven Smith met John").split()
    assert s.counts(ref, hyp).errors == 0
    w = get_scorer("asraudit")
    assert w.counts(w.normalize("Stephen Smith met Jon").split(), w.normalize("Steven Smith met John").split()).errors == 2


def test_merge_compounds_makes_a_split_compound_no_error_either_way():
    ref, hyp = "the white paper is here".split(), "the whitepaper is here".split()
    plain = clip_counts(ref, hyp)
    assert (plain.substitutions, plain.deletions, plain.insertions) == (1, 1, 0)
    for r, h in ((ref, hyp), (hyp, ref)):
        merged = merged_compound_counts(r, h)
        assert merged.errors == 0 and merged.ref_words == len(r)
    # a real error next to a compound still counts
    assert merged_compound_counts(ref, "a whitepaper is here".split()).errors == 1


def test_the_scorer_picks_its_normalizer_unless_one_is_named():
    assert get_scorer("asraudit").normalizer == "whisper"
    assert get_scorer("leaderboard").normalizer == "leaderboard"
    assert get_scorer("leaderboard", "whisper").provenance() == {"scorer": "leaderboard", "normalizer": "whisper"}


def test_wer_both_ways_and_the_provenance_in_the_json(tmp_path, capsys):
    f = tmp_path / "m.jsonl"
    f.write_text(
        '{"audio_filepath": "a", "text": "The white paper, uh, from the U.S.A.", "pred_text": "the whitepaper ummm from the usa"}\n'
        '{"audio_filepath": "b", "text": "It is half past four.", "pred_text": "it is 4:30"}\n', encoding="utf-8")
    scores = {}
    for scorer in ("asraudit", "leaderboard"):
        out = tmp_path / f"{scorer}.json"
        assert main(["wer", "--preds", str(f), "--scorer", scorer, "--json", str(out), "--bootstrap", "20"]) == 0
        data = json.loads(out.read_text())
        assert data["scorer"] == scorer
        assert data["normalizer"] == {"asraudit": "whisper", "leaderboard": "leaderboard"}[scorer]
        scores[scorer] = data["models"]["m"]
    assert "(leaderboard scorer, leaderboard normalizer" in capsys.readouterr().out
    # asraudit: ref "the white paper from the u s a" (8) vs "the whitepaper ummm from the usa": white->whitepaper,
    # paper->ummm, u->usa, s, a deleted = 5 errors; ref "it is half past 4" (5) vs "it is 4 30": 3 errors.
    assert (scores["asraudit"]["ref_words"], scores["asraudit"]["wer"]) == (13, pytest.approx(8 / 13))
    # leaderboard: "the white paper from the usa" (6) matches exactly; "it is 4 30" both sides.
    assert (scores["leaderboard"]["ref_words"], scores["leaderboard"]["wer"]) == (10, 0.0)


def test_the_parallel_reader_counts_with_the_scorers_alignment(tmp_path):
    from asraudit.metrics.model_wer import BoundedCache, stream_file

    f = tmp_path / "m.jsonl"
    f.write_text("".join(json.dumps({"audio_filepath": f"c{i}", "text": "the white paper is here, uh",
                                     "pred_text": "the whitepaper is hear"}) + "\n" for i in range(40)),
                 encoding="utf-8")
    s = get_scorer("leaderboard")
    one = stream_file(f, BoundedCache(s.normalize), counts=s.counts, workers=1)
    many = stream_file(f, BoundedCache(s.normalize), counts=s.counts, workers=2, min_parallel_bytes=0, chunk_bytes=256)
    assert (one.counts == many.counts).all() and int(one.counts[:, :3].sum()) == 40  # "hear": one error a clip
