"""Activation patching and decoder-site steering on a speech LLM (a tiny random Qwen2-Audio).

Patching runs a paired batch: the input, then its source, through the audio
encoder, the projector and the language model's prompt together; the
source is then forced with the input's tokens.  Checks that can fail:

* a self-patch (the source is the clip itself) changes nothing at any site,
  bit for bit in scores and transcripts;
* patching every frame of an encoder layer, or the projector's output, from
  a donor clip of the same length hands the language model the donor's audio
  tokens exactly: the input's scores and transcript become the donor's;
* patching the LM's audio positions at its first block moves the answer's
  scores toward the donor's; at its last block it cannot change the answer
  (no later block reads those positions), and does not;
* a decoder-site model contrast (the same architecture with its LM's first
  block changed) added to the changed model's LM moves its next-token
  distribution toward the original's; random directions of equal norm do not.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from asraudit.audio.conditions import Original  # noqa: E402
from asraudit.errors import InputError  # noqa: E402
from asraudit.mechanism.decoder_steering import DecoderSteerAdd, learn_model_contrast  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402
from asraudit.models.whitebox.frames import FixedAudio, Frames  # noqa: E402
from asraudit.models.whitebox.interventions import ActivationPatch, CrossAttentionMask  # noqa: E402

from speech_llm_fixtures import audio, qwen2_audio_with_lm_changed  # noqa: E402
from tolerances import LOGPROB_RTOL  # why relative: see tests/tolerances.py  # noqa: E402

CANDIDATES = ["the cat sat on the mat", "hello world"]
SECONDS = 2.0
# Sites and layers: the last encoder block, the projector, the LM's first and last blocks at the audio positions.
SITES = [("encoder", -1), ("projector", 0), ("decoder-audio", 0), ("decoder-audio", -1), ("decoder", 0)]


@pytest.fixture(scope="module")
def model(tiny_qwen2_audio_folder):
    return load_model(str(tiny_qwen2_audio_folder), max_new_tokens=8)


@pytest.fixture(scope="module")
def clips():
    return audio(SECONDS, 1), audio(SECONDS, 2)  # the input, the donor (same length: same prompt layout)


def _logprobs(model, clip):
    return np.concatenate([s.logprobs for s in model.score(clip, CANDIDATES)])


def _close(a, b):
    # Same-shape float32 passes over the same tokens; only the batch's row count differs (1 vs 2).
    np.testing.assert_allclose(a, b, rtol=LOGPROB_RTOL, atol=1e-5)


@pytest.mark.parametrize("site, layer", SITES)
def test_a_self_patch_changes_nothing(model, clips, site, layer):
    x, _ = clips
    itself = model.variant(ActivationPatch(source=Original(), site=site, layer=layer, frames=Frames("all")))
    assert itself.config_hash != model.config_hash and "+patch(" in itself.model_id
    _close(_logprobs(itself, x), _logprobs(model, x))
    assert itself.transcribe([x]) == model.transcribe([x])


@pytest.mark.parametrize("site, layer", [("encoder", -1), ("encoder", 0), ("projector", 0)])
def test_patching_the_whole_audio_hands_the_language_model_the_donor(model, clips, site, layer):
    x, donor = clips
    base, wanted = _logprobs(model, x), _logprobs(model, donor)
    assert np.abs(base - wanted).mean() > 1e-2  # the model hears the difference (seen: 0.057 nats per token)
    patched = model.variant(ActivationPatch(source=FixedAudio(donor, "donor"), site=site, layer=layer,
                                            frames=Frames("all")))
    _close(_logprobs(patched, x), wanted)
    assert patched.transcribe([x]) == model.transcribe([donor]) != model.transcribe([x])


def test_patching_every_position_of_the_last_lm_block_gives_the_donors_scores(model, clips):
    """The source half is forced with the input's candidate tokens over the donor's own prompt cache, so its
    last block's output at every position, prompt and answer, is the donor's: so are the logits."""
    x, donor = clips
    patched = model.variant(ActivationPatch(source=FixedAudio(donor, "donor"), site="decoder", layer=-1))
    _close(_logprobs(patched, x), _logprobs(model, donor))
    assert patched.transcribe([x]) == model.transcribe([donor])


def test_patching_the_lms_audio_positions_acts_where_later_blocks_read_them(model, clips):
    """First block: the answer moves toward the donor's (seen: mean distance 0.057 -> 0.050 nats per token).
    Last block: nothing after it reads the audio positions, so the answer's scores stay put."""
    x, donor = clips
    base, wanted = _logprobs(model, x), _logprobs(model, donor)
    first = model.variant(ActivationPatch(source=FixedAudio(donor, "donor"), site="decoder-audio", layer=0))
    moved = _logprobs(first, x)
    assert np.abs(moved - base).max() > 1e-3
    assert np.abs(moved - wanted).mean() < np.abs(base - wanted).mean()
    last = model.variant(ActivationPatch(source=FixedAudio(donor, "donor"), site="decoder-audio", layer=-1))
    _close(_logprobs(last, x), base)


