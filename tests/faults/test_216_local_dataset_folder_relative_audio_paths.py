"""Case 216: ``hf:DIR`` naming a folder of data files (``data.jsonl`` or ``data.csv`` rows with an ``audio`` path
and a ``text``, which ``datasets.load_dataset`` reads with its packaged JSON or CSV builder) whose audio paths are
relative (``"a.wav"``, beside the data file), read from another folder.

Case 180 read a saved dataset's relative paths against its folder; for ``hf:DIR`` they were still read against
the working directory (``datasets`` passes them on as written): run from a folder holding another ``a.wav``, the
clip was that other recording, without a word, and run from anywhere else the dataset's own file was not found
(``audio file a.wav: cannot read (No such file or directory)``).  They are now read as a saved dataset's are: against
the dataset's folder, the working directory's file only where the folder has none, and two different files
refused.  A hub id's paths (``hf:ORG/NAME``, no such folder) are left as ``datasets`` gives them.

The CSV builder gives the path column as Arrow's large strings, which the ``Audio`` feature does not cast from: such
a dataset was refused as ``column 'audio' holds Value('large_string'), not audio``; it is read as a string column.
"""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import one_clip_manifest


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "cache"))  # its Arrow copy: here
    one_clip_manifest(tmp_path)  # tmp_path/a.wav: a 220 Hz tone
    ds = tmp_path / "ds"
    ds.mkdir()
    shutil.move(tmp_path / "a.wav", ds / "a.wav")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return ds, elsewhere


def _data_file(ds, kind):
    if kind == "jsonl":
        (ds / "data.jsonl").write_text(json.dumps({"audio": "a.wav", "text": "a tone"}) + "\n", encoding="utf-8")
    else:
        (ds / "data.csv").write_text("audio,text\na.wav,a tone\n", encoding="utf-8")


@pytest.mark.parametrize("kind", ["jsonl", "csv"])
def test_relative_paths_are_read_against_the_folder_hf_names(folder, monkeypatch, kind):
    from asraudit.data.corpus import load_corpus

    ds, elsewhere = folder
    _data_file(ds, kind)
    monkeypatch.chdir(elsewhere)
    (clip,) = load_corpus(f"hf:{ds}").clips
    assert clip.audio == ds / "a.wav" and clip.reference == "a tone"


def test_another_recording_under_the_working_directory_is_refused(folder, monkeypatch, cli):
    ds, elsewhere = folder
    _data_file(ds, "jsonl")
    (elsewhere / "a.wav").write_bytes((ds / "a.wav").read_bytes()[:-2] + b"\x01\x02")  # another recording
    monkeypatch.chdir(elsewhere)
    ran = cli("transcribe", "--corpus", f"hf:{ds}", "--model", "pocketsphinx", "--out", elsewhere / "out",
              "--no-progress")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {ds}, row 1: audio path 'a.wav' is relative, and both the dataset's folder and the "
        f"working directory hold one ({ds / 'a.wav'} and a.wav, not the same file), so which recording the row "
        "means cannot be told: save the dataset with absolute paths or its audio embedded"]
    assert not (elsewhere / "out").exists()


def test_a_file_only_the_working_directory_holds_is_read_as_datasets_reads_it(folder, monkeypatch):
    from asraudit.data.corpus import load_corpus

    ds, elsewhere = folder
    _data_file(ds, "jsonl")
    shutil.move(ds / "a.wav", elsewhere / "a.wav")
    monkeypatch.chdir(elsewhere)
    (clip,) = load_corpus(f"hf:{ds}").clips
    assert clip.audio.resolve() == (elsewhere / "a.wav").resolve()
