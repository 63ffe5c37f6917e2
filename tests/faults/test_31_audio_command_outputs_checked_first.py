"""Case 31: the model-running commands check their outputs before any model runs, as the text commands do.

``score --out`` named after its ``--texts`` file or the corpus manifest
replaced that input with the scores (exit 0); ``lift --out`` did the same to
``--edits``, ``mask --json`` and ``battery --json`` to the manifest, and a
``--out`` under a file stopped only when the results were written, after
every model had run (``score``: ``asraudit: error: a.wav: File exists``).
``transcribe --out`` into the manifest's own folder left the manifest among
the prediction files (``asraudit wer --preds`` then stopped on it:
``missing column(s) for hypothesis``), and replaced it when it was named
after the model (``whisper-tiny.en.jsonl``).  One shared check
(``check_grid_outputs``) now refuses each before the corpus is read.
"""

from __future__ import annotations

import json

import pytest

from conftest import one_clip_manifest


@pytest.fixture()
def corpus(tmp_path):
    manifest = one_clip_manifest(tmp_path)
    texts = tmp_path / "texts.jsonl"
    texts.write_text(json.dumps({"audio_filepath": "a.wav", "candidates": ["a tone", "a stone"]}) + "\n")
    return manifest, texts


def _unchanged(*files):
    return {f: f.read_bytes() for f in files}


GRID = ("--model", "whisper-tiny.en", "--no-progress")


def test_score_out_named_after_an_input_is_refused(tmp_path, cli, corpus):
    manifest, texts = corpus
    before = _unchanged(manifest, texts)
    ran = cli("score", *GRID, "--corpus", manifest, "--texts", texts, "--out", texts)
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {texts}: --out would overwrite --texts, an input: "
                               "write it to another file"]
    ran = cli("score", *GRID, "--corpus", manifest, "--with-reference", "--out", manifest)
    assert ran.error_lines == [f"asraudit: error: {manifest}: --out would overwrite the corpus manifest, an input: "
                               "write it to another file"]
    assert _unchanged(manifest, texts) == before
    assert not (tmp_path / "asraudit.sqlite").exists()


def test_score_out_under_a_file_is_refused_before_any_model_runs(tmp_path, cli, corpus):
    manifest, _ = corpus
    ran = cli("score", *GRID, "--corpus", manifest, "--with-reference", "--out", tmp_path / "a.wav" / "s.jsonl")
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {tmp_path / 'a.wav' / 's.jsonl'}: cannot write --out: "
                               f"{tmp_path / 'a.wav'} is a file, not a folder"]


def test_lift_mask_and_battery_outputs_named_after_an_input_are_refused(tmp_path, cli, corpus):
    manifest, texts = corpus
    before = _unchanged(manifest, texts)
    ran = cli("lift", *GRID, "--corpus", manifest, "--edits", texts, "--out", texts)
    assert ran.error_lines == [f"asraudit: error: {texts}: --out would overwrite --edits, an input: "
                               "write it to another file"]
    for command in (("mask",), ("battery", "--spec", "paper")):
        ran = cli(*command, *GRID, "--corpus", manifest, "--out", tmp_path / "o", "--json", manifest)
        assert ran.code == 2
        assert ran.error_lines == [f"asraudit: error: {manifest}: --json would overwrite the corpus manifest, an "
                                   "input: write it to another file"]
    assert _unchanged(manifest, texts) == before


def test_transcribe_out_is_not_the_manifests_folder(tmp_path, cli, corpus):
    manifest, _ = corpus
    named = tmp_path / "whisper-tiny.en.jsonl"  # the file the model would write there
    named.write_bytes(manifest.read_bytes())
    before = _unchanged(named)
    for out in (tmp_path, f"{tmp_path}/"):
        ran = cli("transcribe", *GRID, "--corpus", named, "--out", out)
        assert ran.code == 2
        assert ran.error_lines == [
            f"asraudit: error: {tmp_path}: --out is the folder of the manifest whisper-tiny.en.jsonl: the "
            "prediction files would lie beside it, `asraudit wer --preds` would read it as a model's, and a model "
            "named like it would replace it: choose another --out"]
    assert _unchanged(named) == before
    assert not (tmp_path / "asraudit.sqlite").exists()
