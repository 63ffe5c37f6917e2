"""Case 258: ``asraudit transcribe --store`` naming a file in ``--out`` with a prediction file's suffix.

``--store out/whisper-tiny.en.jsonl``: the run stored its transcripts there, then wrote the model's prediction
file ``out/whisper-tiny.en.jsonl`` over the store (the results left only in SQLite's write-ahead log beside it),
exit 0.  ``--store out/r.json``: every later ``asraudit wer --preds out`` stopped on ``out/r.json, row 1: not valid
UTF-8``, the store read as a model's predictions.  Both are refused before the corpus is read."""

from __future__ import annotations

import pytest

from tests.faults.conftest import one_clip_manifest


@pytest.mark.parametrize("name", ["whisper-tiny.en.jsonl", "r.json", "R.CSV", "s.parquet"])
def test_a_store_named_as_a_prediction_file_in_out_is_refused(cli, tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    manifest = one_clip_manifest(tmp_path)
    ran = cli("transcribe", "--model", "whisper-nonexistent-model", "--corpus", manifest, "--out", "o",
              "--store", f"o/{name}", "--no-progress")
    stem, suffix = name.rsplit(".", 1)
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: o/{name}: the result store is in --out o, whose every .{suffix} file is read as a model's "
        f"predictions: `asraudit wer --preds o` would read it as model '{stem}', and a model's {stem}.jsonl would "
        f"replace it: name the store {stem}.sqlite or put it in another folder"])
    assert not (tmp_path / "o").exists()


def test_a_store_of_another_suffix_or_folder_is_used_as_before(cli, tmp_path, monkeypatch):
    pytest.importorskip("ctranslate2")
    monkeypatch.chdir(tmp_path)
    manifest = one_clip_manifest(tmp_path)
    for store in ("o/whisper-tiny.en.sqlite", "s/r.json"):
        ran = cli("transcribe", "--model", "whisper-tiny.en", "--corpus", manifest, "--out", "o", "--store", store,
                  "--no-progress")
        assert ran.code == 0, ran.err
    assert cli("wer", "--preds", "o").code == 0
