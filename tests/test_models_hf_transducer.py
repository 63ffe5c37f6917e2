"""Parakeet TDT and RNN-T through the user's path: tiny random models saved to a folder, loaded by the registry.

Random weights say nothing about accuracy; what these tests pin down:
the registry recognises each family from its config; greedy decoding agrees
with transformers' own ``generate``; the score of the greedy transcript (a
sum over every alignment) is at least the probability of the greedy
alignment, equals the enumeration of every alignment from the model's own
logits on a 4-frame clip, and for TDT equals transformers' TDT training loss;
the per-token terms add up; scores do not depend on which other
candidates are in the call; silence scores; long audio is cut into windows.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from asraudit.models.base import ScoringModel  # noqa: E402
from asraudit.models.hf_transducer import END_TOKEN, HFTransducer  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402
from asraudit.models.whisper_frontend import split_windows  # noqa: E402

from tolerances import LOGPROB_RTOL  # why relative: see tests/tolerances.py

CHARACTERS = list("abcdefghijklmnopqrstuvwxyz'")
MAX_FRAMES = 32  # encoder positions: windows of 32 x 1280 samples = 2.56 s


def tiny_tokenizer():
    """A SentencePiece-like unigram tokenizer over letters (Parakeet's tokenizers are unigram + metaspace)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    pieces = [("<unk>", 0.0), ("▁", -1.0)] + [(c, -2.0) for c in CHARACTERS] + [("▁" + c, -1.5) for c in "aeiost"]
    backend = Tokenizer(models.Unigram(pieces, unk_id=0))
    backend.pre_tokenizer = pre_tokenizers.Metaspace()
    backend.decoder = decoders.Metaspace()
    return transformers.ParakeetTokenizer(tokenizer_object=backend, unk_token="<unk>", pad_token="<unk>")


def save_tiny(folder, kind: str, initializer_range: float = 0.02, hidden_size: int = 16):
    tokenizer = tiny_tokenizer()
    vocab = len(tokenizer) + 1  # the blank is the joint's last output, outside the tokenizer
    encoder = transformers.ParakeetEncoderConfig(
        hidden_size=hidden_size, num_hidden_layers=2, num_attention_heads=2, intermediate_size=2 * hidden_size,
        subsampling_conv_channels=8, conv_kernel_size=3, max_position_embeddings=MAX_FRAMES, dropout=0.0, layerdrop=0.0, activation_dropout=0.0,
        attention_dropout=0.0, initializer_range=initializer_range,
    )
    common = dict(vocab_size=vocab, decoder_hidden_size=16, num_decoder_layers=1, encoder_config=encoder.to_dict(),
                  blank_token_id=vocab - 1, pad_token_id=vocab - 1, decoder_start_token_id=vocab - 1)
    torch.manual_seed(0)
    if kind == "tdt":
        model = transformers.ParakeetForTDT(transformers.ParakeetTDTConfig(durations=[0, 1, 2], **common))
    else:
        model = transformers.ParakeetForRNNT(transformers.ParakeetRNNTConfig(**common))
    with torch.no_grad():  # larger joint outputs than the default init, so that labels get emitted
        model.joint.head.weight.mul_(40.0)
        if kind == "tdt":
            # Rarely duration 0, as in trained TDT models: transformers' TDT generate has no cap on
            # labels per frame, so a random model looping on duration 0 would never end.  (A
            # positive bias would not do: that generate takes its next token as the argmax over
            # token *and* duration logits, and a duration column must not win it.)
            model.joint.head.bias[vocab] -= 8.0
            # A little more blank, so that some greedy alignments end on a blank landing exactly
            # on the last frame (complete lattice paths, which the score must bound).
            model.joint.head.bias[vocab - 1] += 0.02
        else:
            # An untrained prediction network repeats a label until the per-frame cap forces a
            # move; audio-driven joint outputs and more blank give alignments that end cleanly.
            model.encoder_projector.weight.mul_(30.0)
            model.joint.head.bias[vocab - 1] += 0.6
    model.save_pretrained(folder)
    processor = transformers.ParakeetProcessor(transformers.ParakeetFeatureExtractor(), tokenizer, decoder_type=kind)
    processor.save_pretrained(folder)
    return folder


def clips(n: int, seconds: float = 1.5, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    t = np.arange(int(16000 * seconds)) / 16000
    return [(0.3 * np.sin(2 * np.pi * (150 + 90 * i) * t) * (1 + np.sin(2 * np.pi * 3 * t))
             + 0.05 * rng.standard_normal(t.size)).astype(np.float32) for i in range(n)]


@pytest.fixture(scope="module", params=["tdt", "rnnt"])
def transducer(request, tmp_path_factory):
    folder = save_tiny(tmp_path_factory.mktemp(f"tiny-{request.param}"), request.param)
    return load_model(str(folder))


def test_registry_recognises_the_family(transducer):
    assert isinstance(transducer, HFTransducer) and isinstance(transducer, ScoringModel)
    assert transducer.is_tdt == (transducer.model.config.model_type == "parakeet_tdt")


def test_greedy_agrees_with_generate(transducer):
    audio = clips(3)
    ours = [ids for ids, _, _ in transducer.greedy_alignments(audio)]
    assert any(ours), "the tiny model emits nothing: the test would not compare labels"
    theirs = []
    for clip in audio:  # one at a time: transformers' batched transducer generate lets finished rows run on
        features = transducer.processor.feature_extractor([clip], sampling_rate=16000, return_tensors="pt", return_attention_mask=True)
        with torch.inference_mode():
            (row,) = transducer.model.generate(**features).sequences
        theirs.append([int(i) for i in row[1:] if int(i) != transducer.blank])
    assert ours == theirs


def test_score_of_greedy_transcript_bounds_its_alignment(transducer):
    audio = clips(6) + clips(2, seconds=1.1, seed=9)
    complete = 0
    for clip, (ids, path_logp, in_lattice) in zip(audio, transducer.greedy_alignments(audio)):
        ((per_label, end),) = transducer.label_logprobs(clip, [ids])
        total = per_label.sum() + end
        (scored,) = transducer.score(clip, [transducer._text(ids)])
        # The decoded text may tokenise differently (a random model starts words without "▁"),
        # so the text's score is checked for being finite and the labels' for the bound.
        assert np.isfinite(scored.total)
        if in_lattice:
            complete += 1
            # float32 network, float64 recursion: the path is one term of the sum.
            assert total >= path_logp - LOGPROB_RTOL * abs(path_logp) - 1e-6
    assert complete >= 1, "no greedy alignment was a complete lattice path: nothing was compared"


def _joint(transducer, clip, labels):
    """transformers' own forward: joint log-probs ``[T, U+1, V]`` (and durations) for ``labels``."""
    features = transducer.processor.feature_extractor([clip], sampling_rate=16000, return_tensors="pt", return_attention_mask=True)
    with torch.inference_mode():
        out = transducer.model(**features, decoder_input_ids=torch.tensor([[transducer.blank] + labels]))
    logits = out.logits[0].double()
    tokens = torch.log_softmax(logits[..., : transducer.vocab_size], -1).numpy()
    durations = torch.log_softmax(logits[..., transducer.vocab_size :], -1).numpy() if transducer.is_tdt else None
    return out, tokens, durations


def test_score_equals_enumeration_over_every_alignment(transducer):
    """On a clip of 4 encoder frames, every alignment of a 2-label text is enumerated from the model's own logits."""
    from test_models_transducer_forward import _enumerate

    clip = clips(1, seconds=0.3)[0]
    labels = [5, 9]
    ((per_label, end),) = transducer.label_logprobs(clip, [labels])
    _, tokens, durations = _joint(transducer, clip, labels)
    assert tokens.shape[0] == 4  # few enough frames to walk every path
    brute, _ = _enumerate("tdt" if transducer.is_tdt else "rnnt", tokens, durations, labels, transducer.blank,
                          transducer.durations)
    # float32 network (logits), float64 sums: relative 1e-5 covers the logits' rounding.
    assert per_label.sum() + end == pytest.approx(np.log(brute), rel=LOGPROB_RTOL)


def test_tdt_score_equals_the_training_loss(tmp_path_factory):
    """The TDT total equals transformers' TDT loss on the same logits (the RNN-T loss needs torchaudio)."""
    from transformers.loss.loss_tdt import tdt_loss

    transducer = load_model(str(save_tiny(tmp_path_factory.mktemp("tiny-tdt-loss"), "tdt")))
    (clip,) = clips(1)
    (scored,) = transducer.score(clip, ["a cat"])
    labels = list(scored.token_ids[:-1])
    out, _, _ = _joint(transducer, clip, labels)
    frames = int(out.pooler_output.shape[1])
    loss = tdt_loss(out.logits[..., : transducer.vocab_size], out.logits[..., transducer.vocab_size :],
                    torch.tensor([labels]), torch.tensor([frames]), torch.tensor([len(labels)]),
                    blank_token_id=transducer.blank, durations=transducer.durations, reduction="none")
    assert scored.total == pytest.approx(-float(loss[0]), rel=LOGPROB_RTOL, abs=1e-5)


def test_scores_are_batch_invariant_and_complete(transducer):
    (clip,) = clips(1, seed=3)
    candidates = ["a cat sat", "the cat", "", "it is"]
    together = transducer.score(clip, candidates)
    for text, joint in zip(candidates, together):
        (alone,) = transducer.score(clip, [text])
        assert alone.total == pytest.approx(joint.total, rel=LOGPROB_RTOL, abs=1e-6)
        assert joint.tokens[-1] == END_TOKEN
        assert sum(joint.logprobs) == pytest.approx(joint.total)
        assert all(v <= 1e-9 for v in joint.logprobs) and np.isfinite(joint.total)
        assert len(joint.offsets) == len(joint.tokens)
        covered = set()
        for start, end in joint.offsets[:-1]:
            assert 0 <= start <= end <= len(text)
            covered.update(range(start, end))
        assert covered == set(range(len(text)))


def test_silence_scores_and_transcribes(transducer):
    silence = np.zeros(16000, dtype=np.float32)
    (scored,) = transducer.score(silence, ["a cat"])
    assert np.isfinite(scored.total)
    assert isinstance(transducer.transcribe([silence])[0], str)


def test_transcripts_are_batch_invariant(transducer):
    audio = clips(3) + clips(1, seconds=0.7, seed=5)
    together = transducer.transcribe(audio)
    assert together == [transducer.transcribe([a])[0] for a in audio]


def test_long_audio_is_cut_at_the_encoder_length(transducer):
    window = transducer.window_samples
    assert window == MAX_FRAMES * 1280
    long = np.concatenate(clips(2, seconds=window / 16000))
    pieces = [t for t in transducer.transcribe(split_windows(long, window)) if t]
    assert transducer.transcribe([long]) == [" ".join(pieces)]
    with pytest.raises(ValueError, match="at most"):
        transducer.score(long, ["a"])

