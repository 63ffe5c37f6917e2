"""Case 124: a model folder whose generation_config.json asks for what asraudit must not do, or lacks a table.

``"do_sample": true`` with a temperature (as many checkpoints ship it, for chat use) made every transcript of an
encoder-decoder family (Moonshine, Canary, Cohere ASR, Speech2Text, SeamlessM4T) a random draw: the same clip
gave another transcript on each run, each stored as the model's one answer, exit 0.  asraudit decodes greedily
(or with the beam it is given) whatever the folder asks, as its speech-LLM and Kyutai runners already did.

The same file missing, or saved without the language table (``lang_to_id``, as older Whisper fine-tunes are):
a multilingual Whisper was taken for an English-only one, its prompt built without the language and task
tokens (another transcript, silently) and ``language=de`` refused as if its vocabulary had none.  Its languages
are now read from its vocabulary when it has a multilingual Whisper's size (51,865 outputs or more).

And ``num_return_sequences`` 2: several sequences per window, read as the next clips' transcripts (with
``num_beams`` 2), or transformers' ValueError traceback at load (without): one sequence is asked for, and a
file transformers refuses is one line naming it.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

pytest.importorskip("transformers")
torch = pytest.importorskip("torch")


@pytest.fixture(scope="module", params=["moonshine", "canary"])
def folders(request, tmp_path_factory):
    import encdec_tiny

    plain = getattr(encdec_tiny, request.param)(tmp_path_factory.mktemp(request.param))
    sampling = shutil.copytree(plain, tmp_path_factory.mktemp("sampling") / "model")
    path = sampling / "generation_config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    config.update(do_sample=True, temperature=5.0)
    path.write_text(json.dumps(config), encoding="utf-8")
    return plain, sampling


def _clip():
    return (0.1 * np.random.default_rng(0).standard_normal(16000)).astype(np.float32)


def test_transcripts_are_the_greedy_ones_on_every_draw(folders):
    from asraudit.models.registry import load_model

    plain, sampling = folders
    expected = load_model(f"hf:{plain}", max_new_tokens=8).transcribe([_clip()])
    model = load_model(f"hf:{sampling}", max_new_tokens=8)
    seen = set()
    for seed in range(5):
        torch.manual_seed(seed)
        seen.add(tuple(model.transcribe([_clip()])))
    assert seen == {tuple(expected)}


def test_beam_search_is_not_beam_sampling(folders):
    from asraudit.models.registry import load_model

    plain, sampling = folders
    expected = load_model(f"hf:{plain}", max_new_tokens=8, beam_size=2).transcribe([_clip()])
    model = load_model(f"hf:{sampling}", max_new_tokens=8, beam_size=2)
    for seed in range(3):
        torch.manual_seed(seed)
        assert model.transcribe([_clip()]) == expected


@pytest.fixture(scope="module")
def multilingual_whisper(tmp_path_factory):
    """A tiny multilingual Whisper (51,865 outputs, whisper-base's tokenizer) whose generation_config.json is a
    released checkpoint's (language and task tables), and a copy of it without the file, as older fine-tunes are."""
    import transformers

    from asraudit.models import embedded

    if not embedded.is_present("whisper-base"):
        pytest.skip("needs whisper-base's tokenizer (the embedded model)")
    folder = tmp_path_factory.mktemp("whisper") / "complete"
    tok = transformers.WhisperTokenizerFast(tokenizer_file=str(embedded.locate("whisper-base") / "tokenizer.json"),
                                            bos_token="<|endoftext|>", eos_token="<|endoftext|>", unk_token="<|endoftext|>")
    ids = dict(zip(["sot", "en", "de", "transcribe", "translate", "notimestamps"], tok.convert_tokens_to_ids(
        ["<|startoftranscript|>", "<|en|>", "<|de|>", "<|transcribe|>", "<|translate|>", "<|notimestamps|>"])))
    config = transformers.WhisperConfig(
        vocab_size=51865, d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, decoder_start_token_id=ids["sot"],
        eos_token_id=tok.eos_token_id, pad_token_id=tok.eos_token_id, bos_token_id=tok.eos_token_id,
        begin_suppress_tokens=None, suppress_tokens=None)
    torch.manual_seed(0)
    model = transformers.WhisperForConditionalGeneration(config)
    generation = model.generation_config
    generation.is_multilingual, generation.no_timestamps_token_id = True, ids["notimestamps"]
    generation.lang_to_id = {code: tok.convert_tokens_to_ids(code) for code in ("<|en|>", "<|de|>", "<|fr|>")}
    generation.task_to_id = {"transcribe": ids["transcribe"], "translate": ids["translate"]}
    generation._from_model_config = False
    model.save_pretrained(folder)
    transformers.WhisperProcessor(transformers.WhisperFeatureExtractor(feature_size=80), tok).save_pretrained(folder)
    bare = shutil.copytree(folder, folder.parent / "no-generation-config")
    (bare / "generation_config.json").unlink()
    return folder, bare, ids


def test_a_multilingual_whisper_without_its_language_table(multilingual_whisper):
    """Without lang_to_id the folder was taken for an English-only Whisper: its prompt lost the language and
    task tokens (another transcript, silently) and ``language=de`` was refused as if its vocabulary had none."""
    from asraudit.models.registry import load_model

    complete, bare, ids = multilingual_whisper
    for language in ("en", "de"):
        expected = load_model(f"hf:{complete}", max_new_tokens=5, language=language)
        model = load_model(f"hf:{bare}", max_new_tokens=5, language=language)
        assert model.prompt_ids() == expected.prompt_ids() == [ids["sot"], ids[language], ids["transcribe"],
                                                              ids["notimestamps"]]
        assert model.transcribe([_clip()]) == expected.transcribe([_clip()])
    assert load_model(f"hf:{bare}").config_hash != load_model(f"hf:{complete}").config_hash


def test_an_english_only_whisper_without_generation_config_stays_english_only(tmp_path):
    import transformers

    from asraudit.errors import InputError
    from asraudit.models import embedded
    from asraudit.models.registry import load_model

    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("needs whisper-tiny.en's tokenizer (the embedded model)")
    tok = transformers.WhisperTokenizerFast(tokenizer_file=str(embedded.locate("whisper-tiny.en") / "tokenizer.json"),
                                            bos_token="<|endoftext|>", eos_token="<|endoftext|>", unk_token="<|endoftext|>")
    config = transformers.WhisperConfig(
        vocab_size=51864, d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32,
        decoder_start_token_id=tok.convert_tokens_to_ids("<|startoftranscript|>"), eos_token_id=tok.eos_token_id,
        pad_token_id=tok.eos_token_id, bos_token_id=tok.eos_token_id, begin_suppress_tokens=None, suppress_tokens=None)
    transformers.WhisperForConditionalGeneration(config).save_pretrained(tmp_path)
    transformers.WhisperProcessor(transformers.WhisperFeatureExtractor(feature_size=80), tok).save_pretrained(tmp_path)
    (tmp_path / "generation_config.json").unlink()
    model = load_model(f"hf:{tmp_path}")
    assert model.prompt_ids() == tok.convert_tokens_to_ids(["<|startoftranscript|>", "<|notimestamps|>"])
    with pytest.raises(InputError, match="this Whisper is English-only"):
        load_model(f"hf:{tmp_path}", language="de")


def test_the_white_box_whisper_of_that_folder_is_multilingual_too(multilingual_whisper):
    from asraudit.models.registry import load_model

    complete, bare, _ = multilingual_whisper
    expected, model = load_model(f"whitebox:hf:{complete}"), load_model(f"whitebox:hf:{bare}")
    assert model.multilingual and expected.multilingual
    assert model.transcribe([_clip()]) == expected.transcribe([_clip()])


def _tones():
    """Three clips the tiny models transcribe differently (tones of 200, 500, 800 Hz in noise)."""
    rng, t = np.random.default_rng(5), np.arange(16000) / 16000
    return [(0.3 * np.sin(2 * np.pi * (200 + 300 * i) * t) + 0.05 * rng.standard_normal(16000)).astype(np.float32)
            for i in range(3)]


def _with_generation(src, folder, **settings):
    shutil.copytree(src, folder)
    path = folder / "generation_config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    config.update(settings)
    path.write_text(json.dumps(config), encoding="utf-8")
    return folder


@pytest.mark.parametrize("builder", ["moonshine", "qwen2_audio"])
def test_several_sequences_per_clip_asked_by_the_folder(builder, tmp_path):
    """``num_return_sequences`` 2 beside ``num_beams`` 2: with ``beam_size=2`` each clip's two beams came back and
    were read as the next clips' transcripts (clip 2 stored clip 1's second beam), exit 0; with the default
    beam it was transformers' ValueError traceback at the first clip."""
    import encdec_tiny
    import speech_llm_fixtures

    from asraudit.models.registry import load_model

    build = encdec_tiny.moonshine if builder == "moonshine" else speech_llm_fixtures.tiny_qwen2_audio
    plain = build(tmp_path / "plain")
    asking = _with_generation(plain, tmp_path / "two-each", num_return_sequences=2, num_beams=2)
    for beam in (1, 2):
        expected = load_model(f"hf:{plain}", max_new_tokens=4, beam_size=beam).transcribe(_tones())
        assert load_model(f"hf:{asking}", max_new_tokens=4, beam_size=beam).transcribe(_tones()) == expected


@pytest.mark.parametrize("settings, said", [
    ({"num_return_sequences": 2}, "Greedy methods (do_sample != True) without beam search do not support "
                                  "`num_return_sequences` different than 1 (got 2)"),
    ({"max_new_tokens": 0}, "`max_new_tokens` must be greater than 0, but is 0"),
])
def test_a_generation_config_transformers_refuses_is_one_line(settings, said, tmp_path, cli):
    import encdec_tiny

    from conftest import one_clip_manifest

    folder = _with_generation(encdec_tiny.moonshine(tmp_path / "plain"), tmp_path / "model", **settings)
    ran = cli("transcribe", "--corpus", one_clip_manifest(tmp_path), "--model", f"hf:{folder}",
              "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {folder}/generation_config.json: transformers refuses its settings: {said}: "
        "fix the file, or remove it (the model's config.json then gives the defaults)"], ran.err
