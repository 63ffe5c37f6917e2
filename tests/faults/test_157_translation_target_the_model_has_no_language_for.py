"""Case 157: an audit's ``[translation] target`` that a rendering model has no language for: a three-letter code
(``"spa"``, with a lexicon written for ``target = "spa"``) on a multilingual Whisper, whose language tokens are
two-letter (``<|es|>``); a code a speech LLM's prompt has no language name for.

``audit --check`` asked only whether the model was a multilingual Whisper (or a speech LLM with a prompt), and
passed; the renderer was loaded in the translation stage, after transcription and mining had run, and stopped the
audit there: ``audit stage 'translation' stopped (results so far are in o): option language: unknown Whisper
language code 'spa'``. ``cannot_render`` now reads the loaded model's own languages (a CTranslate2 Whisper's
tokenizer, a transformers Whisper's generation config) and the prompt's language names, so ``--check`` and the
audit's start refuse it before any model runs, as they refuse an English-only Whisper.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
import soundfile as sf

from asraudit.models.target_language import cannot_render


def test_audit_check_refuses_a_target_the_whisper_has_no_token_for(tmp_path, cli):
    from asraudit.models import embedded

    pytest.importorskip("pocketsphinx")
    if not embedded.is_present("whisper-base"):
        pytest.skip("needs the embedded whisper-base (the models extra)")
    sf.write(tmp_path / "a.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    (tmp_path / "m.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "thank you we agree"}) + "\n",
                                      encoding="utf-8")
    (tmp_path / "truth.json").write_text(json.dumps({"a.wav": {"edits": [
        {"kind": "insert", "r": "", "a": "thank you", "ref_start": 0, "ref_end": 0}]}}), encoding="utf-8")
    (tmp_path / "lex.toml").write_text('schema = 1\ntarget = "spa"\n[[span]]\nen = "Thank you"\npatterns = '
                                       '["gracias"]\nmatch = ["gracias"]\nno_match = ["la comision"]\n',
                                       encoding="utf-8")
    spec = tmp_path / "audit.toml"
    spec.write_text('out = "o"\nrefdis = { min_panel = 2 }\n[corpus]\nmanifest = "m.jsonl"\n[[model]]\n'
                    'spec = "whisper-base"\npanel = true\n[[model]]\nspec = "pocketsphinx"\npanel = true\n'
                    '[translation]\ntarget = "spa"\nlexicon = "lex.toml"\ntruth = "truth.json"\n'
                    'models = ["whisper-base"]\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {spec}: [translation] models: whisper-base cannot render spa: its vocabulary has no "
        "<|spa|> token, so 'spa' is not a language of this Whisper"])
    spec.write_text(spec.read_text().replace('models = ["whisper-base"]\n', ""), encoding="utf-8")
    ran = cli("audit", spec, "--check")  # left to choose, no model renders spa
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {spec}: [translation]: none of the audit's models can render spa (a multilingual Whisper "
        "or a speech LLM can; English-only Whispers cannot)"])
    assert not (tmp_path / "o").exists()


def test_a_transformers_whisper_reads_its_generation_configs_languages():
    whisper = SimpleNamespace(backend="hf-seq2seq", is_whisper=True, multilingual=True,
                              model=SimpleNamespace(generation_config=SimpleNamespace(
                                  lang_to_id={"<|de|>": 1, "<|en|>": 2})))
    assert cannot_render(whisper, "de") is None
    assert cannot_render(whisper, "es") == (
        "its vocabulary has no <|es|> token, so 'es' is not a language of this Whisper")


def test_a_speech_llm_needs_a_language_name_for_its_prompt():
    llm = SimpleNamespace(backend="hf-speech-llm",
                          model=SimpleNamespace(config=SimpleNamespace(model_type="qwen2_audio")))
    assert cannot_render(llm, "es") is None
    assert cannot_render(llm, "spa").startswith("no language name is known for 'spa' to ask for it by (known: es, ")
