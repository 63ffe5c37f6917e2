"""Case 180: a saved Hugging Face dataset whose audio is relative file paths (a string column of paths, or
``{"path": "a.wav", "bytes": None}`` rows, which ``save_to_disk`` keeps as they are), read from another folder.

The paths were read against the working directory: run from a folder holding another ``a.wav``, the dataset's
clip was that other recording, transcribed and scored without a word; a dataset moved with its audio beside it
lost every file (``cannot read (No such file or directory)``).  A relative path is now read against the dataset's
folder, as a manifest's are against the manifest's; a file under both as two different files is refused in one
line naming the row, before any model runs.  A file only the working directory holds is read from there, as
``datasets`` reads it.
"""

from __future__ import annotations

import shutil

import pytest

from conftest import one_clip_manifest


def _saved(tmp_path, struct: bool):
    datasets = pytest.importorskip("datasets")
    one_clip_manifest(tmp_path)  # tmp_path/a.wav: a 220 Hz tone
    saved = tmp_path / "saved"
    audio = [{"path": "a.wav", "bytes": None}] if struct else ["a.wav"]
    datasets.Dataset.from_dict({"audio": audio, "text": ["a tone"]}).save_to_disk(str(saved))
    shutil.move(tmp_path / "a.wav", saved / "a.wav")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return saved, elsewhere


@pytest.mark.parametrize("struct", [True, False], ids=["path-and-bytes-rows", "path-column"])
def test_relative_paths_are_read_against_the_dataset_folder(tmp_path, monkeypatch, struct):
    from asraudit.data.corpus import load_corpus

    saved, elsewhere = _saved(tmp_path, struct)
    monkeypatch.chdir(elsewhere)
    (clip,) = load_corpus(saved).clips
    assert clip.audio == saved / "a.wav"
    monkeypatch.chdir(saved)  # the same file from both
    (clip,) = load_corpus(saved).clips
    assert clip.audio.samefile(saved / "a.wav")


def test_another_recording_under_the_working_directory_is_refused(tmp_path, monkeypatch, cli):
    saved, elsewhere = _saved(tmp_path, struct=True)
    shutil.copy(saved / "a.wav", elsewhere / "a.wav")
    (elsewhere / "a.wav").write_bytes((elsewhere / "a.wav").read_bytes()[:-2] + b"\x01\x02")  # another recording
    monkeypatch.chdir(elsewhere)
    ran = cli("transcribe", "--corpus", saved, "--model", "pocketsphinx", "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {saved}, row 1: audio path 'a.wav' is relative, and both the dataset's folder and the "
        f"working directory hold one ({saved / 'a.wav'} and a.wav, not the same file), so which recording the row "
        "means cannot be told: save the dataset with absolute paths or its audio embedded"]
    assert not (tmp_path / "out").exists()


def test_a_file_only_the_working_directory_holds_is_read_as_datasets_reads_it(tmp_path, monkeypatch):
    """A dataset built from paths relative to where its author stood, and read from there: ``datasets`` opens the
    path against the working directory, and so does asraudit when the dataset's folder has no such file."""
    from asraudit.data.corpus import load_corpus

    saved, elsewhere = _saved(tmp_path, struct=True)
    shutil.move(saved / "a.wav", elsewhere / "a.wav")
    monkeypatch.chdir(elsewhere)
    (clip,) = load_corpus(saved).clips
    assert clip.audio.resolve() == (elsewhere / "a.wav").resolve()
