"""Case 79: hidden files and folders in a folder corpus are not clips.

A corpus copied from a Mac holds an AppleDouble file ``._a.wav`` (the
resource fork: 4 KB of metadata, not audio) beside every ``a.wav``; the
folder corpus read it as a clip, and the header check refused the whole
corpus: ``corpus/._a.wav: cannot decode audio (Format not recognised.)``.  A
notebook's ``.ipynb_checkpoints/`` copy of a clip was a second clip.  Names
that start with a dot are now left out, at any depth; everything else is read
as before.
"""

from __future__ import annotations

import numpy as np
import soundfile as sf

from asraudit import load_corpus


def test_hidden_files_and_folders_are_left_out_of_a_folder_corpus(tmp_path, cli):
    corpus = tmp_path / "corpus"
    (corpus / "spk1" / ".ipynb_checkpoints").mkdir(parents=True)
    (corpus / ".git").mkdir()
    for path in (corpus / "a.wav", corpus / "spk1" / "b.flac", corpus / "spk1" / ".ipynb_checkpoints" / "b.wav",
                 corpus / ".git" / "c.wav"):
        sf.write(path, np.zeros(16_000, dtype=np.float32), 16_000)
    (corpus / "a.txt").write_text("hello", encoding="utf-8")
    (corpus / "._a.wav").write_bytes(b"\x00\x05\x16\x07" + b"\x00" * 4092)  # AppleDouble: a Mac's resource fork
    (corpus / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    assert [c.id for c in load_corpus(corpus).clips] == ["a.wav", "spk1/b.flac"]
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", corpus, "--out", tmp_path / "o", "--no-progress")
    assert ran.code == 0 and ran.error_lines == []
    assert len((tmp_path / "o" / "pocketsphinx.jsonl").read_text(encoding="utf-8").splitlines()) == 2


def test_a_folder_given_by_a_hidden_name_is_still_read(tmp_path):
    corpus = tmp_path / ".data"
    corpus.mkdir()
    sf.write(corpus / "a.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    assert [c.id for c in load_corpus(corpus).clips] == ["a.wav"]
