"""Parakeet CTC, LASR and OmniASR CTC through the user's path: tiny random models saved to a folder.

Each family's tiny model is built from its config class with a tokenizer
made here, saved with ``save_pretrained`` and loaded by the registry.  The
checks: the per-token scores add up to the model's own CTC loss (summed
negative log-likelihood, computed by transformers from the same logits);
transcripts are the collapsed greedy path, as the model's ``generate`` gives;
scores do not depend on the other clips in a batch; offsets cover the text;
silence scores.
"""

from __future__ import annotations

import inspect
import itertools

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from asraudit.models.hf import CTC_END_TOKEN  # noqa: E402
from asraudit.models.hf_encoder_ctc import HFEncoderCTC  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402

from tolerances import LOGPROB_RTOL  # why relative: see tests/tolerances.py

LETTERS = list("abcdefghijklmnopqrstuvwxyz'")
PIECES = [("▁", -1.0)] + [(c, -2.0) for c in LETTERS] + [("▁" + c, -1.5) for c in "aeiost"]


def _unigram(specials):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    backend = Tokenizer(models.Unigram([(s, 0.0) for s in specials] + PIECES, unk_id=specials.index("<unk>")))
    backend.pre_tokenizer = pre_tokenizers.Metaspace()
    backend.decoder = decoders.Metaspace()
    return backend


def save_parakeet_ctc(folder):
    tokenizer = transformers.ParakeetTokenizer(tokenizer_object=_unigram(["<unk>"]), unk_token="<unk>")
    tokenizer.add_special_tokens({"pad_token": "<pad>"})  # the blank: the last id, as in NeMo's CTC heads
    encoder = transformers.ParakeetEncoderConfig(
        hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32, subsampling_conv_channels=8,
        conv_kernel_size=3, dropout=0.0, layerdrop=0.0, activation_dropout=0.0, attention_dropout=0.0,
    )
    config = transformers.ParakeetCTCConfig(vocab_size=len(tokenizer), encoder_config=encoder.to_dict(),
                                            pad_token_id=tokenizer.pad_token_id, ctc_loss_reduction="sum")
    torch.manual_seed(0)
    _save(transformers.ParakeetForCTC(config), folder)
    transformers.ParakeetProcessor(transformers.ParakeetFeatureExtractor(), tokenizer, decoder_type="ctc").save_pretrained(folder)


