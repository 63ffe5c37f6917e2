"""Speech LLMs (audio encoder + decoder-only LM), offline: tiny random checkpoints built in the test.

Each family's folder is made by ``speech_llm_fixtures`` (config class at toy
sizes, a BPE tokenizer trained here, the family's processor) and loaded with
``registry.load_model`` as a user's folder would be.  Random weights say
nothing about accuracy; what is pinned down is that the score is exactly the
probability the model itself decodes with, that it does not depend on which
other candidates share the batch, and that the prompt is part of the model.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from asraudit.errors import InputError  # noqa: E402
from asraudit.models.hf_speech_llm import HFSpeechLLM, transcribe_windowed  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402

from speech_llm_fixtures import BUILDERS, audio  # noqa: E402
from tolerances import LOGPROB_RTOL  # why relative: see tests/tolerances.py

# A sequence's summed log-prob from two float32 code paths (cached teacher
# forcing vs generate's own step logits) over a 32-wide, 2-layer model: each
# term differs by rounding only (~1e-6 relative), a handful of terms ~1e-5.
SEQUENCE_ATOL = 1e-4


@pytest.fixture(scope="module", params=sorted(BUILDERS))
def folder(request, tmp_path_factory):
    return BUILDERS[request.param](tmp_path_factory.mktemp(request.param))


@pytest.fixture(scope="module")
def llm(folder) -> HFSpeechLLM:
    return load_model(str(folder), max_new_tokens=6)


def _greedy(llm, clip, n):
    inputs = llm._inputs([clip])
    with torch.inference_mode():
        out = llm.model.generate(**inputs, max_new_tokens=n, do_sample=False, num_beams=1,
                                 output_logits=True, return_dict_in_generate=True)
    generated = out.sequences[0, inputs["input_ids"].shape[1]:].tolist()
    own = [torch.log_softmax(step[0].float(), -1)[t].item() for step, t in zip(out.logits, generated)]
    return generated, own


def test_registry_recognises_the_family_and_the_prompt_is_in_the_hash(llm, folder):
    assert isinstance(llm, HFSpeechLLM)
    assert "{audio}" in llm.template
    other = llm.variant()  # same settings: same hash
    assert other.config_hash == llm.config_hash
    custom = load_model(str(folder), max_new_tokens=6, prompt=llm.template + " ")
    assert custom.config_hash != llm.config_hash
    assert load_model(str(folder), max_new_tokens=6, beam_size=2).config_hash != llm.config_hash


def test_teacher_forced_score_equals_generates_own_log_probs(llm):
    clip = audio(1.2, seed=3)
    generated, own = _greedy(llm, clip, 6)
    ends = generated[-1] == llm.end_id
    tokens = generated[:-1] if ends else generated
    (scored,) = llm.score_ids(clip, [tokens])
    compared = scored if ends else scored[:-1]
    assert len(compared) == len(own)
    np.testing.assert_allclose(compared, own, atol=1e-5, rtol=LOGPROB_RTOL)
    assert abs(float(np.sum(compared)) - float(np.sum(own))) <= SEQUENCE_ATOL


def test_batch_composition_does_not_change_a_score(llm):
    clip = audio(0.8, seed=4)
    candidates = ["the cat sat", "a much longer candidate about the lazy dog", "", "hello"]
    together = llm.score(clip, candidates, batch_size=4)
    for text, batched in zip(candidates, together):
        (alone,) = llm.score(clip, [text], batch_size=1)
        np.testing.assert_allclose(batched.logprobs, alone.logprobs, atol=1e-6, rtol=LOGPROB_RTOL)
        assert batched.token_ids == alone.token_ids


def test_end_of_turn_is_the_last_term_and_offsets_cover_the_text(llm):
    text = "she sells sea shells, by the shore?"
    (s,) = llm.score(audio(1.0, seed=5), [text])
    assert s.token_ids[-1] == llm.end_id and s.tokens[-1] == llm.end_token
    assert len(s.logprobs) == len(s.token_ids) == len(s.offsets)
    spans = s.offsets[:-1]
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))  # contiguous: every character in one token
    assert s.offsets[-1] == (len(text), len(text))
    assert all(v < 0 for v in s.logprobs)


def test_silence_and_an_empty_candidate_score(llm):
    silence = np.zeros(16000, dtype=np.float32)
    empty, word = llm.score(silence, ["", "the"])
    # The end of turn alone, after the family's closing where its answer has one (Audio Flamingo 3).
    assert empty.token_ids == tuple(llm.encode("")[0]) + (llm.end_id,) and np.isfinite(empty.total)
    assert len(word.logprobs) >= 2 and np.isfinite(word.total)


def test_transcribe_batches_and_beam(llm, folder):
    clips = [audio(0.6, seed=6), audio(1.4, seed=7)]
    texts = llm.transcribe(clips)
    assert len(texts) == 2 and all(isinstance(t, str) for t in texts)
    assert texts[0] == llm.transcribe([clips[0]])[0]
    beam = load_model(str(folder), max_new_tokens=4, beam_size=2)
    assert len(beam.transcribe(clips)) == 2


def test_a_prompt_without_the_audio_is_refused_before_loading(folder):
    with pytest.raises(InputError, match=r"does not contain the audio slot \{audio\}") as info:
        load_model(str(folder), prompt="Transcribe this please.")
    assert str(folder) in str(info.value)


def test_scoring_refuses_audio_longer_than_one_prompt(llm):
    with pytest.raises(ValueError, match="at most"):
        llm.score(np.zeros(llm.max_samples + 16000, dtype=np.float32), ["x"])


def test_long_audio_is_windowed_and_windows_batched_by_length():
    seen = []

    def decode(windows):
        seen.append([len(w) for w in windows])
        return [f"w{len(w)}" for w in windows]

    clips = [np.ones(25, np.float32), np.ones(7, np.float32), np.ones(10, np.float32)]
    texts = transcribe_windowed(clips, decode, batch_size=2, max_samples=10)
    assert texts == ["w8 w9 w8", "w7", "w10"]  # near-equal windows (whisper_frontend.split_windows)
    assert seen == [[7, 8], [8, 9], [10]]  # sorted by length, so each batch pads little
    silent_end = np.concatenate([np.ones(12, np.float32), np.zeros(13, np.float32)])
    assert transcribe_windowed([silent_end, np.zeros(25, np.float32)], decode, 4, 10) == ["w8 w9", "w8"]
    seen.clear()  # one length per batch (Granite's encoder hears padding), still at most batch_size
    clips = [np.ones(n, np.float32) for n in (7, 8, 7, 7, 9, 8)]
    assert transcribe_windowed(clips, decode, 2, 10, equal_lengths=True) == ["w7", "w8", "w7", "w7", "w9", "w8"]
    assert seen == [[7, 7], [7], [8, 8], [9]]


def test_voxtral_inputs_equal_mistral_commons_own_transcription_request(tmp_path):
    """The template route (ids from the decoded request) rebuilds exactly what the processor sends."""
    pytest.importorskip("mistral_common")
    llm = load_model(str(BUILDERS["voxtral"](tmp_path / "voxtral")))
    clip = audio(31.5, seed=8)  # two 30-s windows
    ours = llm._inputs([clip])
    theirs = llm.processor.apply_transcription_request(clip, model_id="x", language="en", sampling_rate=16000, format="wav")
    assert ours["input_ids"].tolist() == theirs["input_ids"].tolist()
    # The processor round-trips the clip through 16-bit WAV; ours does not (1/32768 of full scale).
    torch.testing.assert_close(ours["input_features"], theirs["input_features"], atol=2e-3, rtol=0)


def test_bfloat16_compute_type_runs_and_is_in_the_hash(tmp_path):
    folder = BUILDERS["qwen2_audio"](tmp_path / "q2")
    half = load_model(str(folder), compute_type="bfloat16", max_new_tokens=3)
    assert half.model.dtype == torch.bfloat16
    assert half.config_hash != load_model(str(folder), max_new_tokens=3).config_hash
    (s,) = half.score(audio(0.5, seed=9), ["the cat"])
    assert np.isfinite(s.total) and s.token_ids[-1] == half.end_id
    assert isinstance(half.transcribe([audio(0.5, seed=9)])[0], str)


def _corpus(tmp_path):
    import json

    import soundfile as sf

    (tmp_path / "audio").mkdir()
    sf.write(tmp_path / "audio" / "u0.flac", audio(0.7, seed=11), 16000)
    (tmp_path / "manifest.jsonl").write_text(json.dumps({"audio_filepath": "audio/u0.flac", "text": "the cat"}) + "\n")
    return tmp_path / "manifest.jsonl"


def test_cli_transcribes_with_a_speech_llm_and_refuses_a_prompt_without_audio(tmp_path, capsys):
    from asraudit.cli import main

    folder = BUILDERS["qwen2_audio"](tmp_path / "q2")
    corpus = _corpus(tmp_path)
    capsys.readouterr()  # the checkpoint writer's progress bars
    code = main(["transcribe", "--model", str(folder), "--corpus", str(corpus), "--out", str(tmp_path / "bad"),
                 "--option", "prompt=Transcribe please.", "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "does not contain the audio slot {audio}" in err[0]
    assert not list((tmp_path / "bad").glob("*.jsonl"))
    code = main(["transcribe", "--model", str(folder), "--corpus", str(corpus), "--out", str(tmp_path / "ok"),
                 "--option", "max_new_tokens=3", "--option", "prompt=<|audio_bos|>{audio}<|audio_eos|>Say it:", "--no-progress"])
    assert code == 0
    assert len(list((tmp_path / "ok").glob("*.jsonl"))) == 1


def test_white_box_sites_only_where_encoder_rows_are_clips(llm):
    if llm.model.config.model_type == "qwen2_audio":
        assert llm.intervention_sites().projector is llm.model.model.multi_modal_projector
    elif llm.model.config.model_type == "granite_speech":  # a conformer over each clip, one row per clip too
        assert llm.intervention_sites().projector is llm.model.model.projector
    else:
        with pytest.raises(ValueError, match="white-box sites are mapped for qwen2_audio"):
            llm.intervention_sites()


def test_cached_prompt_scores_equal_one_plain_forward_per_candidate(llm):
    """The prompt cache copied over a batch gives what a single forward over prompt + candidate gives."""
    clip = audio(0.9, seed=12)
    candidates = ["the cat", "a quick brown fox jumps", ""]
    cached = llm.score(clip, candidates, batch_size=3)
    inputs = llm._inputs([clip])
    length = inputs["input_ids"].shape[1]
    for text, s in zip(candidates, cached):
        forced = torch.tensor([list(s.token_ids)], device=inputs["input_ids"].device)
        full = dict(inputs, input_ids=torch.cat([inputs["input_ids"], forced], 1))
        full["attention_mask"] = torch.ones_like(full["input_ids"])
        with torch.inference_mode():
            logprobs = torch.log_softmax(llm.model(**full).logits[0].float(), -1)
        plain = [logprobs[length - 1 + k, t].item() for k, t in enumerate(s.token_ids)]
        np.testing.assert_allclose(s.logprobs, plain, atol=1e-5, rtol=LOGPROB_RTOL)
