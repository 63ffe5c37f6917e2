"""Encoder-decoder families through transformers (Moonshine, Moonshine-Streaming, Canary,
Cohere ASR, Speech2Text), offline: tiny random-weight models saved to a folder.

Each family's folder (``tests/encdec_tiny.py``) is loaded the way a user's is,
``load_model(<folder>)``, and the checks can fail: the teacher-forced score
of a greedy transcript equals ``generate``'s own per-step log-softmax (so the
prompt, the target tokens and the end-of-text term are the model's), scores
do not depend on what else is in the batch, offsets cover the text, a silent
input scores, long audio is windowed at the family's window, and a window
beyond the model's positional table is refused.

Why 1e-4 absolute per sequence and LOGPROB_RTOL per token: both paths run the
same float32 weights on the same CPU, but ``generate`` decodes one token at a
time with a key/value cache while scoring runs one teacher-forced pass over
all positions (and over a padded batch), so the sums run in a different order
and block size: rounding differences of a few float32 steps per logit
(tests/tolerances.py), orders of magnitude below 1e-4 for ~10-token sequences.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import encdec_tiny  # noqa: E402
from asraudit.errors import InputError  # noqa: E402
from asraudit.models.families import family_for  # noqa: E402
from asraudit.models.hf import HFSeq2Seq  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402
from asraudit.models.whisper_frontend import split_windows  # noqa: E402

from tolerances import LOGPROB_RTOL  # why relative: see tests/tolerances.py

# family builder -> (family name in models/families.py, the prompt tokens its processor would build)
FAMILIES = {
    "moonshine": ("moonshine", ["<s>"]),
    "moonshine_streaming": ("moonshine-streaming", ["<s>"]),
    "canary": ("canary", ["<|startofcontext|>", "<|startoftranscript|>", "<|emo:undefined|>", "<|en|>", "<|en|>",
                          "<|pnc|>", "<|noitn|>", "<|notimestamp|>", "<|nodiarize|>"]),
    "cohere_asr": ("cohere-asr", None),  # None: the processor's get_decoder_prompt_ids
    "speech_to_text": ("speech2text", ["</s>"]),
}


def _audio(seconds: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (0.1 * rng.standard_normal(int(seconds * 16000))).astype(np.float32)


@pytest.fixture(scope="module", params=sorted(FAMILIES))
def family(request, tmp_path_factory):
    """(builder name, folder, loaded model) per family."""
    folder = getattr(encdec_tiny, request.param)(tmp_path_factory.mktemp(request.param))
    return request.param, folder, load_model(str(folder), max_new_tokens=8)


def _expected_prompt(name: str, model: HFSeq2Seq) -> list[int]:
    tokens = FAMILIES[name][1]
    if tokens is None:
        # generate() puts the start token (here the BOS, as no decoder start is configured) before a
        # prompt that lacks it; the scored prompt must be what generate feeds.
        return [model.model.config.bos_token_id] + list(model.processor.get_decoder_prompt_ids(language="en", punctuation=True))
    return model.tokenizer.convert_tokens_to_ids(tokens)


def test_the_folder_is_recognised_by_its_config_and_gets_its_familys_prompt(family):
    name, folder, model = family
    assert isinstance(model, HFSeq2Seq)
    assert family_for(model.model.config, str(folder)).name == FAMILIES[name][0]
    assert model.prompt_ids() == _expected_prompt(name, model)
    assert model.model_id == f"hf:{folder.resolve()}"


def _greedy_with_own_logprobs(model: HFSeq2Seq, audio: np.ndarray, steps: int = 6):
    """Greedy ids after the prompt (ending in end-of-text) and the raw model log-softmax of each."""
    eos = model._eos_id()
    specials = [i for i in model.tokenizer.all_special_ids if i != eos]
    prompt = model.prompt_ids()
    with torch.inference_mode():
        out = model.model.generate(
            **model._inputs([audio]), decoder_input_ids=torch.tensor([prompt]), do_sample=False, num_beams=1,
            max_new_tokens=steps, output_logits=True, return_dict_in_generate=True,
            # Text tokens only, at least one, and end-of-text last: processors act on the choice,
            # output_logits keeps the model's own unprocessed logits.
            suppress_tokens=specials, begin_suppress_tokens=[eos], forced_eos_token_id=eos,
        )
    generated = out.sequences[0, len(prompt):].tolist()
    own = [torch.log_softmax(step[0].float(), -1)[t].item() for step, t in zip(out.logits, generated)]
    return generated, own


def test_teacher_forced_score_of_the_greedy_transcript_equals_generates_own_logprobs(family):
    _, _, model = family
    audio = _audio(1.0)
    generated, own = _greedy_with_own_logprobs(model, audio)
    eos = model._eos_id()
    assert generated[-1] == eos and len(generated) >= 2
    text = model.tokenizer.decode(generated[:-1])
    (scores,) = model.score(audio, [text])
    assert list(scores.token_ids) == generated  # the character tokenizer re-encodes its own output exactly
    np.testing.assert_allclose(scores.logprobs, own, atol=1e-5, rtol=LOGPROB_RTOL)
    assert abs(scores.total - sum(own)) < 1e-4


def test_transcribe_decodes_after_the_familys_prompt(family):
    name, _, model = family
    audio = _audio(1.0, seed=2)
    with torch.inference_mode():
        ids = model.model.generate(**model._inputs([audio]), decoder_input_ids=torch.tensor([_expected_prompt(name, model)]),
                                   max_new_tokens=8, num_beams=1, do_sample=False)
    expected = model.tokenizer.decode(ids[0, len(model.prompt_ids()):], skip_special_tokens=True).strip()
    assert model.transcribe([audio]) == [expected]


def test_scores_do_not_depend_on_the_batch_and_end_with_end_of_text(family):
    _, _, model = family
    audio = _audio(1.3, seed=1)
    candidates = ["the cat sat", "a much longer candidate sentence here", "", "zz"]
    together = model.score(audio, candidates, batch_size=4)
    for text, joint in zip(candidates, together):
        (alone,) = model.score(audio, [text])
        np.testing.assert_allclose(joint.logprobs, alone.logprobs, atol=1e-5, rtol=LOGPROB_RTOL)
        assert joint.token_ids[-1] == model._eos_id() and joint.offsets[-1] == (len(text), len(text))
        assert "".join(text[s:e] for s, e in joint.offsets[:-1]) == text
        assert all(lp <= 1e-6 for lp in joint.logprobs)


def test_silence_scores(family):
    _, _, model = family
    (scores,) = model.score(np.zeros(16000, dtype=np.float32), ["a b"])
    assert len(scores.logprobs) == 4 and np.all(np.isfinite(scores.logprobs))


def test_batched_transcripts_equal_one_by_one_and_beam_search_runs(family):
    _, folder, model = family
    clips = [_audio(0.6, seed=3), _audio(1.4, seed=4), _audio(0.9, seed=5)]
    assert model.transcribe(clips) == [model.transcribe([c])[0] for c in clips]
    beam = load_model(str(folder), max_new_tokens=8, beam_size=2)
    assert beam.config_hash != model.config_hash
    assert all(isinstance(t, str) for t in beam.transcribe(clips[:2]))


def test_long_audio_is_windowed_at_the_window_length(family):
    _, folder, model = family
    windowed = load_model(str(folder), max_new_tokens=8, window_seconds=1.0)
    long = _audio(2.5, seed=6)
    pieces = [model.transcribe([w])[0] for w in split_windows(long, 16000)]
    assert len(pieces) == 3
    assert windowed.transcribe([long]) == [" ".join(p for p in pieces if p)]
    assert windowed.config_hash != model.config_hash


def test_a_window_beyond_the_models_positional_table_is_refused_before_any_audio(family):
    _, folder, model = family
    limit = model.recipe.hard_limit_seconds
    if limit is None:
        pytest.skip(f"{model.recipe.family} has rotary positions: no hard input limit")
    with pytest.raises(InputError, match="at most"):
        load_model(str(folder), window_seconds=limit + 1)
    with pytest.raises(ValueError, match="cannot score"):
        model.score(np.zeros(int((limit + 1) * 16000), dtype=np.float32), ["a"])


def test_max_new_tokens_beyond_the_decoders_positions_is_an_input_error(family):
    _, folder, _ = family
    with pytest.raises(InputError, match="max_new_tokens"):
        load_model(str(folder), max_new_tokens=10_000)


def test_a_multilingual_whisper_scores_after_its_language_and_task_tokens(tmp_path):
    """Whisper of any size stays on the same runner; a multilingual one forces <|en|><|transcribe|>."""
    folder = encdec_tiny.whisper_multilingual(tmp_path / "whisper-ml")
    model = load_model(str(folder), max_new_tokens=6)
    tok = model.tokenizer
    assert model.prompt_ids() == tok.convert_tokens_to_ids(
        ["<|startoftranscript|>", "<|en|>", "<|transcribe|>", "<|notimestamps|>"])
    assert family_for(model.model.config, str(folder)).name == "whisper"
    audio = _audio(1.0, seed=7)
    generated, own = _greedy_with_own_logprobs(model, audio, steps=5)
    (scores,) = model.score(audio, [tok.decode(generated[:-1])])
    # Whisper's scorer puts a space before the text (Whisper's convention), so compare from the text's own tokens.
    if list(scores.token_ids) != generated:
        pytest.skip("the leading-space convention re-tokenises this random transcript differently")
    np.testing.assert_allclose(scores.logprobs, own, atol=1e-5, rtol=LOGPROB_RTOL)
    assert model.transcribe([audio])[0] == model.transcribe([audio, _audio(2.0)])[0]


def test_canary_takes_its_prompt_from_the_processors_chat_template_when_the_folder_has_one(tmp_path):
    """Released Canary folders carry a chat template; the prompt is then the template's, not asraudit's
    copy of the NeMo format.  This template leaves out <|emo:undefined|>, so the two can be told apart."""
    folder = encdec_tiny.canary(tmp_path / "canary")
    processor = transformers.AutoProcessor.from_pretrained(folder)
    processor.chat_template = (
        "{% for message in messages %}{% for item in message['content'] %}{% if item['type'] == 'text' %}"
        "<|startofcontext|><|startoftranscript|>{{ '<|' + item['source_language'] + '|>' }}"
        "{{ '<|' + item['target_language'] + '|>' }}{{ '<|pnc|>' if item['punctuation'] else '<|nopnc|>' }}"
        "<|noitn|><|notimestamp|><|nodiarize|>{% endif %}{% endfor %}{% endfor %}")
    processor.save_pretrained(folder)
    tokens = ["<|startofcontext|>", "<|startoftranscript|>", "<|en|>", "<|en|>", "<|nopnc|>", "<|noitn|>",
              "<|notimestamp|>", "<|nodiarize|>"]
    model = load_model(str(folder), punctuation=False)
    assert model.prompt_ids() == model.tokenizer.convert_tokens_to_ids(tokens)
    assert model.config_hash != load_model(str(folder)).config_hash


def test_a_transformers_whisper_refuses_a_language_or_task_its_prompt_cannot_carry(tmp_path):
    """The prompt's tokens are looked up by name: an unknown code became the unknown token (<|endoftext|>), and an
    English-only Whisper ignored the options (fault case 78 for the CTranslate2 backend)."""
    folder = encdec_tiny.whisper_multilingual(tmp_path / "whisper-ml")
    model = load_model(str(folder), language="de", max_new_tokens=6)
    assert model.prompt_ids()[1] == model.tokenizer.convert_tokens_to_ids("<|de|>")
    with pytest.raises(InputError, match=r"option language 'fr' is not a language of this Whisper \(its codes: de, "
                                         r"en\); this backend does not detect the language"):
        load_model(str(folder), language="fr")
    with pytest.raises(InputError, match="option language 'auto' is not a language of this Whisper"):
        load_model(str(folder), language="auto")
    with pytest.raises(InputError, match="option task 'summarize': one of transcribe, translate"):
        load_model(str(folder), task="summarize")

