"""Case 66: ``--model`` naming one model twice is refused before any model runs.

``transcribe --model whisper-tiny.en --model whisper-tiny.en`` transcribed
every clip, then refused to write two ``whisper-tiny.en.jsonl`` files: the
check came after the work (kept in the store, but the run ended in an error).
Two specs of one model (`` whisper-tiny.en`` with a space) clashed the same
way.  A repeated spec is now refused with the options, and with the local
executor the models are loaded, and their file names compared, before the
first clip.
"""

from __future__ import annotations

import pytest

from conftest import one_clip_manifest


@pytest.fixture()
def manifest(tmp_path):
    return one_clip_manifest(tmp_path, tone=False, text="nothing")


@pytest.mark.parametrize("command", [("transcribe",), ("mask",)])
def test_the_same_spec_twice_is_refused_first(tmp_path, cli, manifest, command):
    out = tmp_path / "out"
    ran = cli(*command, "--model", "pocketsphinx", "--model", "pocketsphinx", "--corpus", manifest, "--out", out,
              "--no-progress")
    assert (ran.code, ran.error_lines) == (2, ["asraudit: error: --model pocketsphinx is given more than once: give "
                                               "each model once"])
    assert not out.exists()


def test_two_specs_of_one_model_are_refused_before_any_clip(tmp_path, cli, manifest):
    out = tmp_path / "out"
    ran = cli("transcribe", "--model", "pocketsphinx", "--model", " pocketsphinx", "--corpus", manifest, "--out", out,
              "--no-progress")
    assert (ran.code, ran.error_lines) == (2, ["asraudit: error: several models would write pocketsphinx.jsonl; run "
                                               "them with separate --out folders"])
    assert not (out / "asraudit.sqlite").exists()
