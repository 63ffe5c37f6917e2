"""Case 29: a clip whose file is not usable audio is refused when the corpus is read, before any model runs.

Clips are decoded chunk by chunk while the models run, so a text file named
``.wav``, a zero-byte file, a WAV cut inside its header, a WAV without
samples or one claiming a 1 Hz sample rate at row 2 stopped the run only
after the models had transcribed row 1 (and, in a real corpus, every row
before the broken one).  The loader now reads every clip's header (a few
hundred bytes) up front and names the file and row; a 1 Hz header, which was
silently resampled into seconds of noise and transcribed, is refused too.  A
saved dataset's rows (encoded bytes) are read the same way.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest
import soundfile as sf

SR = 16_000


def _good(path):
    t = np.arange(SR) / SR
    sf.write(path, (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), SR)
    return path


def _broken(path, kind):
    if kind == "zero bytes":
        path.write_bytes(b"")
    elif kind == "text":
        path.write_text("not audio at all\n")
    elif kind == "cut header":
        path.write_bytes(_good(path).read_bytes()[:30])
    elif kind == "no samples":
        sf.write(path, np.zeros(0, dtype=np.float32), SR)
    elif kind == "1 Hz":
        sf.write(path, np.full(3, 0.1, dtype=np.float32), 1)
    return path


EXPECTED = {
    "zero bytes": "the file is empty (0 bytes)",
    "text": "cannot decode audio (Format not recognised.)",
    "cut header": "cannot decode audio (Error in WAV file. No 'data' chunk marker.)",
    "no samples": "audio is empty (no samples)",
    "1 Hz": "sample rate 1 Hz is below 4000 Hz, too low to hold speech (a broken header?): resample the file, "
            "or fix the rate its header gives",
}


@pytest.mark.parametrize("kind", list(EXPECTED))
def test_a_broken_clip_stops_the_run_before_the_clips_before_it_are_transcribed(tmp_path, cli, kind):
    _good(tmp_path / "good.wav")
    _broken(tmp_path / "bad.wav", kind)
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(json.dumps({"audio_filepath": a, "text": "a tone"}) + "\n"
                                for a in ("good.wav", "bad.wav")), encoding="utf-8")
    out = tmp_path / "out"
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", manifest, "--out", out, "--batch-size", 1,
              "--no-progress")
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {manifest}, row 2: audio file {tmp_path / 'bad.wav'}: {EXPECTED[kind]}"]
    # no model ran: the store (if it was opened at all) holds no result
    store = out / "asraudit.sqlite"
    if store.exists():
        with sqlite3.connect(store) as db:
            assert db.execute("SELECT COUNT(*) FROM results").fetchone() == (0,)


def test_a_folder_corpus_is_checked_the_same_way(tmp_path, cli):
    corpus = tmp_path / "clips"
    corpus.mkdir()
    _good(corpus / "a.wav")
    _broken(corpus / "b.wav", "text")
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", corpus, "--out", tmp_path / "out",
              "--no-progress")
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {corpus / 'b.wav'}: cannot decode audio (Format not recognised.)"]


def test_a_saved_dataset_row_is_checked_the_same_way(tmp_path, cli, monkeypatch):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    good = _good(tmp_path / "good.wav").read_bytes()
    ds = datasets.Dataset.from_dict({"id": ["u1", "u2"], "text": ["a tone", "junk"],
                                     "audio": [{"bytes": good, "path": None}, {"bytes": b"not audio", "path": None}]})
    ds.cast_column("audio", datasets.Audio(decode=False)).save_to_disk(str(tmp_path / "saved"))
    out = tmp_path / "out"
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", tmp_path / "saved", "--out", out,
              "--batch-size", 1, "--no-progress")
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {tmp_path / 'saved'}, row 2: audio file clip u2: cannot decode "
                               "audio (Format not recognised.)"]
    assert not (out / "asraudit.sqlite").exists()  # refused with the corpus, before the store is opened
