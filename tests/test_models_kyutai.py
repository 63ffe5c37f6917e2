"""Kyutai STT through the user's path: a tiny random model saved to a folder, loaded by the registry.

Random weights say nothing about accuracy; what these tests pin down: the
registry recognises the family and the model does not claim to score (it
cannot exactly: see ``hf_kyutai``); its transcript is transformers' own
``generate`` + ``batch_decode`` on the same 24 kHz audio; transcripts do not
depend on the other clips in a batch (rows are cut back to their own
frames); long audio is cut at the model's positions; beam search is refused
in one line; `asraudit models` says transcribe yes, score no, and why.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from asraudit.audio.io import resample  # noqa: E402
from asraudit.cli import main  # noqa: E402
from asraudit.errors import InputError  # noqa: E402
from asraudit.models.base import ASRModel, ScoringModel  # noqa: E402
from asraudit.models.hf_kyutai import HFKyutaiSTT  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402

CHARACTERS = list("abcdefghijklmnopqrstuvwxyz'")
POSITIONS = 40  # text-stream positions: 39 frames of 80 ms = 3.12 s, less the 1.5 s of delay padding


def tiny_tokenizer():
    """A unigram tokenizer with Kyutai's special tokens (the text stream's padding token is id 3)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    pieces = [("<unk>", 0.0), ("<s>", 0.0), ("</s>", 0.0), ("<pad>", 0.0), ("▁", -1.0)]
    pieces += [(c, -2.0) for c in CHARACTERS] + [("▁" + c, -1.5) for c in "aeiost"]
    backend = Tokenizer(models.Unigram(pieces, unk_id=0))
    backend.pre_tokenizer = pre_tokenizers.Metaspace()
    backend.decoder = decoders.Metaspace()
    return transformers.PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="<unk>", bos_token="<s>",
                                                eos_token="</s>", pad_token="<pad>")


def save_tiny(folder):
    tokenizer = tiny_tokenizer()
    vocab = len(tokenizer)
    codec = transformers.MimiConfig(
        hidden_size=16, num_filters=4, num_residual_layers=1, codebook_size=16, codebook_dim=8, num_quantizers=2,
        vector_quantization_hidden_dimension=8, upsample_groups=16, num_hidden_layers=1, intermediate_size=32,
        num_attention_heads=2, num_key_value_heads=2, head_dim=8, num_semantic_quantizers=1,
    )
    config = transformers.KyutaiSpeechToTextConfig(
        vocab_size=vocab, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, ffn_dim=64, num_codebooks=2,
        codebook_vocab_size=17, audio_bos_token_id=16, audio_pad_token_id=vocab + 2 * 17, pad_token_id=3,
        bos_token_id=1, max_position_embeddings=POSITIONS, sliding_window=32, codec_config=codec.to_dict(),
    )
    torch.manual_seed(0)
    model = transformers.KyutaiSpeechToTextForConditionalGeneration(config)
    with torch.no_grad():  # the audio tokens louder than the text stream's own, so that the stream follows the audio
        model.lm_head.weight.mul_(4.0)
        model.model.embed_tokens.embed_tokens.weight[vocab:].mul_(30.0)
        # The random codec's codebooks start at zero (every frame would get code 0): spread them out.
        for name, buffer in model.codec_model.named_buffers():
            if name.endswith("codebook.embed_sum"):
                buffer.copy_(torch.randn(buffer.shape) * 0.05)
    model.save_pretrained(folder)
    extractor = transformers.KyutaiSpeechToTextFeatureExtractor(audio_delay_seconds=0.5, audio_silence_prefix_seconds=0.0)
    transformers.KyutaiSpeechToTextProcessor(extractor, tokenizer).save_pretrained(folder)
    return folder


def clips(n: int, seconds: float = 1.0, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    t = np.arange(int(16000 * seconds)) / 16000
    return [(0.3 * np.sin(2 * np.pi * (150 + 90 * i) * t) + 0.1 * rng.standard_normal(t.size)).astype(np.float32)
            for i in range(n)]


@pytest.fixture(scope="module")
def kyutai(tmp_path_factory):
    return load_model(str(save_tiny(tmp_path_factory.mktemp("tiny-kyutai"))))


def test_registry_recognises_the_family_and_it_does_not_claim_to_score(kyutai):
    assert isinstance(kyutai, HFKyutaiSTT) and isinstance(kyutai, ASRModel)
    assert not isinstance(kyutai, ScoringModel)


def test_transcript_is_transformers_own_generate(kyutai):
    texts = kyutai.transcribe(clips(3))
    assert len(set(texts)) == 3, "the tiny model's stream does not follow the audio: nothing was compared"
    for clip, ours in zip(clips(3), texts):
        features = kyutai.processor.feature_extractor(resample(clip, 16000, 24000), sampling_rate=24000, return_tensors="pt")
        with torch.inference_mode():
            tokens = kyutai.model.generate(**features)
        assert ours == kyutai.processor.batch_decode(tokens, skip_special_tokens=True)[0].strip()


def test_transcripts_are_batch_invariant(kyutai):
    audio = clips(2) + clips(1, seconds=0.4, seed=5) + clips(1, seconds=1.4, seed=7)
    streams = kyutai.stream(audio)
    for clip, stream in zip(audio, streams):
        (alone,) = kyutai.stream([clip])
        assert stream == alone
    assert len({len(s) for s in streams}) == 3  # rows of different lengths were cut back to their own frames


def test_long_audio_is_cut_at_the_model_positions(kyutai):
    window = kyutai.window_samples
    # 39 frames x 1920 samples at 24 kHz, less 1.5 s of delay padding, at 16 kHz
    assert window == ((POSITIONS - 1) * 1920 - 36000) * 16000 // 24000
    long = np.concatenate(clips(2, seconds=window / 16000))
    pieces = [t for t in kyutai.transcribe([long[:window], long[window:]]) if t]
    assert kyutai.transcribe([long]) == [" ".join(pieces)]


def test_beam_search_is_refused_in_one_line(kyutai):
    with pytest.raises(InputError, match="greedily"):
        HFKyutaiSTT(kyutai.source, beam_size=3)


def test_models_table_says_transcribe_yes_score_no_and_why(capsys):
    assert main(["models", "--json"]) == 0
    rows = {row["family"]: row for row in json.loads(capsys.readouterr().out)["families"]}
    row = rows["kyutai-stt"]
    assert row["model_types"] == ["kyutai_speech_to_text"] and row["transcribe"].startswith("greedy")
    assert row["score"].startswith("no: ") and "padding" in row["score"]
