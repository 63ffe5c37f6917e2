"""Kyutai STT through the user's path: a tiny random model saved to a folder, loaded by the registry.

Random weights say nothing about accuracy; what these tests pin down: the
registry recognises the family as a scoring model; its transcript is
transformers' own ``generate`` + ``batch_decode`` on the same 24 kHz audio;
transcripts do not depend on the other clips in a batch (rows are cut back
to their own frames); long audio is cut at the model's positions; beam
search is refused in one line; `asraudit models` says transcribe and score.

The score is a certified marginal over the text's placements
(``kyutai_marginal``): the unpruned search equals brute-force enumeration of
every placement, each scored by its own full forward pass; a capped search
brackets it (L <= p <= U); the greedy stream's probability is generate's own
and at most its text's marginal; terms add up, end with ``<end>``, offsets
cover the text, scores do not depend on the other candidates, λ runs on
silence; a clip whose bounds do not close under the cap is refused.  The
random model spreads its mass over the whole vocabulary, so its bounds
close only when the search prunes (almost) nothing: the scored texts fill
(nearly) every frame of a short clip.  That the bound closes quickly on a
*confident* model cannot be shown with random weights and is not claimed.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from asraudit.audio.io import resample  # noqa: E402
from asraudit.cli import main  # noqa: E402
from asraudit.errors import InputError  # noqa: E402
from asraudit.models.base import ASRModel, ScoringModel  # noqa: E402
from asraudit.models.hf_kyutai import END_TOKEN, HFKyutaiSTT  # noqa: E402
from asraudit.models.kyutai_marginal import BoundNotClosed, search  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402
from asraudit.probes.lift import audio_lift  # noqa: E402
from asraudit.models.whisper_frontend import split_windows  # noqa: E402

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


def test_registry_recognises_the_family_as_a_scoring_model(kyutai):
    assert isinstance(kyutai, HFKyutaiSTT) and isinstance(kyutai, ASRModel) and isinstance(kyutai, ScoringModel)
    assert kyutai.blanks == (0, 1, 2, 3)  # <unk> (Kyutai's end-of-padding), <s>, </s>, <pad>: what transcripts strip


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
    pieces = [t for t in kyutai.transcribe(split_windows(long, window)) if t]
    assert kyutai.transcribe([long]) == [" ".join(pieces)]


def test_beam_search_is_refused_in_one_line(kyutai):
    with pytest.raises(InputError, match="greedily"):
        HFKyutaiSTT(kyutai.source, beam_size=3)


def test_models_table_says_transcribe_and_score(capsys):
    assert main(["models", "--json"]) == 0
    rows = {row["family"]: row for row in json.loads(capsys.readouterr().out)["families"]}
    row = rows["kyutai-stt"]
    assert row["model_types"] == ["kyutai_speech_to_text"] and row["transcribe"].startswith("greedy")
    assert row["score"].startswith("certified") and "placements" in row["score"]


# --- scoring: a certified marginal over placements (models/kyutai_marginal.py) -----------------------

# A 0.2-s clip is 21 stream frames (its 4,800 samples at 24 kHz and 1.5 s of delay padding, 1,920 a frame):
# texts of 20 pieces have 21 x 4 placements (one frame is a blank, one of four blank ids), 21 pieces one.
SHORT = 0.2
FULL_TEXTS = ["abcdefghijklmnopqrst", "the quick brown foxy"]  # 20 pieces each (see the tokenizer)
# Log-probabilities of one stream from the KV-cached frame-by-frame forwards and from one full forward
# differ by float32 rounding only (~1e-6 per position of ~-4 nats); 21 positions stay far below 1e-4 nats,
# i.e. probabilities agree within a relative 1e-4 on any CPU.
LOG_ATOL = 1e-4


def stream_logprobs(model, codes, streams) -> np.ndarray:
    """log p of each whole stream (one token per frame) by one full teacher-forced forward pass."""
    config = model.model.config
    streams = torch.tensor(streams)
    n = streams.shape[1]
    text = torch.cat([torch.full((len(streams), 1), config.bos_token_id), streams[:, :-1]], dim=1)
    audio = torch.cat([torch.full((1, codes.shape[1]), config.audio_bos_token_id), codes[: n - 1]])
    ids = torch.cat([text[..., None], audio.expand(len(streams), -1, -1)], dim=2)
    with torch.inference_mode():
        logprobs = torch.log_softmax(model.model(input_ids=ids).logits.double(), dim=-1)
    return logprobs.gather(2, streams[..., None])[..., 0].sum(1).numpy()


def placements(pieces, blanks, n_frames):
    """Every stream of ``n_frames`` tokens whose non-blank tokens are ``pieces``."""
    for slots in itertools.combinations(range(n_frames), len(pieces)):
        for fill in itertools.product(blanks, repeat=n_frames - len(pieces)):
            stream, rest, own = [], iter(fill), iter(pieces)
            for t in range(n_frames):
                stream.append(next(own) if t in slots else next(rest))
            yield stream


def prefix_mass(model, codes, pieces, k, n_frames) -> float:
    """log P(A_k) by enumeration: the first k non-blank tokens are the first k pieces, the k-th at a frame
    that leaves room for the rest; each prefix (up to that frame) scored by its own full forward pass."""
    total = -np.inf
    for t in range(k - 1, n_frames - (len(pieces) - k)):
        prefixes = [p + [pieces[k - 1]] for p in placements(pieces[: k - 1], model.blanks, t)]
        total = np.logaddexp(total, np.logaddexp.reduce(stream_logprobs(model, codes, prefixes)))
    return float(total)


def searched(model, codes, pieces, n_frames, beam):
    first, step = model._stream_runner(codes)
    with torch.inference_mode():
        return search(first, step, pieces, model.blanks, n_frames, beam)


def test_unpruned_search_equals_brute_force_and_a_capped_one_brackets_it(kyutai):
    codes, _ = kyutai._codes(clips(1, seconds=SHORT)[0])
    pieces, n_frames = [5, 12], 6  # 15 slot choices x 4^4 blank fillings = 3,840 placements
    streams = list(placements(pieces, kyutai.blanks, n_frames))
    exact = float(np.logaddexp.reduce(stream_logprobs(kyutai, codes, streams)))
    full = searched(kyutai, codes, pieces, n_frames, beam=len(streams))
    assert full.log_upper == full.log_lower  # nothing pruned
    assert abs(full.log_lower - exact) < LOG_ATOL
    per_piece, end = full.terms()
    assert abs(sum(per_piece) + end - full.log_lower) < 1e-9
    for k in (1, 2):  # the prefix masses the per-piece terms are made of
        assert abs(full.log_prefix[k - 1] - prefix_mass(kyutai, codes, pieces, k, n_frames)) < LOG_ATOL
    capped = searched(kyutai, codes, pieces, n_frames, beam=3)
    assert capped.log_upper - capped.log_lower > 0.1  # it did prune
    assert capped.log_lower - LOG_ATOL <= exact <= capped.log_upper + LOG_ATOL


@pytest.fixture(params=[None, 3], ids=["one-pass", "windows-of-3"])
def audio_window(kyutai, request):
    """generate's codec encoding: one pass, or windows (``audio_window_size``), which give other codes."""
    config = kyutai.model.generation_config
    if request.param is not None:
        config.audio_window_size = request.param
    yield request.param
    if hasattr(config, "audio_window_size"):
        del config.audio_window_size


