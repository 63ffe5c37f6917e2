"""SeamlessM4T and v2 speech-to-text through the user's path: tiny random models saved to a folder.

Each folder is loaded the way a user's is (``load_model(<folder>)``) and
runs through the encoder-decoder runner with the target-language token
forced after the decoder start (``__eng__``: transcription is translation
into the spoken language).  What can fail: the transcript is the model's own
``generate(tgt_lang="eng")``; the teacher-forced score of a text equals
``generate``'s own per-step log-softmax when ``generate`` is constrained to
that text's tokens (so the prompt, the targets and the end-of-text term are
the model's; constrained rather than free-running because Seamless's
SentencePiece tokenizer prepends a word marker, so a random model's free
output does not re-encode to the same ids); scores do not depend on the
batch; offsets cover the text; silence scores; batched transcripts equal one
by one; an unknown language is one line.

Tolerances as in test_models_encdec.py: the same float32 weights, a cached
step-by-step pass against one teacher-forced pass, so rounding only (1e-5 per
token plus LOGPROB_RTOL, 1e-4 per sequence).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from asraudit.errors import InputError  # noqa: E402
from asraudit.models.families import family_for  # noqa: E402
from asraudit.models.hf import HFSeq2Seq  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402

from tolerances import LOGPROB_RTOL  # why relative: see tests/tolerances.py

LANGUAGES = ["__eng__", "__fra__"]


def tiny_tokenizer():
    """Seamless's own tokenizer class over single letters (SentencePiece-style "▁" word marker)."""
    vocab = {token: i for i, token in enumerate(["<pad>", "<unk>", "<s>", "</s>"] + LANGUAGES)}
    for piece in ["▁"] + list("abcdefghijklmnopqrstuvwxyz"):
        vocab[piece] = len(vocab)
    return transformers.SeamlessM4TTokenizer(vocab=vocab, merges=[], additional_special_tokens=LANGUAGES)


def save_tiny(folder, v2: bool):
    tokenizer = tiny_tokenizer()
    config_class = transformers.SeamlessM4Tv2Config if v2 else transformers.SeamlessM4TConfig
    config = config_class(
        vocab_size=len(tokenizer), hidden_size=32, encoder_layers=1, decoder_layers=2, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, speech_encoder_layers=2,
        speech_encoder_attention_heads=2, speech_encoder_intermediate_size=64, num_conv_pos_embeddings=16,
        num_conv_pos_embedding_groups=2, adaptor_kernel_size=4, adaptor_stride=4, conv_depthwise_kernel_size=5,
        max_position_embeddings=256, pad_token_id=0, bos_token_id=2, eos_token_id=3, decoder_start_token_id=3,
        dropout=0.0, attention_dropout=0.0, encoder_layerdrop=0.0, decoder_layerdrop=0.0, speech_encoder_layerdrop=0.0,
        adaptor_dropout=0.0, t2u_encoder_layers=1, t2u_decoder_layers=1, t2u_encoder_attention_heads=2,
        t2u_decoder_attention_heads=2, t2u_encoder_ffn_dim=32, t2u_decoder_ffn_dim=32, unit_embed_dim=16,
        upsample_initial_channel=16, unit_hifi_gan_vocab_size=16, t2u_vocab_size=16,
    )
    torch.manual_seed(0)
    model = (transformers.SeamlessM4Tv2ForSpeechToText if v2 else transformers.SeamlessM4TForSpeechToText)(config)
    with torch.no_grad():  # louder cross-attention than the random init, so that the text follows the audio
        for name, weight in model.named_parameters():
            if ".cross_attention.v_proj.weight" in name or ".cross_attention.out_proj.weight" in name:
                weight.mul_(10.0)
    # What a real checkpoint's generation_config.json carries: generate(tgt_lang=...) reads it.
    model.generation_config.text_decoder_lang_to_code_id = {"eng": 4, "fra": 5}
    model.generation_config._from_model_config = False
    model.save_pretrained(folder)
    transformers.SeamlessM4TProcessor(transformers.SeamlessM4TFeatureExtractor(), tokenizer).save_pretrained(folder)
    return folder


