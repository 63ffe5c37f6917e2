"""Case 40: a manifest's audio path that is a looping or dangling link, a folder or a pipe is named for what it is.

Case 17 did this for prediction files; a manifest row still said ``audio file
loop.wav is missing`` for a symbolic link that loops onto itself (something
is there), and ``is not a regular file`` for a folder and a pipe alike; a
``--corpus`` that is such a link said ``no such corpus``.
"""

from __future__ import annotations

import json
import os

import pytest


@pytest.mark.parametrize("make, said", [
    (lambda p: os.symlink(p.name, p), "is a symbolic link that loops: point it at the audio file"),
    (lambda p: os.symlink("nowhere.wav", p), "is a symbolic link to nowhere.wav, which is not there"),
    (lambda p: p.mkdir(), "is a folder, not an audio file"),
    (lambda p: os.mkfifo(p), "is not a regular file (a pipe, socket or device): save the audio to a file"),
    (lambda p: None, "is missing"),
])
def test_the_audio_path_is_named_for_what_is_there(tmp_path, cli, make, said):
    audio = tmp_path / "a.wav"
    make(audio)
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"audio_filepath": "a.wav", "text": "x"}) + "\n", encoding="utf-8")
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", manifest, "--out", tmp_path / "out",
              "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {manifest}, row 1: audio file {audio} {said}"])


@pytest.mark.parametrize("make, said", [
    (lambda p: os.symlink(p.name, p), "corpus is a symbolic link that loops: point it at a file"),
    (lambda p: os.symlink("gone.jsonl", p), "corpus is a symbolic link to gone.jsonl, which is not there"),
    (lambda p: None, "no such corpus: expected a manifest file, a folder, or hf:DATASET"),
])
def test_the_corpus_argument_is_named_for_what_is_there(tmp_path, cli, make, said):
    corpus = tmp_path / "m.jsonl"
    make(corpus)
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", corpus, "--out", tmp_path / "out",
              "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {corpus}: {said}"])