def test_greedy_stream_is_generates_own_and_at_most_its_texts_marginal(kyutai, audio_window):
    clip = clips(1, seconds=SHORT)[0]
    features = kyutai.processor.feature_extractor(resample(clip, 16000, 24000), sampling_rate=24000, return_tensors="pt")
    with torch.inference_mode():
        out = kyutai.model.generate(**features, do_sample=False, output_scores=True, return_dict_in_generate=True)
    codes, n_frames = kyutai._codes(clip)
    stream = out.sequences[0, 1 : 1 + n_frames].tolist()
    own = sum(float(torch.log_softmax(s[0].double(), -1)[t]) for s, t in zip(out.scores, stream))
    (one,) = stream_logprobs(kyutai, codes, [stream])
    assert abs(one - own) < LOG_ATOL  # our codes and positions are generate's
    pieces = [t for t in stream if t not in kyutai.blanks]
    assert len(pieces) >= n_frames - 3, "the greedy stream has too many blanks to score with random weights"
    ((per_piece, end),) = kyutai.label_logprobs(clip, [pieces])
    assert sum(per_piece) + end >= own - LOG_ATOL


def test_a_text_filling_every_frame_scores_its_one_placement(kyutai):
    clip = clips(1, seconds=SHORT)[0]
    codes, n_frames = kyutai._codes(clip)
    text = "abcdefghijklmnopqrstu"
    pieces, _ = kyutai._pieces(text)
    assert len(pieces) == n_frames == 21
    (scores,) = kyutai.score(clip, [text])
    (exact,) = stream_logprobs(kyutai, codes, [pieces])
    assert abs(scores.total - exact) < LOG_ATOL and abs(scores.logprobs[-1]) < 1e-9  # nothing after the last piece


