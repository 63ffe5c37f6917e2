"""Case 181: a Hugging Face dataset's Parquet shard (a hub dataset's ``data/test-00000-of-00001.parquet``, or
``Dataset.to_parquet``) given as the corpus: an ``audio`` column of ``{bytes, path}`` structs, ``text`` and ``id``,
no ``audio_filepath``.

It was read as a manifest: ``row 1: missing 'audio_filepath' (found fields ['audio', 'id', 'text'])``, with no word
of what the file is.  ``--corpus`` (and ``load_corpus``, a spec's ``dataset =``) now reads it as the dataset it is
a part of, with the dataset's columns and options; a spec's ``manifest =`` (and ``load_manifest``) says what it is
and where to give it.
"""

from __future__ import annotations

import json

import pytest

from conftest import one_clip_manifest


def _shard(tmp_path, **columns):
    datasets = pytest.importorskip("datasets")
    one_clip_manifest(tmp_path)
    audio = {"bytes": (tmp_path / "a.wav").read_bytes(), "path": "a.wav"}  # as a hub dataset's shard holds it
    rows = {"audio": [audio], "text": ["a tone"], "id": ["u1"], **columns}
    shard = tmp_path / "test-00000-of-00001.parquet"
    datasets.Dataset.from_dict(rows).cast_column("audio", datasets.Audio()).to_parquet(str(shard))
    (tmp_path / "a.wav").unlink()  # the shard holds its bytes
    return shard


def test_a_shard_given_as_the_corpus_is_read_as_a_dataset(tmp_path, cli):
    shard = _shard(tmp_path)
    ran = cli("transcribe", "--corpus", shard, "--model", "pocketsphinx", "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 0, ran.err
    rows = [json.loads(line) for line in (tmp_path / "out" / "pocketsphinx.jsonl").read_text().splitlines()]
    assert [(r["audio_filepath"], r["text"]) for r in rows] == [("u1", "a tone")]
    ran = cli("transcribe", "--corpus", shard, "--split", "test", "--model", "pocketsphinx", "--out",
              tmp_path / "out2", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {shard}: split 'test' cannot be chosen: a dataset's Parquet shard is one part of one "
        "split: give none"]


def test_a_shards_columns_are_chosen_as_a_datasets(tmp_path):
    from asraudit.data.corpus import load_corpus

    shard = _shard(tmp_path, words=["the words"])
    (clip,) = load_corpus(shard, text_column="words").clips
    assert (clip.id, clip.reference, isinstance(clip.audio, bytes)) == ("u1", "the words", True)


def test_a_shard_given_as_a_manifest_says_what_it_is(tmp_path):
    from asraudit.data.corpus import load_manifest
    from asraudit.errors import InputError

    shard = _shard(tmp_path)
    with pytest.raises(InputError) as err:
        load_manifest(shard)
    assert str(err.value) == (
        f"{shard}: a Hugging Face dataset's Parquet shard (its audio encoded in a column, no audio_filepath), not a "
        "manifest: give it where a dataset goes (--corpus, or dataset = in an audit spec's [corpus]), which reads it "
        "as one")


def test_a_parquet_manifest_is_still_a_manifest(tmp_path, cli):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    one_clip_manifest(tmp_path)
    manifest = tmp_path / "m.parquet"
    pq.write_table(pa.Table.from_pylist([{"audio_filepath": "a.wav", "text": "a tone"}]), manifest)
    ran = cli("transcribe", "--corpus", manifest, "--model", "pocketsphinx", "--out", tmp_path / "out",
              "--no-progress")
    assert ran.code == 0, ran.err


def test_a_datasets_parquet_without_audio_is_not_a_shard(tmp_path):
    """``Dataset.to_parquet`` of a table of transcripts (no audio column) keeps datasets' metadata: not a shard."""
    datasets = pytest.importorskip("datasets")
    from asraudit.data.corpus import is_dataset_shard

    table = tmp_path / "t.parquet"
    datasets.Dataset.from_dict({"id": ["a"], "text": ["x"], "pred_text": ["y"]}).to_parquet(str(table))
    assert not is_dataset_shard(table)
    assert is_dataset_shard(_shard(tmp_path))
