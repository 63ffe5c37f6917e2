"""The speech model types transformers holds that no named asraudit family covered: each proven or refused.

transformers lists a model type as a speech seq2seq or CTC model by its head,
and asraudit's generic runners (``speech-seq2seq``, ``ctc``) take any type so
listed that no family names.  A sweep of those types (and of the audio-capable
chat models a user may point asraudit at) found:

* ``speech-encoder-decoder`` (a wav2vec2-style encoder with any text decoder)
  runs correctly through the generic seq2seq runner: proven here;
* ``wav2vec2-bert`` failed in the generic CTC runner (its extractor returns
  ``input_features``, not ``input_values``): it is now the ``wav2vec2-bert-ctc``
  family on ``HFEncoderCTC``, proven here;
* every other type is refused by name (``families.UNSUPPORTED``) in one line,
  from its config alone, before any weights load: text-to-speech and music
  models (no transcripts to audit) and recognisers asraudit cannot run
  honestly yet.

A last test keeps the sweep honest: any type transformers adds to those
mappings later fails it until it is proven or refused.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from asraudit.errors import InputError  # noqa: E402
from asraudit.models.families import FAMILIES, UNSUPPORTED, family_for  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402

from speech_llm_fixtures import audio, bpe_tokenizer  # noqa: E402
from tolerances import LOGPROB_RTOL  # noqa: E402

# Types the generic runners run, each proven by a test below.
PROVEN_GENERIC = {"speech-encoder-decoder": "speech-seq2seq"}

CLIPS = (audio(1.0, 0), audio(0.6, 1))
LETTERS = "abcdefghijklmnopqrstuvwxyz'"


def _ctc_tokenizer(folder):
    vocab = {"<pad>": 0, "<s>": 1, "</s>": 2, "<unk>": 3, "|": 4, **{c: i + 5 for i, c in enumerate(LETTERS)}}
    path = folder.parent / f"{folder.name}-vocab.json"
    path.write_text(json.dumps(vocab))
    return transformers.Wav2Vec2CTCTokenizer(str(path))


@pytest.fixture(scope="module")
def w2v_bert(tmp_path_factory):
    """A tiny Wav2Vec2-BERT CTC model with its processor (SeamlessM4T log-mel features, a letter vocabulary)."""
    folder = tmp_path_factory.mktemp("w2v_bert") / "model"
    tokenizer = _ctc_tokenizer(folder)
    config = transformers.Wav2Vec2BertConfig(
        vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
        output_hidden_size=16, feature_projection_input_dim=160, conv_depthwise_kernel_size=3, pad_token_id=0,
        position_embeddings_type="relative_key", left_max_position_embeddings=8, right_max_position_embeddings=8,
        ctc_loss_reduction="sum",
    )
    torch.manual_seed(0)
    model = transformers.Wav2Vec2BertForCTC(config).eval()
    model.save_pretrained(folder)
    processor = transformers.Wav2Vec2BertProcessor(feature_extractor=transformers.SeamlessM4TFeatureExtractor(),
                                                   tokenizer=tokenizer)
    processor.save_pretrained(folder)
    return folder, model, processor


@pytest.fixture(scope="module")
def speech_encoder_decoder(tmp_path_factory):
    """A tiny SpeechEncoderDecoderModel: a wav2vec2 encoder and a BERT decoder with cross-attention, a BPE tokenizer."""
    folder = tmp_path_factory.mktemp("sed") / "model"
    tokenizer = bpe_tokenizer(["<pad>", "<s>", "</s>"], pad_token="<pad>", bos_token="<s>", eos_token="</s>")
    pad, bos, eos = (tokenizer.convert_tokens_to_ids(t) for t in ("<pad>", "<s>", "</s>"))
    encoder = transformers.Wav2Vec2Config(
        hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32, conv_dim=(8, 8),
        conv_stride=(5, 4), conv_kernel=(10, 4), num_conv_pos_embeddings=4, num_conv_pos_embedding_groups=2,
        feat_extract_norm="layer",
    )
    decoder = transformers.BertConfig(
        vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
        is_decoder=True, add_cross_attention=True, pad_token_id=pad, bos_token_id=bos, eos_token_id=eos,
    )
    config = transformers.SpeechEncoderDecoderConfig.from_encoder_decoder_configs(encoder, decoder)
    config.decoder_start_token_id, config.pad_token_id, config.eos_token_id = bos, pad, eos
    torch.manual_seed(0)
    model = transformers.SpeechEncoderDecoderModel(config=config).eval()
    model.generation_config.update(decoder_start_token_id=bos, eos_token_id=eos, pad_token_id=pad)
    model.save_pretrained(folder)
    processor = transformers.Wav2Vec2Processor(
        feature_extractor=transformers.Wav2Vec2FeatureExtractor(return_attention_mask=True), tokenizer=tokenizer,
    )
    processor.save_pretrained(folder)
    return folder, model, processor


# -- wav2vec2-bert: the wav2vec2-bert-ctc family ------------------------------------------------------


def test_wav2vec2_bert_is_its_family_and_transcribes_as_the_models_own_greedy_decode(w2v_bert):
    folder, model, processor = w2v_bert
    assert family_for(model.config, str(folder)).name == "wav2vec2-bert-ctc"
    asr = load_model(str(folder))
    expected = []
    for clip in CLIPS:  # each clip alone, unpadded: the model's own forward, its greedy path collapsed, blanks out
        features = processor(audio=clip, sampling_rate=16_000, return_tensors="pt")
        with torch.inference_mode():
            path = model(**features).logits[0].argmax(-1).tolist()
        # (The tokenizer's own grouping drops <s> before merging repeats, so "x <s> x" would read "x": random
        # weights emit such tokens, a trained model does not; the collapse is done on the path, as CTC defines it.)
        ids = [k for k, _ in itertools.groupby(path) if k != model.config.pad_token_id]
        expected.append(processor.tokenizer.decode(ids, skip_special_tokens=True, group_tokens=False).strip())
    assert any(expected)
    assert asr.transcribe(list(CLIPS)) == expected  # batched (padded) = each alone
    assert [asr.transcribe([c])[0] for c in CLIPS] == expected


def test_wav2vec2_bert_score_is_the_models_own_ctc_likelihood(w2v_bert):
    folder, model, processor = w2v_bert
    asr = load_model(str(folder))
    candidates = ["hello world", "abc", asr.transcribe([CLIPS[0]])[0] or "a"]
    features = processor(audio=CLIPS[0], sampling_rate=16_000, return_tensors="pt")
    for scored in asr.score(CLIPS[0], candidates):
        labels = torch.tensor([processor.tokenizer(scored.text, add_special_tokens=False)["input_ids"]])
        with torch.inference_mode():
            loss = model(**features, labels=labels).loss  # summed CTC negative log-likelihood
        assert sum(scored.logprobs) == pytest.approx(-float(loss), rel=LOGPROB_RTOL)
        assert scored.offsets[-1] == (len(scored.text), len(scored.text))


def test_a_wav2vec2_bert_folder_without_its_processor_is_one_line(w2v_bert, tmp_path):
    import shutil

    folder = tmp_path / "weights-only"
    folder.mkdir()
    for name in ("config.json", "model.safetensors"):
        shutil.copy(w2v_bert[0] / name, folder / name)
    with pytest.raises(InputError, match="cannot load its processor") as raised:
        load_model(str(folder))
    assert len(str(raised.value).splitlines()) == 1 and str(folder) in str(raised.value)


# -- speech-encoder-decoder: the generic speech-seq2seq runner -----------------------------------------


def test_speech_encoder_decoder_transcribes_as_its_own_generate(speech_encoder_decoder):
    folder, model, processor = speech_encoder_decoder
    assert family_for(model.config, str(folder)).name == "speech-seq2seq"
    asr = load_model(str(folder), max_new_tokens=12)
    expected = []
    for clip in CLIPS:
        features = processor(audio=clip, sampling_rate=16_000, return_tensors="pt", return_attention_mask=True)
        with torch.inference_mode():
            ids = model.generate(**features, max_new_tokens=12, do_sample=False, num_beams=1)
        expected.append(processor.tokenizer.decode(ids[0], skip_special_tokens=True).strip())
    assert any(expected)
    assert asr.transcribe(list(CLIPS)) == expected
    assert [asr.transcribe([c])[0] for c in CLIPS] == expected


def test_speech_encoder_decoder_score_is_its_teacher_forced_log_probabilities(speech_encoder_decoder):
    folder, model, processor = speech_encoder_decoder
    asr = load_model(str(folder), max_new_tokens=12)
    tokenizer, start, eos = processor.tokenizer, model.config.decoder_start_token_id, model.config.eos_token_id
    features = processor(audio=CLIPS[0], sampling_rate=16_000, return_tensors="pt", return_attention_mask=True)
    for scored in asr.score(CLIPS[0], ["hello world", "the cat"]):
        ids = tokenizer(scored.text, add_special_tokens=False)["input_ids"] + [eos]
        with torch.inference_mode():
            logits = model(**features, decoder_input_ids=torch.tensor([[start] + ids[:-1]])).logits[0]
        reference = torch.log_softmax(logits.double(), -1)[torch.arange(len(ids)), torch.tensor(ids)]
        assert list(scored.token_ids) == ids
        assert np.allclose(scored.logprobs, reference.numpy(), rtol=LOGPROB_RTOL, atol=1e-6)


# -- refused by name --------------------------------------------------------------------------------

REFUSED = [
    ("dia", lambda: transformers.DiaConfig(), "a text-to-speech model"),
    ("vibevoice", lambda: transformers.VibeVoiceConfig(), "a text-to-speech model"),
    ("pop2piano", lambda: transformers.Pop2PianoConfig(), "a music model"),
    ("speecht5", lambda: transformers.SpeechT5Config(), "text-to-speech, speech-to-speech and speech-to-text"),
    ("omniasr", lambda: transformers.OmniASRConfig(), "LLM variant"),
    ("voxtral_realtime", lambda: transformers.VoxtralRealtimeConfig(), "streaming Voxtral"),
    ("granite_speech5_ctc", lambda: transformers.GraniteSpeech5CTCConfig(), "needs torchaudio"),
    ("gemma3n", lambda: transformers.Gemma3nConfig(), "audio-capable multimodal chat model"),
    ("qwen2_5_omni", lambda: transformers.Qwen2_5OmniConfig(), "audio-capable multimodal chat model"),
    ("qwen3_omni_moe", lambda: transformers.Qwen3OmniMoeConfig(), "audio-capable multimodal chat model"),
]


@pytest.mark.parametrize("model_type, make_config, reason", REFUSED, ids=[r[0] for r in REFUSED])
def test_a_type_no_family_runs_is_refused_by_name_from_its_config(model_type, make_config, reason, tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    config = make_config()
    assert config.model_type == model_type
    config.save_pretrained(folder)  # the config alone: the refusal comes before any weights are read
    with pytest.raises(InputError, match=f"is a {model_type} model, which asraudit cannot run: .*{reason}") as raised:
        load_model(str(folder))
    assert len(str(raised.value).splitlines()) == 1 and str(folder) in str(raised.value)


@pytest.mark.parametrize("model_type, make_config, reason", [REFUSED[0], REFUSED[5]], ids=["dia", "voxtral_realtime"])
def test_transcribe_on_a_refused_type_is_one_line_and_exit_2(model_type, make_config, reason, tmp_path, capsys):
    import soundfile as sf

    from asraudit.cli import main

    folder = tmp_path / "model"
    folder.mkdir()
    make_config().save_pretrained(folder)
    sf.write(tmp_path / "a.wav", CLIPS[0], 16_000)
    (tmp_path / "corpus.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "hello"}) + "\n")
    capsys.readouterr()
    code = main(["transcribe", "--model", str(folder), "--corpus", str(tmp_path / "corpus.jsonl"),
                 "--out", str(tmp_path / "out"), "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert f"is a {model_type} model, which asraudit cannot run" in err and reason in err


def test_every_speech_seq2seq_and_ctc_type_in_transformers_is_a_family_proven_generic_or_refused():
    from transformers.models.auto import modeling_auto

    named = {t for f in FAMILIES for t in f.model_types}
    listed = set(modeling_auto.MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING_NAMES) | set(modeling_auto.MODEL_FOR_CTC_MAPPING_NAMES)
    assert listed - named - set(UNSUPPORTED) - set(PROVEN_GENERIC) == set()
    assert not named & set(UNSUPPORTED)
