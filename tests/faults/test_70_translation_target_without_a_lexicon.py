"""Case 70: a translation target with no built-in lexicon says so, naming the target.

``translate --target fr`` (or ``xx``, or ``[translation] target = "fr"``)
without ``--lexicon`` said ``fr: no such lexicon file (built-in lexicons:
es)``: the target code read as a file name, the option not named (``--target
""`` said ``.: no such lexicon file``).  Now one line names the target and
how to give a lexicon, before any model loads.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf


@pytest.mark.parametrize("target", ["fr", "xx", ""])
def test_a_target_without_a_lexicon_is_named(tmp_path, cli, target):
    sf.write(tmp_path / "a.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"audio_filepath": "a.wav", "text": "well nothing"}) + "\n", encoding="utf-8")
    truth = tmp_path / "truth.json"
    truth.write_text(json.dumps({"a.wav": {"edits": [{"kind": "insert", "r": "well", "a": "", "ref_start": 0,
                                                      "ref_end": 1}]}}))
    ran = cli("translate", "--model", "whisper-base", "--corpus", manifest, "--truth", truth, "--target", target,
              "--out", tmp_path / "t.jsonl", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: target {target!r} has no built-in lexicon (built-in: es): give a lexicon file for it "
        "(--lexicon, [translation] lexicon)"])
