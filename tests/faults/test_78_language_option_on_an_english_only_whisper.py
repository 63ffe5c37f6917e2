"""Case 78: ``language`` or ``task`` options an English-only Whisper cannot honour are refused.

whisper-tiny.en (like every ``.en`` Whisper) has no language or task tokens:
its decoder prompt is the same whatever the options say.  ``--option
language=fr`` (or ``xx``) and ``--option task=translate`` were accepted and
silently ignored: English transcripts, written as the run the user asked for.
A multilingual Whisper already refused an unknown code (``xx``).  Now the
English-only model refuses both when it loads, before any clip is decoded;
``language=en`` and ``auto`` stay accepted.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf


@pytest.fixture()
def corpus(tmp_path):
    sf.write(tmp_path / "a.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    (tmp_path / "m.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "hello"}) + "\n", encoding="utf-8")
    return tmp_path / "m.jsonl"


@pytest.mark.parametrize("option, said", [
    ("language=fr", "option language 'fr': this Whisper is English-only (its vocabulary has no language token), so "
                    "it transcribes English whatever the option says: leave the option out, or choose a "
                    "multilingual model"),
    ("language=xx", "option language 'xx': this Whisper is English-only"),
    ("task=translate", "option task 'translate': this Whisper is English-only (its vocabulary has no task token), "
                       "so it can only transcribe: leave the option out, or choose a multilingual model"),
])
def test_an_option_an_english_only_whisper_cannot_honour_is_refused(tmp_path, cli, corpus, option, said):
    ran = cli("transcribe", "--model", "whisper-tiny.en", "--option", option, "--corpus", corpus,
              "--out", tmp_path / "o", "--no-progress")
    assert ran.code == 2 and len(ran.error_lines) == 1
    assert ran.error_lines[0].startswith(f"asraudit: error: --model whisper-tiny.en: {said}")
    assert not (tmp_path / "o" / "whisper-tiny.en.jsonl").exists()


@pytest.mark.parametrize("option", ["language=en", "language=auto"])
def test_english_and_auto_are_still_accepted(tmp_path, cli, corpus, option):
    ran = cli("transcribe", "--model", "whisper-tiny.en", "--option", option, "--corpus", corpus,
              "--out", tmp_path / "o", "--no-progress")
    assert ran.code == 0 and (tmp_path / "o" / "whisper-tiny.en.jsonl").is_file()
