"""Case 217: ``hf:DIR`` naming a folder of data files that ``datasets.load_dataset`` cannot build: a ``data.jsonl``
with a broken row (a brace lost in an edit), or an audio folder (``metadata.csv`` with ``file_name``, the layout the
Hugging Face documentation gives for local audio) where ``torchcodec``, which ``datasets`` 4 and later need to
build an ``Audio`` column, is not installed.

``datasets`` wraps what went wrong in ``DatasetGenerationError: An error occurred while generating the dataset``,
and the line said only that, then blamed a lost connection: ``cannot load dataset (DatasetGenerationError: An error
occurred while generating the dataset); a hub dataset needs a connection or a local copy``, naming neither the
broken row nor the missing package, for a folder on disk.  The errors it was raised from are now said, and a folder
is not sent to look for a connection.
"""

from __future__ import annotations

import importlib.util
import json

import pytest

from conftest import one_clip_manifest

WRAPPED = "DatasetGenerationError: An error occurred while generating the dataset, from "


@pytest.fixture()
def ds(tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "cache"))  # its Arrow copy: here
    one_clip_manifest(tmp_path)
    folder = tmp_path / "ds"
    folder.mkdir()
    (tmp_path / "a.wav").rename(folder / "a.wav")
    return folder


def test_a_broken_row_of_a_data_file_is_named(ds, cli, tmp_path):
    row = json.dumps({"audio": "a.wav", "text": "a tone"})
    (ds / "data.jsonl").write_text(row + "\n" + row[:-1] + "\n", encoding="utf-8")  # the second row's brace lost
    ran = cli("transcribe", "--corpus", f"hf:{ds}", "--model", "pocketsphinx", "--out", tmp_path / "out",
              "--no-progress")
    assert ran.code == 2 and len(ran.error_lines) == 1
    line = ran.error_lines[0]
    assert line.startswith(f"asraudit: error: {ds}: cannot load the folder's data files as a dataset ({WRAPPED}"
                           "ArrowInvalid: JSON parse error: "), line
    assert "connection" not in line
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(importlib.util.find_spec("torchcodec") is not None, reason="torchcodec is installed")
def test_an_audio_folder_without_torchcodec_says_so(ds):
    from asraudit.data.corpus import load_corpus
    from asraudit.errors import InputError

    (ds / "metadata.csv").write_text("file_name,transcription\na.wav,a tone\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_corpus(f"hf:{ds}")
    assert str(err.value) == (f"{ds}: cannot load the folder's data files as a dataset ({WRAPPED}ImportError: To "
                              "support encoding audio data, please install 'torchcodec'., from ModuleNotFoundError: "
                              "No module named 'torchcodec')")