def save_lasr_ctc(folder):
    specials = [("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)]
    tokenizer = transformers.LasrTokenizer(vocab=specials + PIECES, extra_ids=0)
    encoder = transformers.LasrEncoderConfig(
        hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32, subsampling_conv_channels=8,
        conv_kernel_size=3, dropout=0.0, layerdrop=0.0, activation_dropout=0.0, attention_dropout=0.0,
    )
    config = transformers.LasrCTCConfig(vocab_size=len(tokenizer), encoder_config=encoder.to_dict(), pad_token_id=0,
                                        ctc_loss_reduction="sum")
    torch.manual_seed(0)
    _save(transformers.LasrForCTC(config), folder)
    transformers.LasrProcessor(transformers.LasrFeatureExtractor(), tokenizer).save_pretrained(folder)


def save_omniasr_ctc(folder):
    tokenizer = transformers.ParakeetTokenizer(tokenizer_object=_unigram(["<s>", "<pad>", "</s>", "<unk>"]),
                                               unk_token="<unk>", pad_token="<pad>", bos_token="<s>", eos_token="</s>")
    audio = dict(model_type="omniasr_audio", hidden_size=16, conv_dim=(16, 16), conv_kernel=(10, 8), conv_stride=(5, 4),
                 num_attention_heads=2, num_hidden_layers=1, num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2,
                 intermediate_size=32, hidden_dropout=0.0, layerdrop=0.0, activation_dropout=0.0)
    config = transformers.OmniASRCTCConfig(vocab_size=len(tokenizer), audio_config=audio, blank_token_id=0,
                                           pad_token_id=1, ctc_loss_reduction="sum")
    torch.manual_seed(0)
    _save(transformers.OmniASRForCTC(config), folder)
    transformers.OmniASRCTCProcessor(transformers.OmniASRFeatureExtractor(), tokenizer).save_pretrained(folder)


def _save(model, folder):
    """Save with a sharpened CTC head: a random head's logits are nearly uniform, and argmax
    ties broken by float rounding would make greedy paths differ between equal computations."""
    with torch.no_grad():
        model.ctc_head.weight.mul_(200.0)
    model.save_pretrained(folder)


BUILDERS = {"parakeet_ctc": save_parakeet_ctc, "lasr_ctc": save_lasr_ctc, "omniasr_ctc": save_omniasr_ctc}


def clips(n: int, seconds: float = 1.0, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [(0.2 * rng.standard_normal(int(16000 * seconds * (1 + 0.3 * i)))).astype(np.float32) for i in range(n)]


@pytest.fixture(scope="module", params=sorted(BUILDERS))
def ctc(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(request.param)
    BUILDERS[request.param](folder)
    return load_model(str(folder))


def test_registry_picks_the_encoder_ctc_class(ctc):
    assert isinstance(ctc, HFEncoderCTC)


def test_scores_add_up_to_the_models_ctc_loss(ctc):
    (clip,) = clips(1)
    text = "a cat"
    (scored,) = ctc.score(clip, [text])
    labels = torch.tensor([list(scored.token_ids[:-1])])
    batch = ctc.processor.feature_extractor([clip], sampling_rate=16000, return_tensors="pt", return_attention_mask=True)
    inputs = {k: v for k, v in batch.items() if k in ctc._accepted}
    with torch.inference_mode():
        loss = float(ctc.model(**inputs, labels=labels).loss)  # summed CTC negative log-likelihood
    assert scored.total == pytest.approx(-loss, rel=LOGPROB_RTOL, abs=1e-4)
    assert scored.tokens[-1] == CTC_END_TOKEN and sum(scored.logprobs) == pytest.approx(scored.total)


def test_transcripts_are_the_collapsed_greedy_path_and_batch_invariant(ctc):
    audio = clips(3)
    together = ctc.transcribe(audio)
    alone = [ctc.transcribe([a])[0] for a in audio]
    assert together == alone
    no_grouping = {"group_tokens": False} if "group_tokens" in inspect.signature(ctc.tokenizer._decode).parameters else {}
    emitted = 0
    for clip, text in zip(audio, alone):
        (lp,) = ctc._log_probs([clip])
        path = [int(k) for k, _ in itertools.groupby(lp.argmax(-1)) if int(k) != ctc.blank]
        emitted += len(path)
        assert text == ctc.tokenizer.decode(path, skip_special_tokens=True, **no_grouping).strip()
    assert emitted, "every greedy path is blank: the comparison would be empty"
    for clip, text in zip(audio, alone):  # the model's own greedy CTC decoding agrees
        batch = ctc.processor.feature_extractor([clip], sampling_rate=16000, return_tensors="pt", return_attention_mask=True)
        with torch.inference_mode():
            sequences = ctc.model.generate(**{k: v for k, v in batch.items() if k in ctc._accepted})
        assert text == ctc.processor.batch_decode(sequences, skip_special_tokens=True)[0].strip()
    (short_alone,) = ctc._log_probs([audio[0]])
    short_batched = ctc._log_probs(audio)[0]
    np.testing.assert_allclose(short_batched, short_alone, rtol=1e-4, atol=1e-4)


def test_offsets_cover_the_text_and_silence_scores(ctc):
    silence = np.zeros(16000, dtype=np.float32)
    for text in ["a cat sat", "it's"]:
        (scored,) = ctc.score(silence, [text])
        assert np.isfinite(scored.total)
        covered = set()
        for start, end in scored.offsets[:-1]:
            assert 0 <= start <= end <= len(text)
            covered.update(range(start, end))
        assert covered >= {i for i, ch in enumerate(text) if ch != " "}
