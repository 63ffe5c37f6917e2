"""Case 232: a translation prompt (``translate --prompt``, ``[translation] prompt``) that no renderer reads.

Only a speech LLM reads a translation prompt: a multilingual Whisper is told
the target by a forced language token, a SeamlessM4T by its language code.
With Whispers alone the prompt was dropped without a word, and the run went
ahead (exit 0, ``audit --check`` passed) while its user believed the
renderings had been asked for with it.  Now it is refused once the models
are known, before any of them runs; beside a speech LLM it goes to the LLM
and one line says which models do not read it.
"""

from __future__ import annotations

import json

import pytest

from asraudit.errors import InputError

from conftest import one_clip_manifest

PROMPT = "<|audio_bos|>{audio}<|audio_eos|>Translate into {language}:"


def edits(folder):
    path = folder / "edits.jsonl"
    path.write_text(json.dumps({"edit_id": "e1", "clip": "a.wav", "kind": "delete", "position": "start",
                                "ref_start": 0, "ref_end": 1, "r": "well", "a": ""}) + "\n", encoding="utf-8")
    return path


def test_translate_refuses_a_prompt_only_whispers_would_get(tmp_path, cli):
    manifest = one_clip_manifest(tmp_path, text="well we agree")
    ran = cli("translate", "--model", "whisper-base", "--corpus", manifest, "--edits", edits(tmp_path),
              "--prompt", PROMPT, "--out", tmp_path / "out" / "t.jsonl", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        "asraudit: error: --prompt is a speech LLM's translation prompt, and no model rendering es is a speech LLM "
        "(whisper-base is told the language by a forced <|es|> token), so the prompt would go unread: leave "
        "--prompt out"])
    assert not (tmp_path / "out").exists()  # nothing ran, no store was opened


def test_audit_check_refuses_it(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    one_clip_manifest(tmp_path, text="well we agree")
    (tmp_path / "truth.json").write_text("{}", encoding="utf-8")
    panel = "".join(f'[[model]]\nspec = "{m}"\npanel = true\n' for m in ("whisper-base", "whisper-tiny.en",
                                                                        "pocketsphinx"))
    spec = tmp_path / "audit.toml"
    spec.write_text('[corpus]\nmanifest = "m.jsonl"\n' + panel + '[translation]\ntruth = "truth.json"\n'
                    f'prompt = "{PROMPT}"\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert (ran.code, ran.error_lines) == (2, [
        "asraudit: error: audit.toml: [translation] prompt is a speech LLM's translation prompt, and no model "
        "rendering es is a speech LLM (whisper-base is told the language by a forced <|es|> token), so the prompt "
        "would go unread: leave [translation] prompt out"])
    spec.write_text('[corpus]\nmanifest = "m.jsonl"\n' + panel + '[translation]\ntruth = "truth.json"\n',
                    encoding="utf-8")
    assert cli("audit", spec, "--check").code == 0  # without the prompt the same audit is fine


def test_beside_a_speech_llm_the_prompt_goes_to_it_with_one_line(tmp_path, cli):
    pytest.importorskip("transformers")
    from speech_llm_fixtures import tiny_qwen2_audio

    from asraudit.models.registry import load_model
    from asraudit.models.target_language import prompt_use

    qwen = tmp_path / "qwen2-audio"
    tiny_qwen2_audio(qwen)
    manifest = one_clip_manifest(tmp_path, text="well we agree")
    ran = cli("translate", "--model", "whisper-base", "--model", f"hf:{qwen}", "--corpus", manifest,
              "--edits", edits(tmp_path), "--prompt", PROMPT, "--out", tmp_path / "out" / "t.jsonl", "--no-progress")
    assert ran.code == 0, ran.err
    assert (f"asraudit: warning: --prompt goes to the speech LLMs only (hf:{qwen}); whisper-base is told the "
            "language by a forced <|es|> token") in ran.err.splitlines()
    whisper, llm = load_model("whisper-base"), load_model(f"hf:{qwen}")
    assert prompt_use({"w": whisper, "q": llm}, "es", None, "[translation] prompt") is None  # no prompt: no word
    assert prompt_use({"q": llm}, "es", PROMPT, "[translation] prompt") is None  # every renderer reads it
    with pytest.raises(InputError, match=r"^\[translation\] prompt is a speech LLM's"):
        prompt_use({"w": whisper}, "es", PROMPT, "[translation] prompt")
