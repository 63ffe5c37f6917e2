"""Fun-ASR-Nano (``fun_asr_nano``) on a tiny random checkpoint built here (``speech_llm_fixtures``).

What is Fun-ASR-Nano's own, beyond the checks every speech LLM gets in ``test_models_speech_llm``: its features
come from asraudit's torchaudio-free Kaldi filterbank, compared here with what transformers' extractor computed
with torchaudio's ``kaldi.fbank`` (``fun_asr_fbank_reference.npz``: torchaudio 2.11's compliance/kaldi.py run on
this torch, for two clips of 0.25 s and 0.41 s drawn from ``default_rng(20261202)``); its prompt names the
language in Chinese, and only the three languages its request knows.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from asraudit.cli import main  # noqa: E402
from asraudit.errors import InputError  # noqa: E402
from asraudit.models.families import family_for  # noqa: E402
from asraudit.models.fun_asr_features import fun_asr_extractor  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402

from speech_llm_fixtures import audio, refusal_without, tiny_fun_asr_nano  # noqa: E402

REFERENCE = Path(__file__).with_name("fun_asr_fbank_reference.npz")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tiny_fun_asr_nano(tmp_path_factory.mktemp("fun"))


@pytest.fixture(scope="module")
def llm(folder):
    return load_model(str(folder), max_new_tokens=6)


def test_features_equal_transformers_extractor_with_torchaudio():
    rng = np.random.default_rng(20261202)
    clips = [(0.1 * rng.standard_normal(n)).astype(np.float32) for n in (4000, 6560)]
    ours = fun_asr_extractor()(clips, sampling_rate=16000, return_tensors="pt")  # the real extractor's defaults
    reference = np.load(REFERENCE)
    np.testing.assert_array_equal(ours["input_features_mask"].numpy(), reference["input_features_mask"])
    np.testing.assert_allclose(ours["input_features"].numpy(), reference["input_features"], rtol=0, atol=1e-5)


def test_the_folder_is_recognised_and_listed(folder, llm, capsys):
    config = transformers.AutoConfig.from_pretrained(folder)
    assert family_for(config, str(folder)).name == "fun-asr-nano"
    assert type(llm.model).__name__ == "FunAsrNanoForConditionalGeneration"
    assert type(llm.processor.feature_extractor).__name__ == "TorchFunAsrNanoFeatureExtractor"
    assert main(["models", "--json"]) == 0
    rows = {row["family"]: row for row in json.loads(capsys.readouterr().out)["families"]}
    assert rows["fun-asr-nano"]["example"].startswith('spec = "hf:FunAudioLLM/Fun-ASR-Nano-2512-hf"')


@pytest.mark.parametrize("language, named", [("en", "成英文"), ("zh", "成中文"), (None, "")])
def test_default_prompt_is_the_processors_request(folder, llm, language, named):
    runner = llm if language == "en" else load_model(str(folder), max_new_tokens=6, language=language)
    (request,) = llm.processor.apply_transcription_request(np.zeros(1600, np.float32), language=language,
                                                           tokenize=False)
    assert runner.template == request.replace("<|object_ref_start|>", "{audio}")
    assert f"<|im_start|>user\n语音转写{named}：{{audio}}<|im_end|>\n<|im_start|>assistant\n" in runner.template
    assert runner.end_token == "<|im_end|>"


def test_a_language_the_request_cannot_name_is_one_line(folder):
    with pytest.raises(InputError, match="names zh, en or ja") as info:
        load_model(str(folder), language="de")
    assert "\n" not in str(info.value)


def test_transcribe_is_the_models_own_greedy_generate(llm):
    clips = [audio(1.3, seed=1), audio(0.7, seed=2)]
    texts = llm.transcribe(clips)
    assert all(texts)  # something to compare: the tiny model writes words for these clips
    for clip, text in zip(clips, texts):
        prompt = llm.template.replace("{audio}", "<|object_ref_start|>")
        inputs = llm.processor(text=[prompt], audio=[clip], sampling_rate=16000, return_tensors="pt")
        inputs.pop("num_audio_tokens", None)
        with torch.inference_mode():
            out = llm.model.generate(**inputs, max_new_tokens=6, do_sample=False, output_logits=True,
                                     return_dict_in_generate=True)
        answer = out.sequences[0, inputs["input_ids"].shape[1]:]
        assert answer.tolist() == [int(step[0].argmax()) for step in out.logits]
        assert text == llm.tokenizer.decode(answer, skip_special_tokens=True).strip()
        assert text == llm.transcribe([clip])[0]  # alone or in a batch


@pytest.mark.parametrize("missing", ["chat_template.jinja", "processor_config.json", "tokenizer.json"])
def test_a_folder_missing_what_fun_asr_needs_is_one_line(folder, tmp_path, missing):
    message, broken = refusal_without(folder, tmp_path, missing)
    assert "\n" not in message and str(broken) in message


def test_a_clips_audio_embeddings_do_not_depend_on_its_batch(llm):
    """transformers leaves the adaptor's attention without a padding mask; ``mask_adaptor_padding`` gives it one."""
    short, long = audio(0.6, seed=6), audio(1.4, seed=7)
    extractor = llm.processor.feature_extractor
    alone = extractor([short], sampling_rate=16000, return_tensors="pt")
    batch = extractor([short, long], sampling_rate=16000, return_tensors="pt")
    with torch.inference_mode():
        one = llm.model.model.get_audio_features(alone["input_features"], alone["input_features_mask"]).pooler_output
        both = llm.model.model.get_audio_features(batch["input_features"], batch["input_features_mask"]).pooler_output
    torch.testing.assert_close(both[: one.shape[0]], one, atol=1e-5, rtol=0)
    assert llm.model.config.adaptor_config._attn_implementation == llm.model.config.audio_config._attn_implementation
