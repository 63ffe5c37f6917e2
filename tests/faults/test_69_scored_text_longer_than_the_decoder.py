"""Case 69: a text to score longer than Whisper's decoder is one line, not a ValueError traceback.

``score --texts`` with a 600-word candidate (a whole transcript for a
clip) raised ``ValueError: candidate has 600 tokens; Whisper's decoder holds
448`` as a traceback.  The check was right, its kind was not: it is bad
input, now an ``InputError`` (still a ``ValueError``) that the command prints
as one line; the white-box Whisper says the same.
"""

from __future__ import annotations

import json

import numpy as np
import soundfile as sf


def test_a_600_word_candidate_is_one_line(tmp_path, cli):
    sf.write(tmp_path / "a.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"audio_filepath": "a.wav", "text": "nothing"}) + "\n", encoding="utf-8")
    texts = tmp_path / "texts.jsonl"
    texts.write_text(json.dumps({"audio_filepath": "a.wav", "candidates": [" ".join(["word"] * 600)]}) + "\n")
    ran = cli("score", "--model", "whisper-tiny.en", "--corpus", manifest, "--texts", texts,
              "--out", tmp_path / "s.jsonl", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {texts}, row 1: candidate 1 of clip 'a.wav' cannot be scored by whisper-tiny.en: it has "
        "600 tokens, and the decoder of whisper-tiny.en holds 448 with its prompt (2) and end-of-text: score a "
        "shorter text"])  # checked before the model loads, naming the row (case 184)