def _audio(seconds: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (0.1 * rng.standard_normal(int(seconds * 16000))).astype(np.float32)


def _tone(hz: float, seconds: float) -> np.ndarray:
    t = np.arange(int(16000 * seconds)) / 16000
    return (0.3 * np.sin(2 * np.pi * hz * t) + 0.02 * np.random.default_rng(0).standard_normal(t.size)).astype(np.float32)


TONES = [_tone(200, 1.0), _tone(800, 0.6), _tone(2000, 1.4), _tone(4000, 0.9)]


@pytest.fixture(scope="module", params=["seamless_m4t", "seamless_m4t_v2"])
def seamless(request, tmp_path_factory):
    folder = save_tiny(tmp_path_factory.mktemp(request.param), v2=request.param.endswith("v2"))
    return request.param, folder, load_model(str(folder), max_new_tokens=8)


def test_the_folder_is_recognised_and_forces_the_target_language(seamless):
    model_type, folder, model = seamless
    assert isinstance(model, HFSeq2Seq)
    assert family_for(model.model.config, str(folder)).name == "seamless-m4t"
    assert model.recipe.family == model_type.replace("_", "-")
    assert model.prompt_ids() == model.tokenizer.convert_tokens_to_ids(["</s>", "__eng__"])
    french = load_model(str(folder), language="fra")
    assert french.prompt_ids()[-1] == model.tokenizer.convert_tokens_to_ids("__fra__")
    with pytest.raises(InputError, match="no target-language token for language 'de'"):
        load_model(str(folder), language="de")


def test_transcript_is_the_models_own_generate_with_tgt_lang(seamless):
    _, _, model = seamless
    texts = model.transcribe(TONES)
    assert len(set(texts)) >= 2, "the tiny model's transcript does not follow the audio: nothing was compared"
    for clip in TONES:
        with torch.inference_mode():
            ids = model.model.generate(**model._inputs([clip]), tgt_lang="eng", max_new_tokens=8, num_beams=1, do_sample=False)
        assert ids[0, :2].tolist() == model.prompt_ids()
        expected = model.tokenizer.decode(ids[0, 2:], skip_special_tokens=True).strip()
        assert model.transcribe([clip]) == [expected]


def _forced_generate_logprobs(model: HFSeq2Seq, audio: np.ndarray, targets: list[int]) -> list[float]:
    """``generate``'s own log-softmax at each step, constrained to emit ``targets`` (end-of-text last)."""
    prompt = model.prompt_ids()

    def allowed(batch_id, ids):
        step = ids.shape[-1] - len(prompt)
        return [targets[step]] if step < len(targets) else [model._eos_id()]

    with torch.inference_mode():
        out = model.model.generate(
            **model._inputs([audio]), decoder_input_ids=torch.tensor([prompt]), do_sample=False, num_beams=1,
            max_new_tokens=len(targets), output_logits=True, return_dict_in_generate=True,
            prefix_allowed_tokens_fn=allowed,
        )
    assert out.sequences[0, len(prompt):].tolist() == targets
    return [torch.log_softmax(step[0].float(), -1)[t].item() for step, t in zip(out.logits, targets)]


def test_teacher_forced_score_equals_generates_own_logprobs(seamless):
    _, _, model = seamless
    audio = _audio(1.0)
    for text in ["the cat sat", "zz"]:
        (scores,) = model.score(audio, [text])
        assert scores.token_ids[-1] == model._eos_id()
        own = _forced_generate_logprobs(model, audio, list(scores.token_ids))
        np.testing.assert_allclose(scores.logprobs, own, atol=1e-5, rtol=LOGPROB_RTOL)
        assert abs(scores.total - sum(own)) < 1e-4


def test_scores_do_not_depend_on_the_batch_and_offsets_cover_the_text(seamless):
    _, _, model = seamless
    audio = _audio(1.3, seed=1)
    candidates = ["the cat sat", "a much longer candidate sentence here", "", "zz"]
    together = model.score(audio, candidates, batch_size=4)
    for text, joint in zip(candidates, together):
        (alone,) = model.score(audio, [text])
        np.testing.assert_allclose(joint.logprobs, alone.logprobs, atol=1e-5, rtol=LOGPROB_RTOL)
        assert joint.offsets[-1] == (len(text), len(text)) and all(lp <= 1e-6 for lp in joint.logprobs)
        covered = set()
        for start, end in joint.offsets[:-1]:
            assert 0 <= start <= end <= len(text)
            covered.update(range(start, end))
        assert covered == set(range(len(text)))


def test_silence_scores_and_batched_transcripts_equal_one_by_one(seamless):
    _, folder, model = seamless
    (scores,) = model.score(np.zeros(16000, dtype=np.float32), ["a b"])
    assert np.all(np.isfinite(scores.logprobs))
    clips = TONES[1:] + [_audio(1.1, seed=4)]
    assert model.transcribe(clips) == [model.transcribe([c])[0] for c in clips]
    beam = load_model(str(folder), max_new_tokens=8, beam_size=2)
    assert beam.config_hash != model.config_hash and all(isinstance(t, str) for t in beam.transcribe(clips[:2]))
