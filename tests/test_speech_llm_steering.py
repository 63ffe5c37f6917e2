"""Steering a speech LLM's audio encoder: a learned direction vs a random one of equal norm.

A diff-in-means direction is learned at one audio-encoder layer of a tiny
Qwen2-Audio from two input sets (noise with a 440 Hz tone = positive, noise
alone = negative).  Added to a held-out negative clip's encoder stream, it
must move the model's teacher-forced scores *toward* those of the same
clip with the tone; a random direction of the same norm (three seeds) must
not move them closer at all.  "Closer" is the mean absolute difference of
per-token log-probs over fixed candidates.

Why this and not "random changes nothing": in a random-weight model every
direction of that norm changes the output somewhat; what singles out the
learned one is that it changes it the way the positive inputs do.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from asraudit.mechanism.steering import Direction, direction_from_differences  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402
from asraudit.models.whitebox.interventions import Frames, SteerAdd  # noqa: E402

from speech_llm_fixtures import audio  # noqa: E402

SECONDS = 30.0
LAYER = 1
CANDIDATES = ["the cat sat on the mat", "hello world", "a quick brown fox"]
# The clips fill Qwen2-Audio's 30-s window, so Frames("all") pools audio
# frames only (shorter clips dilute the mean with padding frames).
# Observed with these seeds: the learned direction cuts the distance to the
# positive's scores to ~0.02-0.03 of the unsteered distance; random controls
# raise it to ~1.15-1.85.  The bounds leave wide room for other CPUs'
# rounding, which moves these distances by ~1e-6 relative.
LEARNED_AT_MOST = 0.25
RANDOM_AT_LEAST = 1.0


def _tone(seed: int) -> np.ndarray:
    t = np.arange(int(SECONDS * 16000)) / 16000
    return (audio(SECONDS, seed) + 0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)


@pytest.fixture(scope="module")
def model(tiny_qwen2_audio_folder):
    # A larger weight scale than transformers' default (conftest.py): a 16-wide random model at
    # std 0.02 barely hears its input, and steering needs a model that does.
    return load_model(str(tiny_qwen2_audio_folder), max_new_tokens=8)


@pytest.fixture(scope="module")
def direction(model) -> Direction:
    positives = [_tone(s) for s in range(4)]
    negatives = [audio(SECONDS, 10 + s) for s in range(4)]
    acts = model.encoder_activations(positives + negatives, [LAYER])[LAYER]
    pooled = acts.mean(axis=1)  # Frames("all"): every encoder frame, padding included
    vector, basis, spread = direction_from_differences(pooled[:4] - pooled[4:])
    return Direction(vector, basis, spread, LAYER)


def _logprobs(model, clip):
    return np.concatenate([s.logprobs for s in model.score(clip, CANDIDATES)])


def test_the_sites_are_the_audio_encoder_the_lm_and_the_projector(model):
    sites = model.intervention_sites()
    inner = model.model.model
    assert list(sites.encoder_layers) == list(inner.audio_tower.layers)
    assert list(sites.decoder_layers) == list(inner.language_model.layers)
    assert sites.projector is inner.multi_modal_projector
    assert sites.cross_attention == ()


def test_a_learned_direction_moves_scores_toward_the_positives_and_a_random_one_does_not(model, direction):
    steer = SteerAdd(direction=direction, alpha=1.0, layer=LAYER, frames=Frames("all"))
    steered = model.variant(steer)
    assert steered.model_id != model.model_id and steered.config_hash != model.config_hash
    controls = [model.variant(SteerAdd(direction=direction.random_control(seed), alpha=1.0, layer=LAYER, frames=Frames("all")))
                for seed in range(3)]
    for seed in (98, 99):
        negative, positive = audio(SECONDS, seed), _tone(seed)
        target = _logprobs(model, positive)
        base = np.abs(_logprobs(model, negative) - target).mean()
        learned = np.abs(_logprobs(steered, negative) - target).mean()
        assert learned <= LEARNED_AT_MOST * base, (learned, base)
        for control in controls:
            moved = np.abs(_logprobs(control, negative) - target).mean()
            assert moved >= RANDOM_AT_LEAST * base, (moved, base)
    # The intervention is a variant: the original model is untouched.
    np.testing.assert_array_equal(_logprobs(model, negative), _logprobs(model, negative))


def test_steering_reaches_generation_too(model, direction):
    """generate() runs under the same hooks: its first step equals the steered score's first term."""
    clip = audio(SECONDS, 98)
    steered = model.variant(SteerAdd(direction=direction, alpha=1.0, layer=LAYER, frames=Frames("all")))
    inputs = steered._inputs([clip])
    first_token = steered.encode(CANDIDATES[0])[0][0]
    with torch.inference_mode(), steered._installed(1, [clip]):
        out = steered.model.generate(**inputs, max_new_tokens=1, do_sample=False, output_logits=True, return_dict_in_generate=True)
    generated = torch.log_softmax(out.logits[0][0].float(), -1)[first_token].item()
    (scored,) = steered.score_ids(clip, [[first_token]])
    (plain,) = model.score_ids(clip, [[first_token]])
    assert abs(generated - scored[0]) <= 1e-5 * max(1.0, abs(scored[0]))
    assert abs(scored[0] - plain[0]) > 1e-3  # and the hook did change it
    assert isinstance(steered.transcribe([clip])[0], str)


def test_a_variants_encoder_activations_carry_its_steering(model, direction):
    clip = [audio(SECONDS, 97)]
    plain = model.encoder_activations(clip, [LAYER])[LAYER]
    steered = model.variant(SteerAdd(direction=direction, alpha=2.0, layer=LAYER, frames=Frames("all")))
    moved = steered.encoder_activations(clip, [-1 if LAYER == 1 else LAYER])[LAYER]
    # Every frame moved by exactly 2v (float32 addition: relative rounding of the activations only).
    np.testing.assert_allclose(moved - plain, np.broadcast_to(2.0 * direction.vector, plain.shape), rtol=0,
                               atol=1e-5 * max(1.0, float(np.abs(plain).max())))
