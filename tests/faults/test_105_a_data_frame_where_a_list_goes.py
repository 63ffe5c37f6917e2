"""Case 105: a pandas DataFrame given where a list goes, from Python.

Iterated, a DataFrame gives its column names, not its rows.
``corpus_wer(df[["text"]], df[["pred_text"]])`` (one column selected with
double brackets, a frame) scored the word "text" against "pred_text": WER
1.0 whatever the transcripts, no error; a frame of prediction rows given to
``load_predictions`` / ``accept_ref_from_predictions`` was read as files
named after its columns (``audio_filepath: no such file or directory``); a
frame as a panel was a panel of its column labels.  Now each is one line
naming the argument and what to pass instead; one column (a Series) still
goes.
"""

from __future__ import annotations

import pytest

from asraudit import InputError, accept_ref_from_predictions, corpus_cer, corpus_wer, load_predictions

from conftest import write_preds

pd = pytest.importorskip("pandas")

ROWS = [("c0", "the cat sat", "the cat sat"), ("c1", "on the mat", "on the mat")]


@pytest.mark.parametrize("score", [corpus_wer, corpus_cer])
def test_a_frame_of_one_column_is_refused_not_scored_by_its_column_names(score):
    df = pd.DataFrame({"text": [r for _, r, _ in ROWS], "pred_text": [h for _, _, h in ROWS]})
    assert score(df["text"], df["pred_text"], n_boot=0).rate == 0.0  # a Series is a column's texts
    with pytest.raises(InputError) as err:
        score(df[["text"]], df[["pred_text"]], n_boot=0)
    assert str(err.value) == ("refs is a list of texts, one per clip, got a DataFrame (iterated, it gives its "
                              "column names: they would be scored, not its texts): pass one column, df['text'], "
                              "not df[['text']]")
    with pytest.raises(InputError, match=r"^hyps is a list of texts, one per clip, got a DataFrame"):
        score(df["text"], df[["pred_text"]], n_boot=0)


def test_a_frame_of_prediction_rows_is_refused_as_paths_and_its_advice_works(tmp_path):
    for m in ("m1", "m2", "m3"):
        write_preds(tmp_path / f"{m}.jsonl", ROWS)
    df = pd.read_json(tmp_path / "m1.jsonl", lines=True)
    message = ("paths is a path or a list of paths (str or pathlib.Path), got a DataFrame (iterated, its column "
               "names would be read as files): write each model's rows to a file named after it "
               "(df.to_json('MODEL.jsonl', orient='records', lines=True)) and pass the files")
    for call in (lambda: load_predictions(df), lambda: accept_ref_from_predictions(df, ["m1", "m2", "m3"])):
        with pytest.raises(InputError) as err:
            call()
        assert str(err.value) == message
    out = tmp_path / "written"
    out.mkdir()
    df.to_json(out / "m1.jsonl", orient="records", lines=True)  # the advice, followed
    pset = load_predictions(out)
    assert pset.model_names == ["m1"] and pset.models["m1"].rows["c1"].hypothesis == "on the mat"


def test_a_frame_as_a_panel_is_refused_not_read_as_its_column_labels(tmp_path):
    for m in ("m1", "m2", "m3"):
        write_preds(tmp_path / f"{m}.jsonl", ROWS)
    preds = load_predictions(tmp_path)
    panel = pd.DataFrame({"m1": [1], "m2": [1], "m3": [1]})
    with pytest.raises(InputError) as err:
        accept_ref_from_predictions(preds, panel)
    assert str(err.value) == ("the panel is a list of model names, got a DataFrame (iterated, it gives its column "
                              "names, not its rows): pass a list, or one column's values (df[COLUMN].tolist())")
    assert accept_ref_from_predictions(preds, pd.Series(["m1", "m2", "m3"])).mining.panel == ["m1", "m2", "m3"]
