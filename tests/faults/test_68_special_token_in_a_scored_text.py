"""Case 68: a text to score that holds one of Whisper's special tokens is one line, not a traceback.

``score --texts`` with the candidate ``"the cat <|endoftext|> sat"`` (a raw
model output with its special tokens left in) stopped with ``RuntimeError:
CTranslate2 did not follow the forced prefix; teacher-forced scores would
be wrong``, a traceback.  The tokenizer now refuses the text, naming it and
the token; ``<unk>`` and other bracketed words that are not Whisper's
tokens are ordinary text.
"""

from __future__ import annotations

import json

import numpy as np
import soundfile as sf


def test_a_special_token_in_a_candidate_is_one_line(tmp_path, cli):
    sf.write(tmp_path / "a.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"audio_filepath": "a.wav", "text": "nothing"}) + "\n", encoding="utf-8")
    texts = tmp_path / "texts.jsonl"
    texts.write_text(json.dumps({"audio_filepath": "a.wav", "candidates": ["the cat <|endoftext|> sat"]}) + "\n")
    ran = cli("score", "--model", "whisper-tiny.en", "--corpus", manifest, "--texts", texts,
              "--out", tmp_path / "s.jsonl", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {texts}, row 1: candidate 1 of clip 'a.wav' cannot be scored by whisper-tiny.en: text "
        "'the cat <|endoftext|> sat' holds Whisper's special token <|endoftext|>, which no transcript can: remove it "
        "from the text"])  # checked before the model loads, naming the row (case 184)

    texts.write_text(json.dumps({"audio_filepath": "a.wav", "candidates": ["the <unk> sat"]}) + "\n")
    ran = cli("score", "--model", "whisper-tiny.en", "--corpus", manifest, "--texts", texts,
              "--out", tmp_path / "s.jsonl", "--no-progress")
    assert ran.code == 0, ran.err
