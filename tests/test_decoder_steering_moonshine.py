"""Decoder-site steering beyond Whisper: a model contrast on a white-box Moonshine.

The Whisper organism is a decoder-only fine-tune, and decoder-site steering
finds it as "organism minus clean model" in the decoder's residual stream.
The same recipe (``mechanism.decoder_steering``, over the model's
``intervention_sites``) runs here on a tiny Moonshine: ``trained_moonshine``
says "low" / "high" for low and high tones, and ``moonshine_organism`` is a
copy whose decoder alone was fine-tuned to say "low" for every tone (both in
conftest.py).  Checks that can fail: the contrast learned on high tones,
added to the clean model's decoder on held-out high tones, makes it say
"low"; random directions of the same norm per position do not; a planted
difference between two variants is learned back exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import encdec_tiny  # noqa: E402
from asraudit.mechanism.decoder_steering import DecoderSteerAdd, decoder_rows, learn_model_contrast  # noqa: E402
from asraudit.mechanism.steering import Direction  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402

POSITIONS = "each:3"  # "low" is three characters: one direction per decision position -1, 0, 1


def _tones(seed: int, band, n: int):
    rng = np.random.default_rng(seed)
    return [encdec_tiny.tone(rng, *band) for _ in range(n)]


@pytest.fixture(scope="module")
def clean(trained_moonshine):
    return load_model(f"whitebox:hf:{trained_moonshine}", max_new_tokens=6)


@pytest.fixture(scope="module")
def organism(moonshine_organism):
    return load_model(f"whitebox:hf:{moonshine_organism}", max_new_tokens=6)


def test_the_organism_says_low_where_the_clean_model_says_high(clean, organism):
    """The premise: the fine-tune changed the decoder's answer on high tones."""
    highs = _tones(2, encdec_tiny.HIGH, 6)
    assert organism.transcribe(highs) == ["low"] * 6 and clean.transcribe(highs) == ["high"] * 6


@pytest.mark.parametrize("layer", [0, 1])
def test_a_model_contrast_steers_the_clean_decoder_and_random_directions_of_equal_norm_do_not(clean, organism,
                                                                                              layer):
    """Bound: the contrast turns at least 8 of 10 held-out high tones into "low"; each of five random
    controls (each position's vector replaced by a random one of its norm) at most 2.  Seen at both
    layers: 10 of 10 against 0 of 10 for every seed."""
    learn = [(f"high-{i}", clip, "low") for i, clip in enumerate(_tones(5, encdec_tiny.HIGH, 8))]
    direction = learn_model_contrast(organism, clean, learn, layer, positions=POSITIONS)
    assert direction.provenance["site"] == "decoder" and direction.layer == layer
    held_out = _tones(7, encdec_tiny.HIGH, 10)
    steered = clean.variant(DecoderSteerAdd(direction=direction, alpha=1.0, layer=layer, positions=POSITIONS))
    assert steered.transcribe(held_out).count("low") >= 8
    for seed in range(5):
        control = direction.random_control(seed)
        np.testing.assert_allclose(np.linalg.norm(control.vector, axis=1), np.linalg.norm(direction.vector, axis=1),
                                   rtol=1e-5)
        randomised = clean.variant(DecoderSteerAdd(direction=control, alpha=1.0, layer=layer, positions=POSITIONS))
        assert randomised.transcribe(held_out).count("low") <= 2, seed


def test_a_planted_decoder_difference_is_learned_back(clean):
    """Add v at position -1 of decoder layer 1 in a variant; the contrast variant minus model is v
    (float32 activations: 1e-4 absolute on entries of order 1)."""
    (clip,) = _tones(8, encdec_tiny.LOW, 1)
    v = np.random.default_rng(0).standard_normal(clean.decoder_hidden_size)
    planted = Direction(v, (v / np.linalg.norm(v))[None], np.ones(1), 1)
    steered = clean.variant(DecoderSteerAdd(direction=planted, alpha=1.0, layer=1, positions="first"))
    shift = decoder_rows(steered, clip, 1, 3, "low") - decoder_rows(clean, clip, 1, 3, "low")
    np.testing.assert_allclose(shift[0], v, atol=1e-4)
    np.testing.assert_allclose(shift[1:], 0, atol=1e-4)  # later positions read -1 only from the next layer on
    learned = learn_model_contrast(steered, clean, [("c", clip, "low")], 1, positions="first")
    np.testing.assert_allclose(learned.vector, v, atol=1e-4)
