"""Case 11: two corpora reusing clip ids for other audio in one store.

Results are keyed by clip id, so a second corpus whose manifest named its
files like the first one's (``c0.wav`` in another folder) was answered from
the first corpus's stored transcripts: a silently wrong result.  Now the
store records a digest of each clip's audio and refuses an id that comes
back with other audio, in one line naming the clip, the manifest row and
the store, before any model runs; the same corpus again is still free, also
when its files were rewritten with the same samples (another header).
"""

from __future__ import annotations

import json

import numpy as np
import soundfile as sf


def _tone(freq: float) -> np.ndarray:
    return (9000 * np.sin(2 * np.pi * freq * np.arange(16000) / 16000)).astype(np.int16)


def _corpus(folder, freq: float, container: str = "WAV"):
    folder.mkdir(exist_ok=True)
    with open(folder / "manifest.jsonl", "w", encoding="utf-8") as f:
        for i in range(2):
            sf.write(folder / f"c{i}.wav", _tone(freq * (i + 1)), 16000, subtype="PCM_16", format=container)
            f.write(json.dumps({"audio_filepath": f"c{i}.wav", "text": "a tone"}) + "\n")
    return folder / "manifest.jsonl"


def test_a_clip_id_with_other_audio_is_refused_and_the_same_corpus_is_free(tmp_path, cli):
    first, second = _corpus(tmp_path / "first", 300.0), _corpus(tmp_path / "second", 700.0)
    store = tmp_path / "shared.sqlite"
    args = ("--model", "pocketsphinx", "--store", store, "--no-progress")
    ran = cli("transcribe", "--corpus", first, "--out", tmp_path / "out1", *args)
    assert ran.code == 0, ran.err
    again = cli("transcribe", "--corpus", first, "--out", tmp_path / "out2", *args)
    assert again.code == 0, again.err
    other = cli("transcribe", "--corpus", second, "--out", tmp_path / "out3", *args)
    assert other.code == 2
    assert other.error_lines == [
        f"asraudit: error: {second}, row 1: clip 'c0.wav': the store shared.sqlite already holds results for a clip "
        "of this id made from other audio; one store holds one corpus's clip ids: use another store (--store) or "
        "output folder"]
    assert not (tmp_path / "out3").exists() or not any((tmp_path / "out3").iterdir())
    before = (first.parent / "c0.wav").read_bytes()
    _corpus(tmp_path / "first", 300.0, container="WAVEX")  # the same samples in another header
    assert (first.parent / "c0.wav").read_bytes() != before
    rewritten = cli("transcribe", "--corpus", first, "--out", tmp_path / "out4", *args)
    assert rewritten.code == 0, rewritten.err
