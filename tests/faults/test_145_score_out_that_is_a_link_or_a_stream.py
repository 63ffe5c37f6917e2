"""Case 145: ``asraudit score --out`` naming a symbolic link or a stream.

Case 135 sent every writer through ``data.paths.written_whole``; ``score``'s
own writer was left out: it wrote ``<out>.tmp`` (a fixed name) and renamed it
onto the path.  Through a link, the rename replaced the link with a regular
file and the file the link points at kept its old content; a FIFO another
program reads was replaced too (its reader got nothing), and as root
``--out /dev/stdout`` would replace the system's ``/dev/stdout``.  Now the
scores go through ``written_whole``: the link stays and its target holds the
rows; a stream gets the rows appended.
"""

from __future__ import annotations

import json
import os
import threading

import numpy as np
import soundfile as sf
from conftest import release_fifo_reader


def _inputs(tmp_path):
    sf.write(tmp_path / "a.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"audio_filepath": "a.wav", "text": "nothing"}) + "\n", encoding="utf-8")
    texts = tmp_path / "texts.jsonl"
    texts.write_text(json.dumps({"audio_filepath": "a.wav", "candidates": ["the cat", "a cat"]}) + "\n")
    return manifest, texts


def _score(cli, tmp_path, manifest, texts, out):
    return cli("score", "--model", "whisper-tiny.en", "--corpus", manifest, "--texts", texts, "--out", out,
               "--store", tmp_path / "store.sqlite", "--no-progress")


def test_a_link_keeps_pointing_at_its_file_which_gets_the_scores(tmp_path, cli):
    manifest, texts = _inputs(tmp_path)
    (tmp_path / "kept").mkdir()
    target = tmp_path / "kept" / "scores.jsonl"
    target.write_text("old\n")
    link = tmp_path / "scores.jsonl"
    link.symlink_to(target)
    ran = _score(cli, tmp_path, manifest, texts, link)
    assert ran.code == 0, ran.err
    assert link.is_symlink() and os.readlink(link) == str(target)
    rows = [json.loads(line) for line in target.read_text().splitlines()]
    assert [r["text"] for r in rows] == ["the cat", "a cat"]
    assert sorted(p.name for p in (tmp_path / "kept").iterdir()) == ["scores.jsonl"]  # no temporary file left


def test_a_fifo_gets_the_scores_and_stays_a_fifo(tmp_path, cli):
    manifest, texts = _inputs(tmp_path)
    fifo = tmp_path / "scores.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, encoding="utf-8").read()), daemon=True)
    reader.start()
    ran = _score(cli, tmp_path, manifest, texts, fifo)
    if not got:  # the run never opened the FIFO (it was renamed over): release the reader
        release_fifo_reader(fifo)
    reader.join(10)
    assert ran.code == 0, ran.err
    assert fifo.is_fifo()
    assert [json.loads(line)["text"] for line in got[0].splitlines()] == ["the cat", "a cat"]
