"""Case 104: a hypothesis holding a number of more digits than Python reads (a model caught in a loop of digits).

``int`` reads at most 4,300 digits (``sys.get_int_max_str_digits``).  On a
word of more, the Whisper normalizer's reference implementations fail (the
port asserts, transformers' raises ``ValueError: Converting the fraction
failed``), and asraudit's did the same: ``wer`` stopped with an
``AssertionError`` traceback on one hypothesis, and so did the leaderboard
normalizer.  Such a word is now left as written (what either would print had
it a value), and the words around it are read as before.  Below the limit
the output is unchanged (the parity tests cover it).
"""

from __future__ import annotations

import json

import pytest

from asraudit.text.normalize import NORMALIZERS, get_normalizer

LOOP = "1" * 5000


@pytest.mark.parametrize("name", NORMALIZERS)
def test_every_normalizer_writes_the_word_as_it_is(name):
    normalize = get_normalizer(name)
    assert LOOP in normalize(f"the {LOOP} end")
    assert normalize(f"{LOOP} twenty five").split()[0] == LOOP


@pytest.mark.parametrize("name", ["whisper", "leaderboard"])
def test_the_words_around_it_are_read_as_numbers_as_before(name):
    normalize = get_normalizer(name)
    assert normalize(f"twenty five {LOOP} seven") == f"25 {LOOP} 7"


def test_wer_scores_a_model_that_looped_on_digits(tmp_path, cli):
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps({"audio_filepath": "c0", "text": "the number is one", "pred_text":
                                f"the number is {LOOP}"}) + "\n", encoding="utf-8")
    for scorer in ("asraudit", "leaderboard"):
        if scorer == "leaderboard":
            pytest.importorskip("kaldialign")
        ran = cli("wer", "--preds", path, "--scorer", scorer, "--json", tmp_path / f"{scorer}.json")
        assert ran.code == 0, ran.err
        assert json.loads((tmp_path / f"{scorer}.json").read_text(encoding="utf-8"))["models"]["m"]["wer"] == 0.25
