"""Case 150: ``asraudit score`` candidates listed twice for one clip, and a clip id written as a float.

``{"candidates": ["a tone", "a tone"]}`` was scored twice and written as two output rows, exit 0: a reader of
the output counting candidates, or averaging their scores, counted one text twice.  A candidates file whose id
is ``0.0`` (a pandas column of whole numbers with a gap is float) was refused as ``clip '0.0' is not in the
corpus``, where every other file of the project reads ``7.0`` as clip ``7`` (``data.rows.number_id``, case 19).
"""

from __future__ import annotations

import json

import pytest

from conftest import one_clip_manifest


def test_a_candidate_listed_twice_is_refused_before_any_model_runs(tmp_path, cli):
    pytest.importorskip("ctranslate2")
    manifest = one_clip_manifest(tmp_path)
    texts = tmp_path / "c.jsonl"
    texts.write_text(json.dumps({"audio_filepath": "a.wav", "candidates": ["a tone", "a bone", "a tone"]}) + "\n",
                     encoding="utf-8")
    ran = cli("score", "--corpus", manifest, "--model", "whisper-tiny.en", "--texts", texts,
              "--out", tmp_path / "out" / "s.jsonl", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {texts}, row 1: candidates 1 and 3 are the same text 'a tone': keep one"]
    assert not (tmp_path / "out").exists()


def test_a_float_clip_id_is_the_clip_of_that_number(tmp_path):
    datasets = pytest.importorskip("datasets")
    from asraudit.commands.score import load_candidates
    from asraudit.data.corpus import load_corpus

    one_clip_manifest(tmp_path)
    rows = datasets.Dataset.from_dict({"audio": [str(tmp_path / "a.wav")], "text": ["a tone"]})
    rows.cast_column("audio", datasets.Audio(decode=False)).save_to_disk(str(tmp_path / "saved"))
    corpus = load_corpus(tmp_path / "saved")
    assert corpus.ids == ["0"]  # clip ids are the row numbers
    texts = tmp_path / "c.jsonl"
    texts.write_text('{"id": 0.0, "candidates": ["a tone"]}\n', encoding="utf-8")
    assert load_candidates(texts, corpus) == {"0": ["a tone"]}
