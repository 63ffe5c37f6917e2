"""Case 71: one audio file listed under two spellings of its path is refused, not counted twice.

A manifest with rows ``b.wav`` and ``./b.wav`` (or the file's absolute path,
or a symbolic link to it) held one recording as two clips: it was
transcribed twice and counted twice in every WER and accept-ref (``3 job(s)
run now`` for two recordings, exit 0).  The exact same id twice was already
refused (``duplicate clip id``).  Hard links stay distinct clips: storage
that deduplicates identical bytes links distinct utterances.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import soundfile as sf


@pytest.mark.parametrize("second", ["./b.wav", "ABS", "link.wav"])
def test_a_second_spelling_of_one_file_is_refused(tmp_path, cli, second):
    for name in ("a.wav", "b.wav"):
        sf.write(tmp_path / name, np.zeros(16_000, dtype=np.float32), 16_000)
    os.symlink("b.wav", tmp_path / "link.wav")
    second = str(tmp_path / "b.wav") if second == "ABS" else second
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(json.dumps({"audio_filepath": p, "text": "x"}) + "\n"
                                for p in ("b.wav", "a.wav", second)), encoding="utf-8")
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", manifest, "--out", tmp_path / "out",
              "--no-progress")
    shown = tmp_path / second  # "./b.wav" is shown as b.wav, an absolute path as itself
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {manifest}, row 3: audio file {shown} is also clip 'b.wav' (row 1): one recording under "
        "two clip ids counts twice: keep one row"])


def test_hard_links_stay_two_clips(tmp_path):
    from asraudit.data.corpus import load_manifest

    sf.write(tmp_path / "a.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    os.link(tmp_path / "a.wav", tmp_path / "same-bytes.wav")
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(json.dumps({"audio_filepath": p, "text": "x"}) + "\n"
                                for p in ("a.wav", "same-bytes.wav")), encoding="utf-8")
    assert load_manifest(manifest).ids == ["a.wav", "same-bytes.wav"]
