"""Case 255: ``asraudit preds --export DIR`` where ``DIR`` already holds the model's file in another layout.

Case 250 refused an export into a folder that ``--preds`` names.  A prediction file named on its own, as case 34
lets outputs beside such files through, was not checked: ``preds --preds p/m.csv --export p`` wrote ``p/m.jsonl``
beside ``p/m.csv``, exit 0, and every later command reading the folder ``p`` stopped on "two prediction files for
model 'm'"; so did an export into a folder holding an older ``m.parquet`` of the model."""

from __future__ import annotations

from pathlib import Path

CSV = "audio_filepath,text,pred_text\nc0,the cat,the cat\nc1,a dog,a dog\n"


def test_export_beside_the_csv_it_reads_is_refused(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("p").mkdir()
    Path("p/m.csv").write_text(CSV, encoding="utf-8")
    ran = cli("preds", "--preds", "p/m.csv", "--export", "p")
    assert (ran.code, ran.out, ran.error_lines) == (2, "", [
        "asraudit: error: p/m.jsonl: --export would write m.jsonl beside m.csv, another file of model 'm': every "
        "later read of the folder p would stop on two prediction files for model 'm'; write it to another folder"])
    assert sorted(p.name for p in Path("p").iterdir()) == ["m.csv"]
    assert cli("preds", "--preds", "p").code == 0


def test_export_into_a_folder_holding_another_layout_of_the_model_is_refused(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("p").mkdir()
    Path("p/m.csv").write_text(CSV, encoding="utf-8")
    Path("out").mkdir()
    Path("out/m.json").write_text('[{"audio_filepath": "c0", "text": "the cat", "pred_text": "the"}]', encoding="utf-8")
    ran = cli("preds", "--preds", "p", "--export", "out")
    assert ran.code == 2 and ran.error_lines == [
        "asraudit: error: out/m.jsonl: --export would write m.jsonl beside m.json, another file of model 'm': every "
        "later read of the folder out would stop on two prediction files for model 'm'; write it to another folder"]
    assert not Path("out/m.jsonl").exists()


def test_an_older_export_of_the_same_name_is_replaced_as_before(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("p").mkdir()
    Path("p/m.csv").write_text(CSV, encoding="utf-8")
    Path("out").mkdir()
    Path("out/n.csv").write_text(CSV, encoding="utf-8")  # another model's file: no conflict
    assert cli("preds", "--preds", "p", "--export", "out").code == 0
    ran = cli("preds", "--preds", "p/m.csv", "--export", "out")
    assert ran.code == 0 and "wrote out/m.jsonl" in ran.out
    assert cli("preds", "--preds", "out").code == 0
