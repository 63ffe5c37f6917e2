"""Audio Flamingo 3 (``audioflamingo3``) on a tiny random checkpoint built here (``speech_llm_fixtures``).

What is AF3's own, beyond the checks every speech LLM gets in ``test_models_speech_llm``: its prompt is its
processor's transcription request with the answer's framing prefilled (AF3 answers ``The spoken content of the
audio is "TEXT".``), the closing ``".`` is scored and cut, and its generation config's repetition penalty does
not reach the transcript (which is the greedy search over the probabilities ``score`` reads).
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
from asraudit.models.speech_llm_prompts import AF3_PREFIX, _framed_answer  # noqa: E402

from speech_llm_fixtures import audio, refusal_without, tiny_audioflamingo3  # noqa: E402


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tiny_audioflamingo3(tmp_path_factory.mktemp("af3"))


@pytest.fixture(scope="module")
def llm(folder):
    return load_model(str(folder), max_new_tokens=6)


def test_the_folder_is_recognised_and_listed(folder, llm, capsys):
    config = transformers.AutoConfig.from_pretrained(folder)
    assert family_for(config, str(folder)).name == "audio-flamingo-3"
    assert type(llm.model).__name__ == "AudioFlamingo3ForConditionalGeneration"
    assert main(["models", "--json"]) == 0
    rows = {row["family"]: row for row in json.loads(capsys.readouterr().out)["families"]}
    assert rows["audio-flamingo-3"]["example"] == 'spec = "hf:nvidia/audio-flamingo-3-hf"'


def test_default_prompt_is_the_processors_request_with_the_framing_prefilled(llm):
    (request,) = llm.processor.apply_transcription_request(np.zeros(1600, np.float32), tokenize=False)
    assert llm.template == request.replace("<sound>", "{audio}") + AF3_PREFIX
    assert request.endswith("<sound>Transcribe the input speech.<|im_end|>\n<|im_start|>assistant\n")
    assert llm.end_token == "<|im_end|>" and llm.closing == '".'


def test_transcribe_is_the_models_own_greedy_generate(llm):
    clips = [audio(1.3, seed=1), audio(0.7, seed=2)]  # 1.3 s: two of the tiny encoder's 1-s windows
    texts = llm.transcribe(clips)
    assert all(texts)  # something to compare: the tiny model writes words for these clips
    for clip, text in zip(clips, texts):
        prompt = llm.template.replace("{audio}", "<sound>")
        inputs = llm.processor(text=[prompt], audio=[clip], sampling_rate=16000, return_tensors="pt")
        inputs.pop("num_audio_tokens", None)
        with torch.inference_mode():
            out = llm.model.generate(**inputs, max_new_tokens=6, do_sample=False, repetition_penalty=1.0,
                                     output_logits=True, return_dict_in_generate=True)
        answer = out.sequences[0, inputs["input_ids"].shape[1]:]
        # Greedy over the raw probabilities: the checkpoint's repetition penalty is not applied.
        assert answer.tolist() == [int(step[0].argmax()) for step in out.logits]
        assert text == llm.answer_text(llm.tokenizer.decode(answer, skip_special_tokens=True))
        assert text == llm.transcribe([clip])[0]  # alone or in a batch


def test_the_closing_is_scored_with_the_text_and_cut_from_the_transcript(llm):
    text = "the cat sat on the mat"
    ids, spans = llm.encode(text)
    assert ids == llm.tokenizer(text + '".', add_special_tokens=False)["input_ids"]
    assert spans[-1] == (len(text), len(text)) and max(b for _, b in spans) == len(text)
    # What the model writes for this transcript (its ids, then the end of turn) is transcribed back to it.
    assert llm.answer_text(llm.tokenizer.decode(ids + [llm.end_id], skip_special_tokens=True)) == text
    (s,) = llm.score(audio(0.9, seed=3), [text])
    assert s.token_ids == tuple(ids) + (llm.end_id,) and len(s.logprobs) == len(s.offsets) == len(ids) + 1
    assert llm.answer_text("no closing here") == "no closing here"  # an unfinished answer is kept as written


def test_a_prompt_of_the_users_has_no_closing_and_its_answer_is_unframed(folder, llm):
    own = load_model(str(folder), max_new_tokens=6, prompt=llm.template.removesuffix(AF3_PREFIX))
    assert own.closing == "" and own.encode("the cat")[0] == llm.tokenizer("the cat", add_special_tokens=False)["input_ids"]
    assert own.config_hash != llm.config_hash
    assert _framed_answer('The spoken content of the audio is "hello world".') == "hello world"
    assert _framed_answer("The transcription of the audio is 'a b'.") == "a b"
    assert _framed_answer("hello world") == "hello world"


def test_a_language_is_refused_as_the_request_names_none(folder):
    with pytest.raises(InputError, match="names no language"):
        load_model(str(folder), language="de")


@pytest.mark.parametrize("missing", ["chat_template.jinja", "processor_config.json", "tokenizer.json"])
def test_a_folder_missing_what_af3_needs_is_one_line(folder, tmp_path, missing):
    message, broken = refusal_without(folder, tmp_path, missing)
    assert "\n" not in message and str(broken) in message


def test_the_repetition_penalty_left_out_enters_the_hash_and_a_folder_without_one_hashes_as_before(folder, tmp_path):
    """Transcripts made with the folder's penalty (before it was left out) must not be handed back from a store."""
    with_penalty = load_model(str(folder), max_new_tokens=6)
    plain = tmp_path / "plain"
    shutil.copytree(folder, plain)
    config = json.loads((plain / "generation_config.json").read_text(encoding="utf-8"))
    del config["repetition_penalty"]
    (plain / "generation_config.json").write_text(json.dumps(config), encoding="utf-8")
    without = load_model(str(plain), max_new_tokens=6)
    assert with_penalty._penalty_dropped() == {"repetition_penalty_dropped": 1.05}
    assert without._penalty_dropped() == {}
    assert with_penalty.transcribe([audio(0.7, seed=2)]) == without.transcribe([audio(0.7, seed=2)])
    hashed = with_penalty.config_hash
    with_penalty.model.generation_config.repetition_penalty = 1.0  # the same folder, as if it shipped none
    assert with_penalty.config_hash != hashed