def test_a_span_patch_touches_only_the_audio_tokens_of_that_span(model, clips):
    """Frames past the clip's end hold no audio token: patching there is the identity."""
    x, donor = clips
    outside = model.variant(ActivationPatch(source=FixedAudio(donor, "donor"), site="projector",
                                            frames=Frames("span", 5.0, 6.0)))
    _close(_logprobs(outside, x), _logprobs(model, x))
    inside = model.variant(ActivationPatch(source=FixedAudio(donor, "donor"), site="projector",
                                           frames=Frames("span", 0.0, 1.0)))
    assert np.abs(_logprobs(inside, x) - _logprobs(model, x)).max() > 1e-3


def test_interventions_the_model_cannot_take_are_refused_when_the_variant_is_made(model, tiny_qwen2_audio_folder):
    with pytest.raises(InputError, match="no cross-attention site"):
        model.variant(CrossAttentionMask(frames=Frames("span", 0.0, 1.0)))
    with pytest.raises(InputError, match="different sources"):
        model.variant(ActivationPatch(source=Original(), site="projector"),
                      ActivationPatch(source=FixedAudio(np.zeros(800, np.float32), "zeros"), site="encoder"))
    moonshine_only = ActivationPatch(source=Original(), site="decoder-audio")
    assert model.variant(moonshine_only).interventions == (moonshine_only,)  # a speech LLM has that site
    beams = load_model(str(tiny_qwen2_audio_folder), max_new_tokens=8, beam_size=2)
    with pytest.raises(InputError, match="decodes greedily"):
        beams.variant(ActivationPatch(source=Original(), site="projector"))


@pytest.fixture(scope="module")
def changed(tiny_qwen2_audio_folder, tmp_path_factory):
    folder = qwen2_audio_with_lm_changed(tiny_qwen2_audio_folder, tmp_path_factory.mktemp("qwen2-audio-changed"))
    return load_model(str(folder), max_new_tokens=8)


@pytest.mark.parametrize("layer", [0, 1])
def test_a_decoder_model_contrast_steers_the_lm_and_random_directions_of_equal_norm_do_not(model, changed, layer):
    """Distance: mean |difference| of the first answer token's log-probs from the original model's.
    Bounds: the learned direction cuts it to at most 0.6 of the unsteered distance (seen: 0.40 at
    layer 0, 0.08 at layer 1); each of three random controls leaves at least 0.9 of it (seen: 1.02-1.6)."""
    learn = [(f"c{i}", audio(SECONDS, 10 + i), "the cat") for i in range(4)]
    direction = learn_model_contrast(model, changed, learn, layer, positions="first")
    steered = changed.variant(DecoderSteerAdd(direction=direction, alpha=1.0, layer=layer, positions="first"))

    def distance(variant, clip):
        return np.abs(variant.next_token_logprobs(clip) - model.next_token_logprobs(clip)).mean()

    for clip in (audio(SECONDS, 50), audio(SECONDS, 51)):
        base = distance(changed, clip)
        assert distance(steered, clip) <= 0.6 * base
        for seed in range(3):
            control = changed.variant(DecoderSteerAdd(direction=direction.random_control(seed), alpha=1.0,
                                                      layer=layer, positions="first"))
            assert distance(control, clip) >= 0.9 * base, seed
    # the steering reaches scoring and generation too: the first answer token's score is the readout's
    token = steered.text_token_ids("the cat")[0]
    (scored,) = steered.score_ids(audio(SECONDS, 50), [[token]])
    assert abs(scored[0] - steered.next_token_logprobs(audio(SECONDS, 50))[token]) <= 1e-4


