"""Granite-Speech-Plus (``granite_speech_plus``): Granite-Speech whose projector reads the encoder's output
concatenated with earlier blocks' (``cat_hidden_layers``), loaded as a user's folder is.

The shared speech-LLM checks (score == generate's own log-probs, batch composition, offsets, beam) run over
this family too (``BUILDERS`` in ``speech_llm_fixtures``, ``tests/test_models_speech_llm.py``).  Here, what is
the family's own: it is recognised as itself (not as Granite-Speech, whose class would drop the concatenation),
its default prompt is the request transformers' documentation gives rendered by the checkpoint's chat
template, transcribe gives what the model's ``generate`` gives on that prompt, on a model loud enough
(weights drawn at std 0.2) that its answers are not empty, and a folder missing what the family needs is one line.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from asraudit.cli import main  # noqa: E402
from asraudit.errors import InputError  # noqa: E402
from asraudit.models.families import family_for  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402

from speech_llm_fixtures import audio, tiny_granite_speech, tiny_granite_speech_plus  # noqa: E402
from tolerances import LOGPROB_RTOL  # why relative: see tests/tolerances.py

# The request of transformers' docs/source/en/model_doc/granite_speech_plus.md ("Task 1: ASR"), written out here
# rather than imported, so the test does not read the module it checks.
DOC_SYSTEM = ("Knowledge Cutoff Date: April 2024.\nToday's Date: December 19, 2024.\n"
              "You are Granite, developed by IBM. You are a helpful AI assistant")
DOC_ASR = "<|audio|> can you transcribe the speech into a written format?"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tiny_granite_speech_plus(tmp_path_factory.mktemp("gsp"), init=0.2)


@pytest.fixture(scope="module")
def llm(folder):
    return load_model(str(folder), max_new_tokens=8)


def _documented_inputs(llm, clips):
    """The model's inputs as the documentation builds them: its chat rendered by the processor, then the
    processor over that text and the clips (asraudit's own ``_inputs`` not used)."""
    chat = [{"role": "system", "content": DOC_SYSTEM}, {"role": "user", "content": DOC_ASR}]
    text = llm.processor.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
    return text, llm.processor(text=[text] * len(clips), audio=clips, return_tensors="pt", text_kwargs={"padding": True})


def test_the_folder_is_granite_speech_plus_and_keeps_its_concatenating_encoder(llm, folder, capsys):
    config = transformers.AutoConfig.from_pretrained(folder)
    assert family_for(config, str(folder)).name == "granite-speech-plus"
    assert type(llm.model).__name__ == "GraniteSpeechPlusForConditionalGeneration"
    assert llm.model.config.encoder_config.cat_hidden_layers == [1]
    clip = torch.tensor(audio(1.0, seed=1))[None]
    features = llm.processor.audio_processor(clip)["input_features"]
    with torch.inference_mode():
        encoded = llm.model.model.encoder(features).last_hidden_state
    assert encoded.shape[-1] == 32  # the final block's 16 and block 1's 16, as the projector reads them
    assert main(["models", "--json"]) == 0
    rows = {row["family"]: row for row in json.loads(capsys.readouterr().out)["families"]}
    assert rows["granite-speech-plus"]["model_types"] == ["granite_speech_plus"]
    assert "hf:ibm-granite/granite-speech-4.1-2b-plus" in rows["granite-speech-plus"]["example"]  # transformers' docstring


def test_default_prompt_is_the_documented_request_in_the_checkpoints_chat_template(llm):
    text, _ = _documented_inputs(llm, [audio(0.5, seed=2)])
    assert llm.prompt_text() == text
    assert text.count("<|audio|>") == 1 and "<|start_of_role|>system<|end_of_role|>Knowledge Cutoff" in text
    assert llm.template.endswith("<|start_of_role|>assistant<|end_of_role|>")
    with pytest.raises(InputError, match="names no language"):  # the request names none
        load_model(str(llm.source), language="de")


def test_transcribe_gives_what_generate_gives_on_the_documented_request(llm):
    clips = [audio(0.7, seed=3), audio(1.6, seed=4), audio(1.1, seed=5)]
    texts = llm.transcribe(clips)
    for clip, text in zip(clips, texts):
        _, inputs = _documented_inputs(llm, [clip])
        with torch.inference_mode():
            out = llm.model.generate(**inputs, max_new_tokens=8, do_sample=False, num_beams=1)
        own = llm.processor.tokenizer.decode(out[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True).strip()
        assert text == own
    assert any(texts)  # a loud model answers: the comparison is not between empty strings


@pytest.mark.parametrize("builder", [tiny_granite_speech_plus, tiny_granite_speech], ids=["plus", "granite_speech"])
def test_a_clip_batched_with_clips_of_other_lengths_is_transcribed_as_alone(builder, llm, tmp_path):
    """Granite's extractor pads a batch's clips to the longest before its STFT and its conformer takes no
    mask, so the model's own batched generate hears the padding (a 0.7-s clip padded to 1.6 s gave another
    transcript); asraudit batches only windows of one length for both Granite families."""
    model = llm if builder is tiny_granite_speech_plus else load_model(str(builder(tmp_path / "g", init=0.2)),
                                                                      max_new_tokens=8)
    clips = [audio(0.7, seed=3), audio(1.6, seed=4), audio(1.1, seed=5), audio(0.7, seed=7)]
    alone = [model.transcribe([c])[0] for c in clips]
    assert model.transcribe(clips) == alone
    padded = model._processor_inputs(clips[:2])  # the family's prompt, the processor padding the 0.7-s clip to 1.6 s
    with torch.inference_mode():
        out = model.model.generate(**padded, max_new_tokens=8, do_sample=False, num_beams=1)
    texts = model.processor.tokenizer.batch_decode(out[:, padded["input_ids"].shape[1]:], skip_special_tokens=True)
    assert texts[0].strip() != alone[0]  # what batching by padding would have given: the reason for the rule
    assert model._one_length_batches() == {"batches": "windows of one length"}  # such stored transcripts: recomputed


def test_score_of_generates_answer_sums_generates_own_log_probs(llm):
    clip = audio(1.3, seed=6)
    _, inputs = _documented_inputs(llm, [clip])
    with torch.inference_mode():
        out = llm.model.generate(**inputs, max_new_tokens=8, do_sample=False, num_beams=1, output_logits=True,
                                 return_dict_in_generate=True)
    generated = out.sequences[0, inputs["input_ids"].shape[1]:].tolist()
    own = [float(torch.log_softmax(step[0].float(), -1)[t]) for step, t in zip(out.logits, generated)]
    ends = generated[-1] == llm.end_id
    assert len(generated) >= 3
    (scored,) = llm.score_ids(clip, [generated[:-1] if ends else generated])
    compared = scored if ends else scored[:-1]
    np.testing.assert_allclose(compared, own, atol=1e-5, rtol=LOGPROB_RTOL)
    assert float(np.sum(compared)) == pytest.approx(float(np.sum(own)), abs=1e-4)
    together = llm.score(clip, ["the cat", "hello world", ""], batch_size=3)
    alone = [llm.score(clip, [t], batch_size=1)[0] for t in ("the cat", "hello world", "")]
    for a, b in zip(together, alone):
        np.testing.assert_allclose(a.logprobs, b.logprobs, atol=1e-6, rtol=LOGPROB_RTOL)


def _copy(folder, tmp_path, name):
    out = tmp_path / name
    shutil.copytree(folder, out)
    return out


def test_a_folder_that_needs_its_lora_but_lacks_it_is_one_line(folder, tmp_path):
    broken = _copy(folder, tmp_path, "no-adapter")
    config = json.loads((broken / "config.json").read_text())
    config["has_lora_adapter"] = True  # the family's default: the checkpoint expects its speech LoRA beside it
    (broken / "config.json").write_text(json.dumps(config))
    with pytest.raises(InputError) as info:
        load_model(str(broken))
    message = str(info.value)
    assert "\n" not in message and str(broken) in message and "has no adapter_config.json" in message


def test_a_folder_without_its_feature_extractor_is_one_line(folder, tmp_path):
    broken = _copy(folder, tmp_path, "no-extractor")
    (broken / "preprocessor_config.json").unlink()
    with pytest.raises(InputError) as info:
        load_model(str(broken))
    message = str(info.value)
    assert "\n" not in message and str(broken) in message and "cannot load its processor" in message
