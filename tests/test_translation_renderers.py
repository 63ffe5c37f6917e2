"""Asking a model for another language: which families can render Spanish, and how each is asked.

A multilingual Whisper is asked with the target's language token and the
transcribe task in its decoder prompt (a tiny random transformers Whisper
built here, and the embedded CTranslate2 whisper-base on one real clip); an
English-only Whisper has no such token and is refused with the reason; a
speech LLM is asked by its family's translation prompt (a tiny random
Qwen2-Audio); the white-box Whisper and other backends are refused.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from asraudit.errors import InputError
from asraudit.models import embedded
from asraudit.models.target_language import cannot_render, renderer_options

PARLIAMENT = Path(__file__).resolve().parents[1] / "src/asraudit/demo/data/parliament_mini"


def _speech_llm(model_type: str):
    return SimpleNamespace(backend="hf-speech-llm", model_id="llm", model=SimpleNamespace(
        config=SimpleNamespace(model_type=model_type)))


def test_backends_that_cannot_be_asked_for_another_language_are_refused_with_the_reason():
    assert "English prompt only" in cannot_render(SimpleNamespace(backend="whitebox-whisper"), "es")
    assert "pocketsphinx backend" in cannot_render(SimpleNamespace(backend="pocketsphinx"), "es")
    assert "no translation prompt is known for the voxtral family" in cannot_render(_speech_llm("voxtral"), "es")
    # a user's prompt makes any speech LLM a renderer
    assert cannot_render(_speech_llm("voxtral"), "es", prompt="{audio} Translate into {language}.") is None
    options = renderer_options(_speech_llm("voxtral"), {"beam_size": 1}, "es", "[INST]{audio}Into {language}[/INST]")
    assert options == {"beam_size": 1, "prompt": "[INST]{audio}Into Spanish[/INST]"}
    with pytest.raises(InputError, match=r"exactly once"):
        renderer_options(_speech_llm("voxtral"), {}, "es", "Translate into {language}.")


def test_seamless_is_asked_with_the_targets_three_letter_code():
    seamless = SimpleNamespace(backend="hf-seq2seq", model_id="seamless", model=SimpleNamespace(
        config=SimpleNamespace(model_type="seamless_m4t_v2")))
    assert cannot_render(seamless, "es") is None
    assert renderer_options(seamless, {"beam_size": 1}, "es") == {"beam_size": 1, "language": "spa"}
    assert "no SeamlessM4T language code" in cannot_render(seamless, "xx")
    # another transformers family (a CTC model, say) has no way to be asked
    ctc = SimpleNamespace(backend="hf-ctc", model=SimpleNamespace(config=SimpleNamespace(model_type="wav2vec2")))
    assert "hf-ctc backend cannot be asked" in cannot_render(ctc, "es")


@pytest.mark.skipif(not embedded.is_present("whisper-tiny.en"), reason="the embedded whisper-tiny.en is not installed")
def test_an_english_only_whisper_cannot_render_spanish():
    from asraudit.models.registry import load_model

    tiny = load_model("whisper-tiny.en")
    assert "English-only" in cannot_render(tiny, "es")
    with pytest.raises(InputError, match="cannot render Spanish: an English-only Whisper"):
        renderer_options(tiny, {}, "es")


@pytest.mark.skipif(not embedded.is_present("whisper-base"), reason="the embedded whisper-base is not installed")
def test_ctranslate2_whisper_base_is_asked_with_the_spanish_token_and_the_transcribe_task():
    from asraudit.audio.io import load_audio
    from asraudit.models.registry import load_model

    english = load_model("whisper-base", beam_size=1)
    options = renderer_options(english, {"beam_size": 1}, "es")
    assert options == {"beam_size": 1, "language": "es", "task": "transcribe"}
    spanish = load_model("whisper-base", **options)
    tok = spanish.tokenizer
    expected = [tok.sot, tok.token_id("<|es|>"), tok.token_id("<|transcribe|>"), tok.no_timestamps]
    assert spanish._prompts(None, 1) == [expected]
    assert spanish.config_hash != english.config_hash  # stored apart from the English transcripts
    said = "Well, the Council still has not answered our letter on the directive."
    (rendered,) = spanish.transcribe([load_audio(PARLIAMENT / "audio" / "s007-flite-slt.ogg")])
    # not the English words: whatever whisper-base makes of it, it wrote something else than what was said
    assert rendered.strip() and rendered.split()[-2:] != said.split()[-2:]


def _tiny_spanish_whisper(folder: Path) -> Path:
    """A multilingual transformers Whisper (random weights, character vocabulary) that knows <|en|> and <|es|>."""
    import torch
    import transformers
    from tokenizers import Tokenizer, decoders, models

    specials = ["<|endoftext|>", "<|startoftranscript|>", "<|en|>", "<|es|>", "<|translate|>", "<|transcribe|>",
                "<|startoflm|>", "<|startofprev|>", "<|nospeech|>", "<|notimestamps|>"]
    vocab = {c: i for i, c in enumerate("abcdefghijklmnopqrstuvwxyz ")}
    for t in specials:
        vocab[t] = len(vocab)
    backend = Tokenizer(models.BPE(vocab=vocab, merges=[], unk_token="<|endoftext|>"))
    backend.decoder = decoders.Fuse()
    backend.add_special_tokens(specials)
    tokenizer = transformers.WhisperTokenizerFast(tokenizer_object=backend, bos_token="<|endoftext|>",
                                                  eos_token="<|endoftext|>", unk_token="<|endoftext|>")
    eot, sot = vocab["<|endoftext|>"], vocab["<|startoftranscript|>"]
    config = transformers.WhisperConfig(
        vocab_size=len(vocab), d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_target_positions=64,
        decoder_start_token_id=sot, eos_token_id=eot, pad_token_id=eot, bos_token_id=eot,
        begin_suppress_tokens=None, suppress_tokens=None)
    torch.manual_seed(0)
    model = transformers.WhisperForConditionalGeneration(config)
    generation = model.generation_config
    generation.is_multilingual = True
    generation.lang_to_id = {"<|en|>": vocab["<|en|>"], "<|es|>": vocab["<|es|>"]}
    generation.task_to_id = {"transcribe": vocab["<|transcribe|>"], "translate": vocab["<|translate|>"]}
    generation.no_timestamps_token_id = vocab["<|notimestamps|>"]
    generation.decoder_start_token_id = sot
    generation._from_model_config = False
    model.save_pretrained(folder)
    transformers.WhisperProcessor(transformers.WhisperFeatureExtractor(feature_size=80), tokenizer).save_pretrained(folder)
    return folder


def test_a_transformers_multilingual_whisper_is_asked_with_the_spanish_token(tmp_path):
    pytest.importorskip("transformers")
    from asraudit.models.registry import load_model

    folder = _tiny_spanish_whisper(tmp_path / "whisper-es")
    english = load_model(f"hf:{folder}", max_new_tokens=8)
    assert cannot_render(english, "es") is None
    spanish = load_model(f"hf:{folder}", **renderer_options(english, {"max_new_tokens": 8}, "es"))
    tok = spanish.tokenizer
    ids = tok.convert_tokens_to_ids
    assert spanish.prompt_ids() == [ids("<|startoftranscript|>"), ids("<|es|>"), ids("<|transcribe|>"),
                                    ids("<|notimestamps|>")]
    assert english.prompt_ids()[1] == ids("<|en|>") and spanish.config_hash != english.config_hash
    noise = (0.1 * np.random.default_rng(0).standard_normal(16000)).astype(np.float32)
    (rendered,) = spanish.transcribe([noise])
    assert isinstance(rendered, str)


def test_a_speech_llm_is_asked_by_its_familys_translation_prompt(tmp_path):
    pytest.importorskip("transformers")
    from asraudit.models.registry import load_model
    from speech_llm_fixtures import audio, tiny_qwen2_audio

    folder = tiny_qwen2_audio(tmp_path / "qwen2-audio")
    english = load_model(str(folder), max_new_tokens=4)
    options = renderer_options(english, {"max_new_tokens": 4}, "es")
    assert options["prompt"] == "<|audio_bos|>{audio}<|audio_eos|>Translate the speech into Spanish:"
    spanish = load_model(str(folder), **options)
    assert spanish.template == options["prompt"] and spanish.config_hash != english.config_hash
    (rendered,) = spanish.transcribe([audio(1.0, seed=1)])
    assert isinstance(rendered, str)
