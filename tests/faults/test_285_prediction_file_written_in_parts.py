"""Case 285: one model's predictions written as a Parquet dataset in parts, a folder ``m6.parquet/`` holding
``part-00000.parquet``, ``part-00001.parquet`` (Spark, Dask and pyarrow's ``write_to_dataset`` write one so).
Named on its own it was read as a folder of prediction files: two models ``part-00000`` and ``part-00001``,
each scored on half the clips, exit 0; inside a folder of prediction files it was passed over like any
subfolder, so model m6 was missing from every table without a word.  Now both are refused naming the folder."""

from __future__ import annotations

import pytest

from asraudit import InputError, load_predictions
from conftest import write_preds

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")


def _preds(tmp_path):
    folder = tmp_path / "preds"
    (folder / "m6.parquet").mkdir(parents=True)
    frame = pd.DataFrame({"audio_filepath": [f"c{i}" for i in range(6)], "text": ["the cat"] * 6,
                          "pred_text": ["the cat"] * 3 + ["the bat"] * 3})
    frame[:3].to_parquet(folder / "m6.parquet" / "part-00000.parquet")
    frame[3:].to_parquet(folder / "m6.parquet" / "part-00001.parquet")
    write_preds(folder / "m7.jsonl", [("c0", "the cat", "the cat")])
    return folder


def _message(folder):
    return (f"{folder / 'm6.parquet'}: prediction file is a folder of part files (one model's rows written in "
            "parts, as Spark, Dask or pyarrow's write_to_dataset write a dataset), not one file: asraudit reads one "
            "file per model, named after it: join the parts into one file m6.parquet outside this folder (for "
            "Parquet: pandas.read_parquet(folder).to_parquet(file))")


def test_the_parts_folder_named_on_its_own_is_refused(tmp_path, cli):
    folder = _preds(tmp_path)
    ran = cli("wer", "--preds", folder / "m6.parquet", "--bootstrap", "0")
    assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {_message(folder)}"]
    assert "part-00000" not in ran.out


def test_the_parts_folder_inside_a_predictions_folder_is_refused(tmp_path):
    folder = _preds(tmp_path)
    with pytest.raises(InputError) as raised:
        load_predictions(folder)
    assert str(raised.value) == _message(folder)


def test_an_empty_folder_so_named_is_still_passed_over(tmp_path):
    folder = tmp_path / "preds"
    (folder / "old.jsonl").mkdir(parents=True)
    (folder / "notes").mkdir()
    (folder / "notes" / "m9.jsonl").write_text("")
    write_preds(folder / "m7.jsonl", [("c0", "the cat", "the cat")])
    assert load_predictions(folder).model_names == ["m7"]
