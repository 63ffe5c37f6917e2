"""Case 44: a ``mask --recipe`` span past the end of its clip's audio is refused.

A recipe written in milliseconds (``t0 = 1200, t1 = 1500`` for a 2-s clip),
or for another corpus's clips, masked nothing: the hidden word was still
heard, and ``mask`` counted whether the model wrote it as "masked recovery"
(exit 0), a silently wrong readout of the probe.  The span is now checked
against the clip's length from its header before any model runs.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf


@pytest.fixture()
def corpus(tmp_path):
    sf.write(tmp_path / "n1.wav", (0.3 * np.sin(np.arange(32_000) * (2 * np.pi * 220 / 16_000))).astype(np.float32),
             16_000)  # 2.00 s of a tone (a clip of silence is refused: case 303)
    m = tmp_path / "m.jsonl"
    m.write_text(json.dumps({"audio_filepath": "n1.wav", "text": "the meeting starts at seven today"}) + "\n")
    return m


@pytest.mark.parametrize("t0, t1, what", [(1200, 1500, "nothing"), (1.5, 2.5, "past the end")])
def test_a_span_past_the_audio_is_refused(tmp_path, cli, corpus, t0, t1, what):
    recipe = tmp_path / "r.jsonl"
    recipe.write_text(json.dumps({"audio_filepath": "n1.wav", "t0": t0, "t1": t1, "word": "seven"}) + "\n")
    out = tmp_path / "out"
    ran = cli("mask", "--model", "pocketsphinx", "--corpus", corpus, "--recipe", recipe, "--out", out,
              "--no-lift", "--no-control", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {recipe}, row 1: span [{t0:g}, {t1:g}] s of clip 'n1.wav' ends after its audio (2.00 s), "
        f"so it would mask {what}: a recipe in milliseconds, or for other audio?"])
    assert not (out / "mask_outcomes.jsonl").exists()


def test_a_span_inside_the_audio_is_masked(tmp_path, cli, corpus):
    recipe = tmp_path / "r.jsonl"
    recipe.write_text(json.dumps({"audio_filepath": "n1.wav", "t0": 1.3, "t1": 1.6, "word": "seven"}) + "\n")
    ran = cli("mask", "--model", "pocketsphinx", "--corpus", corpus, "--recipe", recipe, "--out", tmp_path / "out",
              "--no-lift", "--no-control", "--no-progress")
    assert ran.code == 0, ran.err
    assert len((tmp_path / "out" / "mask_outcomes.jsonl").read_text().splitlines()) == 1
