"""Case 250: ``asraudit preds --preds p --export p``: the leaderboard JSONL export written into the predictions
folder it reads, whose files are CSV or Parquet (converting them "in place").

Case 13 refused an export that would overwrite its input (``p/m.jsonl`` exported onto itself); an export
beside another layout's file was written: ``p/m.jsonl`` next to ``p/m.csv``, exit 0, and every later command
reading the folder stopped on ``two prediction files for model 'm': p/m.csv and p/m.jsonl``."""

from __future__ import annotations

from pathlib import Path


def test_export_into_the_folder_it_reads_is_refused(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("p").mkdir()
    Path("p/m.csv").write_text("audio_filepath,text,pred_text\nc0,the cat,the cat\nc1,a dog,a dog\n", encoding="utf-8")
    for folder in ("p", "p/", "./p"):
        ran = cli("preds", "--preds", "p", "--export", folder)
        assert ran.code == 2 and ran.out == ""
        assert ran.error_lines == [
            f"asraudit: error: {Path(folder) / 'm.jsonl'}: --export is in the predictions folder p, whose every .jsonl "
            "file is read as a model's predictions: the next run would read it as model 'm'; write it outside the "
            "folder"]
        assert sorted(p.name for p in Path("p").iterdir()) == ["m.csv"]
    # another folder, as before; the folder still reads as one model
    ran = cli("preds", "--preds", "p", "--export", "out")
    assert ran.code == 0 and "wrote out/m.jsonl" in ran.out
    assert cli("preds", "--preds", "p").code == 0
