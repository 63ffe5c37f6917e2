"""Case 175: a row file whose header names one column twice: a CSV manifest with two ``text`` columns (an original
and a corrected reference side by side, as a spreadsheet lets them be), a prediction CSV with two ``pred_text``
columns, a Parquet manifest with two ``text`` fields (pyarrow writes them), a review sheet with two
``judgement`` columns (two reviewers, ``judgement`` and ``Judgement``, which the sheet reads as one name).

Each row was read as a record, which keeps one cell per name: the last column's, without a word (the corrected
text became every reference, exit 0; of two reviewers one's judgements counted).  Now the header is refused in
one line naming both columns, before any model runs; empty header cells (a spreadsheet's unnamed trailing
columns) are no names and still read.
"""

from __future__ import annotations

import csv

import pytest

from conftest import one_clip_manifest


def test_a_csv_or_parquet_manifest_with_a_column_named_twice(tmp_path, cli):
    one_clip_manifest(tmp_path)
    manifest = tmp_path / "m.csv"
    manifest.write_text("audio_filepath,text,text\na.wav,a tone,a bone\n", encoding="utf-8")
    ran = cli("transcribe", "--corpus", manifest, "--model", "pocketsphinx", "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {manifest}, row 1: columns 2 and 3 of the header are both named 'text', and a row keeps "
        "only one of their cells: rename or remove one"]
    assert not (tmp_path / "out").exists()

    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    parquet = tmp_path / "m.parquet"
    pq.write_table(pa.Table.from_arrays([pa.array(["a.wav"]), pa.array(["a tone"]), pa.array(["a bone"])],
                                        names=["audio_filepath", "text", "text"]), parquet)
    ran = cli("transcribe", "--corpus", parquet, "--model", "pocketsphinx", "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {parquet}: columns 2 and 3 are both named 'text', and a row keeps only one of their "
        "cells: rename or remove one"]

    unnamed = tmp_path / "u.csv"  # empty trailing header cells are no names
    unnamed.write_text("audio_filepath,text,,\na.wav,a tone,,\n", encoding="utf-8")
    from asraudit.data.corpus import load_corpus

    assert [(c.id, c.reference) for c in load_corpus(unnamed)] == [("a.wav", "a tone")]


def test_a_prediction_csv_with_a_column_named_twice(tmp_path, cli):
    preds = tmp_path / "m1.csv"
    preds.write_text("audio_filepath,text,pred_text,pred_text\nc0,a tone,a tone,a bone\n", encoding="utf-8")
    ran = cli("wer", "--preds", preds)
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {preds}, row 1: columns 3 and 4 of the header are both named 'pred_text', and a row "
        "keeps only one of their cells: rename or remove one"]
    assert ran.out == ""


def test_a_review_sheet_with_two_judgement_columns(tmp_path, cli):
    sheet = tmp_path / "filled.csv"
    columns = ["edit_id", "clip_id", "kind", "r", "a", "judgement", "Judgement"]
    with sheet.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(columns)
        writer.writerow(["c0.wav@0-1", "c0.wav", "delete", "well", "", "yes", "no"])
    ran = cli("refdis", "--review", sheet)
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {sheet}, row 1: columns 6 and 7 of the header are both named 'judgement', and a row "
        "keeps only one of their cells: rename or remove one"]
    assert ran.out == ""