def test_scores_add_up_end_with_end_cover_the_text_and_do_not_depend_on_the_batch(kyutai):
    clip = clips(1, seconds=SHORT)[0]
    together = kyutai.score(clip, FULL_TEXTS)
    for text, joint in zip(FULL_TEXTS, together):
        (alone,) = kyutai.score(clip, [text])
        np.testing.assert_allclose(joint.logprobs, alone.logprobs, atol=1e-9)
        assert joint.tokens[-1] == END_TOKEN and joint.token_ids[-1] == -1 and joint.offsets[-1] == (len(text), len(text))
        assert "".join(text[s:e] for s, e in joint.offsets[:-1]) == text
        assert len(joint.logprobs) == 21 and all(np.isfinite(joint.logprobs)) and all(v <= 1e-12 for v in joint.logprobs)
        assert abs(sum(joint.logprobs) - joint.total) < 1e-9
    # The 20-piece texts' marginals sum 84 placements each: check one against them, each by a full forward.
    codes, n_frames = kyutai._codes(clip)
    pieces, _ = kyutai._pieces(FULL_TEXTS[0])
    exact = float(np.logaddexp.reduce(stream_logprobs(kyutai, codes, list(placements(pieces, kyutai.blanks, n_frames)))))
    assert abs(together[0].total - exact) < LOG_ATOL


def test_lift_runs_on_silence(kyutai):
    clip = clips(1, seconds=SHORT)[0]
    text = FULL_TEXTS[1]
    (heard,) = kyutai.score(clip, [text])
    (silent,) = kyutai.score(np.zeros_like(clip), [text])
    assert np.isfinite(silent.total) and silent.total != heard.total
    assert np.isfinite(audio_lift(heard, silent, text.index("quick"), text.index("quick") + 5))


def test_an_unclosed_bound_is_refused_and_the_settings_enter_the_hash(kyutai):
    capped = HFKyutaiSTT(kyutai.source, score_beam=2, score_max_beam=4)
    with pytest.raises(BoundNotClosed, match=r"tiny-kyutai.*candidate 'ab'.*nats > tolerance 0.0001 at 4 hypotheses"):
        capped.score(clips(1, seconds=SHORT)[0], ["ab"])
    hashes = {kyutai.config_hash, capped.config_hash, HFKyutaiSTT(kyutai.source, score_tolerance=1e-3).config_hash}
    assert len(hashes) == 3
    with pytest.raises(InputError, match="score_max_beam"):
        HFKyutaiSTT(kyutai.source, score_beam=8, score_max_beam=4)
    with pytest.raises(ValueError, match="cannot score"):
        kyutai.score(np.zeros(kyutai.window_samples + 1, dtype=np.float32), ["a"])
