"""Case 260: ``asraudit transcribe --out o`` where ``o/<model>.jsonl``, the prediction file named after the model,
is taken: a folder of that name, or a symbolic link to the corpus manifest or to a clip's audio.

``check_grid_outputs`` checks the outputs the command line names; the prediction files are named after the
models, known once they load, and were not checked: a folder was found after every model had run, on a
temporary name (``o/.whisper-tiny.en.jsonl.11918.c2cc16e4.tmp: Is a directory``); a link had its target
written through, the corpus manifest (or the clip's audio) replaced by the predictions, exit 0.  Now each
prediction file is checked as an output once the models load, before any of them runs."""

from __future__ import annotations

import os

import pytest

from tests.faults.conftest import one_clip_manifest

pytest.importorskip("ctranslate2")

FIX = "the file is named after the model: remove what is there (a link?), or choose another --out"


@pytest.mark.parametrize("taken, said", [
    ("folder", "the prediction file of model whisper-tiny.en is a folder; give a file name"),
    ("m.jsonl", f"the prediction file of model whisper-tiny.en would overwrite the corpus manifest, an input: {FIX}"),
    ("a.wav", f"the prediction file of model whisper-tiny.en would overwrite the audio of clip 'a.wav', an input: "
              f"{FIX}"),
])
def test_a_taken_prediction_file_is_refused_before_the_model_runs(cli, tmp_path, monkeypatch, taken, said):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d").mkdir()
    manifest = one_clip_manifest(tmp_path / "d")
    inputs = {p.name: p.read_bytes() for p in (tmp_path / "d").iterdir()}
    (tmp_path / "o").mkdir()
    target = tmp_path / "o" / "whisper-tiny.en.jsonl"
    if taken == "folder":
        target.mkdir()
    else:
        os.symlink(os.path.join("..", "d", taken), target)
    ran = cli("transcribe", "--model", "whisper-tiny.en", "--corpus", manifest, "--out", "o", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: o/whisper-tiny.en.jsonl: {said}"])
    assert {p.name: p.read_bytes() for p in (tmp_path / "d").iterdir()} == inputs
    assert not (tmp_path / "o" / "asraudit.sqlite").exists()  # nothing ran
