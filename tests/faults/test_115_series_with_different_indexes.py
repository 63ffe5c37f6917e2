"""Case 115: ``corpus_wer`` / ``corpus_cer`` given two pandas Series whose indexes differ.

A Series iterated gives its values in row order, so two columns of frames
sorted or filtered differently (``corpus_wer(df["text"],
df.sort_values("wer")["pred_text"])``) were paired by position: each
hypothesis met another clip's reference, and the WER was whatever that
gave (1.0 for transcripts with a WER of 0.167), with no error, where pandas
itself pairs the two by label.  Two Series with different indexes are now
refused, naming both and how to align them; two Series with one index (the
same frame, or filtered alike) and any list pair up by position as before.
"""

from __future__ import annotations

import pytest

from asraudit import InputError, corpus_cer, corpus_wer

pd = pytest.importorskip("pandas")


@pytest.fixture()
def df():
    return pd.DataFrame({"text": ["the cat", "a dog", "one two"], "pred_text": ["the cat", "a dog", "one too"]})


@pytest.mark.parametrize("score", [corpus_wer, corpus_cer])
def test_series_with_different_indexes_are_refused(df, score):
    shuffled = df.sort_values("pred_text")
    with pytest.raises(InputError) as err:
        score(df["text"], shuffled["pred_text"])
    assert str(err.value) == (
        "refs and hyps are pandas Series with different indexes (refs 0, 1, 2; hyps 1, 2, 0): the clips pair up "
        "by position, not by index, so each hypothesis would meet another row's reference: align them "
        "(hyps.reindex(refs.index)), or pass .tolist() of each if their orders already match")
    assert score(df["text"], shuffled["pred_text"].reindex(df.index)).rate == score(df["text"], df["pred_text"]).rate


def test_series_of_one_index_and_lists_pair_up_by_position(df):
    assert corpus_wer(df["text"], df["pred_text"]).rate == pytest.approx(1 / 6)
    kept = df[df.index > 0]
    assert corpus_wer(kept["text"], kept["pred_text"]).rate == pytest.approx(1 / 4)
    assert corpus_wer(df["text"], list(df["pred_text"])).rate == pytest.approx(1 / 6)
    long = pd.Series(["a b"] * 5, index=range(10, 15))
    with pytest.raises(InputError, match="different indexes .refs 10, 11, 12, ...; hyps 0, 1, 2, ...."):
        corpus_wer(long, pd.Series(["a b"] * 5))
