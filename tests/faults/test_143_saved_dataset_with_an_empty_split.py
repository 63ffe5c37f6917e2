"""Case 143: a saved Hugging Face dataset (``save_to_disk``) with an empty split, or no rows at all.

``datasets.load_from_disk`` loads every split of a dataset dict, and an empty
split is saved without data files, which it fails to read with
``IndexError: list index out of range``.  A dict whose ``test`` split was
empty could not be read at all, not even with ``--split train``, and the one
line said ``cannot load dataset (IndexError: list index out of range); a hub
dataset needs a connection or a local copy``: a local folder, blamed on the
network.  Now only the asked split is loaded, and an empty split (or a saved
dataset of no rows) is said as such, before any model runs.
"""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf


def _saved_dict(tmp_path):
    datasets = pytest.importorskip("datasets")
    t = np.arange(16_000) / 16_000
    sf.write(tmp_path / "c0.wav", (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), 16_000)
    features = datasets.Features({"audio": datasets.Value("string"), "text": datasets.Value("string")})
    audio = datasets.Audio(decode=False)
    train = datasets.Dataset.from_dict({"audio": [str(tmp_path / "c0.wav")], "text": ["a tone"]}, features=features)
    empty = datasets.Dataset.from_dict({"audio": [], "text": []}, features=features).cast_column("audio", audio)
    train = train.cast_column("audio", audio)
    datasets.DatasetDict({"train": train, "test": empty}).save_to_disk(str(tmp_path / "saved"))
    empty.save_to_disk(str(tmp_path / "none"))
    return tmp_path / "saved"


def test_the_other_split_is_read(tmp_path):
    from asraudit.data.corpus import load_corpus

    corpus = load_corpus(_saved_dict(tmp_path), split="train")
    assert corpus.ids == ["0"] and corpus["0"].reference == "a tone" and corpus["0"].decode().shape == (16_000,)


def test_the_empty_split_is_said_before_any_model_runs(tmp_path, cli):
    saved = _saved_dict(tmp_path)
    ran = cli("transcribe", "--corpus", saved, "--split", "test", "--model", "pocketsphinx",
              "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {saved}: dataset split 'test' has no rows"]
    assert not (tmp_path / "out").exists()


def test_a_saved_dataset_of_no_rows(tmp_path):
    from asraudit.data.corpus import load_corpus
    from asraudit.errors import InputError

    _saved_dict(tmp_path)
    with pytest.raises(InputError) as err:
        load_corpus(tmp_path / "none")
    assert str(err.value) == f"{tmp_path / 'none'}: dataset has no rows"


def test_a_split_saved_alone_is_not_read_under_another_splits_name(tmp_path, cli):
    datasets = pytest.importorskip("datasets")
    saved = _saved_dict(tmp_path)
    datasets.load_from_disk(str(saved / "train")).to_parquet(str(tmp_path / "train.parquet"))
    # loaded as a split (as from the hub), the split's name is saved with it (datasets' state.json)
    datasets.load_dataset("parquet", data_files={"train": str(tmp_path / "train.parquet")}, split="train",
                          cache_dir=str(tmp_path / "cache")).save_to_disk(str(tmp_path / "train_only"))
    from asraudit.data.corpus import load_corpus

    assert load_corpus(tmp_path / "train_only", split="train").ids == ["0"]
    ran = cli("transcribe", "--corpus", tmp_path / "train_only", "--split", "test", "--model", "pocketsphinx",
              "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {tmp_path / 'train_only'}: no split 'test': the folder holds one split saved alone, "
        "'train': ask for 'train' or give no split"]
    assert not (tmp_path / "out").exists()
