"""White-box Parakeet: intervention sites, variants, and steering with a learned direction.

The tiny TDT here is wider (64) than the scoring tests' model, and its
weights are initialised at a larger scale, so that a random direction is
nearly orthogonal to a learned one (cosine ~ 1/8 in 64 dimensions) and the
layers' activations are not vanishingly small.

Steering is measured where it can be stated exactly: the readout of the last
encoder layer along the axis that separates the two input sets there.  A
diff-in-means direction learned at layer 0 from tones (A) against noise (B)
is added to held-out noise clips; the readout must move most of the way
from B's level to A's (at least ``LEARNED_MIN`` of the gap).  A random
direction of the same norm must move it by at most ``RANDOM_MAX`` of the
gap either way: it changes the activations as much, but not along the axis.
Observed on this model: learned 0.77-1.5 of the gap per clip (mean ~1.0);
random controls at most 0.33 in mean over the clips, 0.48 for one clip.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from asraudit.mechanism.steering import Direction  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402
from asraudit.models.whitebox.interventions import Frames, SteerAblate, SteerAdd  # noqa: E402

from test_models_hf_transducer import save_tiny  # noqa: E402

LEARNED_MIN = 0.6
RANDOM_MAX = 0.4
T = np.arange(16000) / 16000


def tone(freq: float) -> np.ndarray:
    return (0.4 * np.sin(2 * np.pi * freq * T)).astype(np.float32)


def noise(seed: int) -> np.ndarray:
    return (0.05 * np.random.default_rng(seed).standard_normal(T.size)).astype(np.float32)


@pytest.fixture(scope="module")
def parakeet(tmp_path_factory):
    folder = save_tiny(tmp_path_factory.mktemp("tiny-tdt-wide"), "tdt", initializer_range=0.3, hidden_size=64)
    return load_model(str(folder))


@pytest.fixture(scope="module")
def learned(parakeet):
    """(direction at layer 0, unit readout axis at the last layer, A's readout level) from 4 tones vs 4 noises."""
    positives, negatives = [tone(f) for f in (300, 330, 360, 390)], [noise(s) for s in range(4)]
    acts = parakeet.encoder_activations(positives + negatives, [0, -1])
    pooled = {layer: a.mean(axis=1) for layer, a in acts.items()}  # every frame: the clips are equally long
    last = max(pooled)
    vector = pooled[0][:4].mean(0) - pooled[0][4:].mean(0)
    axis = pooled[last][:4].mean(0) - pooled[last][4:].mean(0)
    axis /= np.linalg.norm(axis)
    direction = Direction(vector, (vector / np.linalg.norm(vector))[None], np.ones(1), layer=0)
    return direction, axis, float((pooled[last][:4] @ axis).mean())


def _readout(model, clips, axis):
    acts = model.encoder_activations(clips, [-1])
    (values,) = acts.values()
    return values.mean(axis=1) @ axis


def test_sites_are_the_conformer_blocks(parakeet):
    sites = parakeet.intervention_sites()
    assert list(sites.encoder_layers) == list(parakeet.model.encoder.layers) and len(sites.encoder_layers) == 2
    # The decoder site is the prediction network's output (test_models_hf_transducer_decoder_site.py); no cross-attention.
    assert len(sites.decoder_layers) == 1 and sites.cross_attention == ()
    with pytest.raises(ValueError, match="no cross-attention site"):
        sites.require("cross-attention")


def test_a_learned_direction_steers_and_a_random_one_does_not(parakeet, learned):
    direction, axis, level_a = learned
    held_out = [noise(s) for s in (20, 21, 22, 23)]
    base = _readout(parakeet, held_out, axis)
    gap = level_a - base
    assert np.all(gap > 0)

    steered = parakeet.variant(SteerAdd(direction=direction, alpha=1.0, layer=0, frames=Frames("all")))
    moved = (_readout(steered, held_out, axis) - base) / gap
    assert moved.mean() >= LEARNED_MIN, moved
    assert steered.transcribe(held_out) != parakeet.transcribe(held_out)
    candidate = "a cat"
    assert steered.score(held_out[0], [candidate])[0].total != pytest.approx(parakeet.score(held_out[0], [candidate])[0].total)

    for seed in range(3):
        control = direction.random_control(seed)
        assert control.norm == pytest.approx(direction.norm, rel=1e-5)
        randomly = parakeet.variant(SteerAdd(direction=control, alpha=1.0, layer=0, frames=Frames("all")))
        drift = (_readout(randomly, held_out, axis) - base) / gap
        assert abs(drift.mean()) <= RANDOM_MAX, (seed, drift)


def test_variants_are_named_and_leave_the_base_model_alone(parakeet, learned):
    direction, _, _ = learned
    clip = noise(30)
    before = parakeet.transcribe([clip]), parakeet.score(clip, ["a cat"])[0].total
    add = parakeet.variant(SteerAdd(direction=direction, alpha=2.0, layer=0, frames=Frames("audio")))
    ablate = parakeet.variant(SteerAblate(direction=direction, layer=0, frames=Frames("audio")))
    assert add.model_id != parakeet.model_id and direction.id in add.model_id
    assert len({parakeet.config_hash, add.config_hash, ablate.config_hash}) == 3
    add.transcribe([clip]), ablate.score(clip, ["a cat"])
    assert (parakeet.transcribe([clip]), parakeet.score(clip, ["a cat"])[0].total) == before  # hooks removed

    # Ablation removes the direction's component at the steered layer, exactly.
    (hidden,) = ablate.encoder_activations([clip], [0]).values()
    assert np.abs(hidden[0] @ direction.basis[0]).max() <= 1e-4 * np.abs(hidden).max()


def test_patching_a_whole_layer_hands_over_the_source(parakeet):
    """An activation patch of every frame of the last encoder layer gives the source's encoder output exactly."""
    from asraudit.models.whitebox.interventions import ActivationPatch, FixedAudio

    source, target = tone(420), noise(41)
    patched = parakeet.variant(ActivationPatch(source=FixedAudio(source, "tone"), layer=-1, frames=Frames("all")))
    assert patched.transcribe([target]) == parakeet.transcribe([source])
    assert patched.score(target, ["a cat"])[0].total == pytest.approx(parakeet.score(source, ["a cat"])[0].total, rel=1e-5)
    assert parakeet.transcribe([target]) != parakeet.transcribe([source])