def test_asraudit_patch_runs_on_a_speech_llm_folder_and_its_self_patch_changes_nothing(trained_qwen2_audio_folder,
                                                                                       tmp_path, capsys):
    import json

    import soundfile as sf

    import encdec_tiny
    from asraudit.cli import main
    from asraudit.commands.patch import PATCH_SITES as CLI_SITES
    from asraudit.models.whitebox.interventions import PATCH_SITES

    assert CLI_SITES == PATCH_SITES  # the CLI's copy (it imports no torch) is the hooks' list
    rng = np.random.default_rng(3)
    with open(tmp_path / "manifest.jsonl", "w") as f:
        for i in range(3):
            sf.write(tmp_path / f"c{i}.wav", encdec_tiny.tone(rng, *encdec_tiny.LOW), 16000, subtype="FLOAT")
            f.write(json.dumps({"audio_filepath": f"c{i}.wav", "text": "low"}) + "\n")
    report = tmp_path / "patch.json"
    assert main(["patch", "--model", str(trained_qwen2_audio_folder), "--corpus", str(tmp_path / "manifest.jsonl"),
                 "--source", "silence", "--site", "projector", "--store", str(tmp_path / "store.sqlite"),
                 "--json", str(report), "--no-progress"]) == 0
    variants = {v["role"]: v for v in json.loads(report.read_text())["variants"]}
    assert variants["control"]["changed_vs_baseline"] == 0
    assert "+patch(" in variants["intervention"]["model_id"] and "site=projector" in variants["intervention"]["model_id"]
    # silence in place of every audio token: the trained model no longer hears its low tones
    assert variants["intervention"]["changed_vs_baseline"] == 3
    capsys.readouterr()
    # a site the model lacks: one line, exit 2, before any clip is decoded
    assert main(["patch", "--model", str(trained_qwen2_audio_folder), "--corpus", str(tmp_path / "manifest.jsonl"),
                 "--block-attention", "0.0-0.2", "--store", str(tmp_path / "store.sqlite"), "--no-progress"]) == 2
    assert "no cross-attention site" in capsys.readouterr().err


# -- a second family: Granite-Speech (conformer encoder, Q-Former projector, Granite LM) ----------------------


@pytest.fixture(scope="module")
def granite(tmp_path_factory):
    from speech_llm_fixtures import tiny_granite_speech

    # std 0.2: at the default init the tiny model is deaf (scores move by 1e-7 between clips)
    return load_model(str(tiny_granite_speech(tmp_path_factory.mktemp("granite-loud"), init=0.2)), max_new_tokens=8)


def test_granite_offers_the_same_sites(granite):
    sites = granite.intervention_sites()
    inner = granite.model.model
    assert list(sites.encoder_layers) == list(inner.encoder.layers) and sites.projector is inner.projector
    assert list(sites.decoder_layers) == list(inner.language_model.layers)
    assert sites.names() == ("encoder layers 0..1", "decoder layers 0..1", "projector", "decoder audio positions")
    assert (granite.hidden_size, granite.decoder_hidden_size) == (16, 32)


@pytest.mark.parametrize("site, layer", SITES)
def test_granite_self_patches_change_nothing(granite, clips, site, layer):
    x, _ = clips
    itself = granite.variant(ActivationPatch(source=Original(), site=site, layer=layer, frames=Frames("all")))
    _close(_logprobs(itself, x), _logprobs(granite, x))
    assert itself.transcribe([x]) == granite.transcribe([x])


@pytest.mark.parametrize("site, layer", [("encoder", -1), ("projector", 0)])
def test_granite_whole_audio_patches_hand_over_the_donor(granite, clips, site, layer):
    """The Q-Former reads 15-frame windows of the encoder; every window patched: the donor's audio tokens."""
    x, donor = clips
    base, wanted = _logprobs(granite, x), _logprobs(granite, donor)
    assert np.abs(base - wanted).mean() > 1e-3  # seen: 0.005 nats per token
    patched = granite.variant(ActivationPatch(source=FixedAudio(donor, "donor"), site=site, layer=layer,
                                              frames=Frames("all")))
    _close(_logprobs(patched, x), wanted)
