"""The transducer's decoder site: the prediction network's output g_u at each label position.

Tiny random Parakeet TDT and RNN-T folders (the scoring tests' models),
loaded through the registry.  Checks that can fail:

* a zero steering vector leaves transcripts (greedy and beam) and scores
  bit for bit as they were, so the site's plumbing itself changes nothing;
* a random vector added at the site changes transcripts and scores;
* the steered score is the forward algorithm over joint outputs computed
  here by hand from ``g + alpha * v`` at exactly the steered positions
  (``first:2``: positions -1 and 0), so every prefix's g is the steered one;
* under steering that differs by position, greedy decoding is batch
  invariant (rows sit at different label positions in one call), the beam
  with width 1 is the greedy decoder, and the score of the greedy labels is
  at least the greedy alignment's probability;
* a model contrast learned at the decoder site between a steered variant
  and the model recovers the steering vector (``decoder_rows`` reads the
  site through ``next_token_logprobs``);
* ablation leaves no component along the basis at the site, and a
  variant's hooks leave with its run (the base model is unchanged);
* a self-patch at the decoder site changes nothing bit for bit; a donor
  patch changes nothing either, because the prediction network does not
  read the audio (its source half is fed the target's labels).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from asraudit.mechanism.decoder_steering import DecoderSteerAdd, decoder_rows, learn_model_contrast  # noqa: E402
from asraudit.mechanism.steering import Direction  # noqa: E402
from asraudit.models.hf_transducer import HFTransducer  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402
from asraudit.models.transducer_forward import rnnt_arcs, tdt_arcs, token_logprobs  # noqa: E402
from asraudit.models.whitebox.frames import FixedAudio, SourcesByAudio  # noqa: E402
from asraudit.models.whitebox.interventions import ActivationPatch  # noqa: E402

from test_models_hf_transducer import clips, save_tiny  # noqa: E402
from tolerances import LOGPROB_RTOL  # why relative: see tests/tolerances.py

CANDIDATES = ["a cat", "sea", "it is so"]


@pytest.fixture(scope="module", params=["tdt", "rnnt"])
def transducer(request, tmp_path_factory):
    return load_model(str(save_tiny(tmp_path_factory.mktemp(f"dec-{request.param}"), request.param)))


def direction(width: int, norm: float, seed: int = 0) -> Direction:
    vector = np.random.default_rng(seed).standard_normal(width)
    vector *= norm / np.linalg.norm(vector)
    return Direction(vector, (vector / max(np.linalg.norm(vector), 1e-12))[None] if norm else np.eye(width)[:1], np.ones(1))


def steer(model, vector: Direction, positions: str = "all", alpha: float = 1.0):
    return model.variant(DecoderSteerAdd(direction=vector, alpha=alpha, layer=0, positions=positions))


def totals(model, audio):
    return [s.total for clip in audio for s in model.score(clip, CANDIDATES)]


def joint_scale(model) -> float:
    """The typical norm of the encoder's output f_t, which g_u is added to in the joint: steering vectors
    are sized against it (an untrained prediction network's g_u is far smaller, ~1e-3)."""
    with torch.inference_mode():
        memory, (n_frames,) = model._encode([clips(1)[0]])
    return float(memory[0, :n_frames].norm(dim=-1).mean())


def test_the_site_is_the_prediction_network_output(transducer):
    sites = transducer.intervention_sites()
    assert len(sites.require("decoder")) == 1 and "decoder layers 0..0" in sites.names()
    assert transducer.decoder_hidden_size == transducer.model.config.decoder_hidden_size
    assert transducer.text_token_ids("a cat") == transducer._labels("a cat")[0]
    clip = clips(1)[0]
    rows = decoder_rows(transducer, clip, 0, None, "a cat")  # positions -1 .. U-1
    ids = transducer.text_token_ids("a cat")
    with torch.inference_mode():
        g, _ = transducer._predict(torch.tensor([[transducer.blank] + ids]))
    np.testing.assert_array_equal(rows, g[0].double().numpy())
    logprobs = transducer.next_token_logprobs(clip, ids[:1])
    assert logprobs.shape[1] == transducer.vocab_size and np.allclose(np.exp(logprobs).sum(-1), 1.0, rtol=1e-6)


def test_zero_steering_is_the_model_bit_for_bit(transducer):
    audio = clips(3)
    zero = steer(transducer, direction(transducer.decoder_hidden_size, 0.0))
    assert zero.model_id != transducer.model_id
    assert zero.transcribe(audio) == transducer.transcribe(audio)
    assert [a[:2] for a in zero.beam_alignments(audio)] == [a[:2] for a in transducer.beam_alignments(audio)]
    assert totals(zero, audio) == totals(transducer, audio)


def test_steering_changes_transcripts_and_scores(transducer):
    audio = clips(4)
    steered = steer(transducer, direction(transducer.decoder_hidden_size, 3.0 * joint_scale(transducer), seed=1))
    assert steered.transcribe(audio) != transducer.transcribe(audio)
    base_wide = HFTransducer(transducer.source, beam_size=3, _loaded=(transducer.processor, transducer.model, torch))
    wide = base_wide.variant(*steered.interventions)
    assert wide.transcribe(audio) != base_wide.transcribe(audio)
    assert [a[0] for a in wide.beam_alignments(audio)] != [a[0] for a in base_wide.beam_alignments(audio)]
    moved = np.abs(np.array(totals(steered, audio)) - np.array(totals(transducer, audio)))
    assert moved.max() > 0.1


def test_steered_score_is_the_forward_algorithm_over_steered_g(transducer):
    clip = clips(1, seed=3)[0]
    vector = direction(transducer.decoder_hidden_size, 2.0 * joint_scale(transducer), seed=2)
    steered = steer(transducer, vector, positions="first:2", alpha=1.5)  # positions -1 and 0 only
    for text in CANDIDATES:
        labels = transducer.text_token_ids(text)
        with torch.inference_mode():
            memory, (n_frames,) = transducer._encode([clip])
            g = transducer._predict(torch.tensor([[transducer.blank] + labels]))[0][0].clone()
            g[:2] += 1.5 * torch.as_tensor(vector.vector)
            token_lp, duration_lp = transducer._joint_logprobs(memory[0, :n_frames], g)
        if transducer.is_tdt:
            arcs = tdt_arcs(token_lp, duration_lp, labels, transducer.blank, transducer.durations)
        else:
            arcs = rnnt_arcs(token_lp, labels, transducer.blank)
        per_label, end = token_logprobs(arcs)
        (scored,) = steered.score(clip, [text])
        expected = np.append(per_label, end)
        # float32 network, float64 recursion, the same kernels on both sides: rounding only.
        np.testing.assert_allclose(scored.logprobs, expected, rtol=LOGPROB_RTOL, atol=1e-6)


def test_position_dependent_steering_keeps_the_decoders_consistent(transducer):
    audio = clips(4, seed=5) + clips(2, seconds=1.1, seed=6)
    steered = steer(transducer, direction(transducer.decoder_hidden_size, 2.0 * joint_scale(transducer), seed=4),
                    positions="first:3")
    batched = steered.greedy_alignments(audio)
    for (ids, logp, complete), (one_ids, one_logp, one_complete) in zip(
            batched, [steered.greedy_alignments([clip])[0] for clip in audio]):  # rows at different positions
        assert (ids, complete) == (one_ids, one_complete)
        assert logp == pytest.approx(one_logp, rel=LOGPROB_RTOL, abs=1e-6)  # batch shape: rounding only
    assert len({len(ids) for ids, _, _ in batched}) > 1, "every row emitted as many labels: nothing was compared"
    assert [a[:1] for a in steered.beam_alignments(audio)] == [a[:1] for a in batched]  # beam 1 is greedy
    for clip, (ids, path_logp, complete) in zip(audio, batched):
        ((per_label, end),) = steered.label_logprobs(clip, [ids])
        if complete:  # the greedy alignment is one term of the steered sum over alignments
            assert per_label.sum() + end >= path_logp - LOGPROB_RTOL * abs(path_logp) - 1e-6


def test_a_model_contrast_at_the_decoder_recovers_the_steering(transducer):
    vector = direction(transducer.decoder_hidden_size, 1.0, seed=7)
    steered = steer(transducer, vector, positions="all")
    clip_set = [(f"c{i}", clip, "a cat") for i, clip in enumerate(clips(2, seed=8))]
    learned = learn_model_contrast(steered, transducer, clip_set, 0, positions="all")
    # g + v minus g at every position: v, up to float32 rounding of the addition (|g| ~ 1).
    np.testing.assert_allclose(learned.vector, vector.vector, atol=1e-5)


def test_decoder_patches_change_nothing(transducer):
    audio = clips(2, seed=10)
    itself = transducer.variant(ActivationPatch(source=SourcesByAudio.from_pairs([(c, c) for c in audio]),
                                                site="decoder", layer=-1))
    assert itself.transcribe(audio) == transducer.transcribe(audio)
    # The patched run is another code path (hooks, the paired batch): equal up to rounding (1e-9 relative
    # seen on AVX-512), not bit for bit (tests/tolerances.py).
    np.testing.assert_allclose(totals(itself, audio), totals(transducer, audio), rtol=LOGPROB_RTOL, atol=1e-6)
    donor = transducer.variant(ActivationPatch(source=FixedAudio(clips(1, seed=11)[0], "donor"), site="decoder",
                                               layer=0, positions=(0, 1)))
    assert donor.transcribe(audio) == transducer.transcribe(audio)
    # The paired encoder batch is twice as tall: equal up to batch-shape rounding.
    np.testing.assert_allclose(totals(donor, audio), totals(transducer, audio), rtol=LOGPROB_RTOL, atol=1e-6)


def test_ablation_removes_the_component_and_hooks_leave_with_the_run(transducer):
    from asraudit.mechanism.decoder_steering import DecoderSteerAblate

    clip = clips(1, seed=12)[0]
    before = transducer.transcribe([clip]), totals(transducer, [clip])
    vector = direction(transducer.decoder_hidden_size, 1.0, seed=13)
    ablated = transducer.variant(DecoderSteerAblate(direction=vector, layer=0, positions="all"))
    rows = decoder_rows(ablated, clip, 0, None, "it is so")  # read after the ablation's hook
    # float32: what is left along the basis is rounding of h - (h.u)u, a few 1e-8 of |h| on any CPU.
    assert np.abs(rows @ vector.basis[0]).max() <= 1e-6 * np.abs(rows).max()
    assert np.abs(decoder_rows(transducer, clip, 0, None, "it is so") @ vector.basis[0]).max() > 0
    ablated.transcribe([clip]), steer(transducer, vector).score(clip, CANDIDATES)
    assert (transducer.transcribe([clip]), totals(transducer, [clip])) == before
