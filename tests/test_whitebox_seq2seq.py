"""White-box Moonshine (``whitebox:hf:<dir>``): interventions on a non-Whisper encoder-decoder.

A tiny Moonshine trained in the fixture to say "low" or "high" for low and
high tones (``encdec_tiny.trained_moonshine``) stands in for a real one.
Checks that can fail: with no intervention the white-box loop gives the
plain runner's transcripts and scores; a direction learned by diff-in-means
(low tones minus high tones) at an encoder layer turns high tones into
"low" when added, while random directions of the same norm leave them
alone; patching every frame of the last encoder layer from another clip
hands the decoder that clip (its transcript), patching from the clip itself
changes nothing; and `asraudit steer` runs on the folder.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import encdec_tiny  # noqa: E402
from asraudit.audio.conditions import Original  # noqa: E402
from asraudit.mechanism.steering import learn_direction  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402
from asraudit.models.whitebox.frames import FixedAudio, Frames  # noqa: E402
from asraudit.models.whitebox.interventions import ActivationPatch, CrossAttentionMask, SteerAdd  # noqa: E402
from asraudit.models.whitebox.seq2seq import WhiteboxSeq2Seq  # noqa: E402

from tolerances import LOGPROB_RTOL  # why relative: see tests/tolerances.py


@pytest.fixture(scope="module")
def folder(trained_moonshine):
    return trained_moonshine  # built once per session (conftest.py)


@pytest.fixture(scope="module")
def model(folder) -> WhiteboxSeq2Seq:
    return load_model(f"whitebox:hf:{folder}", max_new_tokens=6)


def _tones(seed: int, band, n: int):
    rng = np.random.default_rng(seed)
    return [encdec_tiny.tone(rng, *band) for _ in range(n)]


def test_the_trained_model_tells_the_tones_apart(model):
    """The premise of the steering test: without it, no direction has anything to carry."""
    assert model.transcribe(_tones(1, encdec_tiny.LOW, 6)).count("low") >= 5
    assert model.transcribe(_tones(2, encdec_tiny.HIGH, 6)) == ["high"] * 6


def test_without_interventions_the_whitebox_loop_equals_the_plain_runner(model, folder):
    plain = load_model(str(folder), max_new_tokens=6)
    clips = _tones(3, encdec_tiny.LOW, 2) + _tones(4, encdec_tiny.HIGH, 2) + [np.zeros(5000, np.float32)]
    assert model.transcribe(clips) == plain.transcribe(clips)
    for clip in clips[:3]:
        for ours, theirs in zip(model.score(clip, ["low", "high", ""]), plain.score(clip, ["low", "high", ""])):
            np.testing.assert_allclose(ours.logprobs, theirs.logprobs, atol=1e-5, rtol=LOGPROB_RTOL)
            assert ours.token_ids == theirs.token_ids
    assert model.intervention_sites().names() == ("encoder layers 0..1", "decoder layers 0..1", "cross-attention")
    assert model.hidden_size == 64
    assert model.frame_geometry.samples_per_frame == 384  # 24 ms: conv strides 64 x 3 x 2


@pytest.mark.parametrize("layer", [0, -1])
def test_a_learned_direction_steers_the_output_and_random_ones_of_equal_norm_do_not(model, layer):
    """Bound: the learned direction turns at least 8 of 10 held-out high tones into "low"; each of five
    random directions of the same norm turns at most 2.  Seen at both layers: 10 of 10 against 0 of 10
    for ten random seeds (at width 32 instead of 64, random pushes turned up to 5 of 10: in fewer
    dimensions a random direction shares more with the learned one)."""
    pairs = list(zip(_tones(5, encdec_tiny.LOW, 8), _tones(6, encdec_tiny.HIGH, 8)))
    direction = learn_direction(model, pairs, layer)
    held_out = _tones(7, encdec_tiny.HIGH, 10)
    assert model.transcribe(held_out).count("low") == 0
    steered = model.variant(SteerAdd(direction=direction, alpha=1.0)).transcribe(held_out)
    assert steered.count("low") >= 8, steered
    for seed in range(5):
        control = direction.random_control(seed)
        assert np.isclose(np.linalg.norm(control.vector), direction.norm)
        randomised = model.variant(SteerAdd(direction=control, alpha=1.0)).transcribe(held_out)
        assert randomised.count("low") <= 2, (seed, randomised)


def test_patching_the_last_encoder_layer_hands_over_the_source_and_a_self_patch_changes_nothing(model):
    lows = _tones(8, encdec_tiny.LOW, 3)
    (high,) = _tones(9, encdec_tiny.HIGH, 1)
    patched = model.variant(ActivationPatch(source=FixedAudio(high, "high"), layer=-1, frames=Frames("all")))
    assert patched.transcribe(lows) == model.transcribe([high]) * 3
    itself = model.variant(ActivationPatch(source=Original(), layer=-1, frames=Frames("all")))
    assert itself.transcribe(lows) == model.transcribe(lows)
    for ours, base in zip(itself.score(lows[0], ["low", "high"]), model.score(lows[0], ["low", "high"])):
        np.testing.assert_allclose(ours.logprobs, base.logprobs, atol=1e-5, rtol=LOGPROB_RTOL)
    assert len({model.config_hash, patched.config_hash, itself.config_hash}) == 3


def test_blocking_cross_attention_acts_on_the_frames_of_the_span_only(model):
    """A span past the clip's end holds no frame: blocking it changes nothing; blocking the whole
    clip leaves the decoder a uniform average over frames, which moves the scores."""
    (clip,) = _tones(10, encdec_tiny.LOW, 1)  # 0.5 s: frames 0..19 of 24 ms
    base = model.score(clip, ["low", "high"])
    outside = model.variant(CrossAttentionMask(frames=Frames("span", 2.0, 3.0))).score(clip, ["low", "high"])
    everything = model.variant(CrossAttentionMask(frames=Frames("span", 0.0, 1.0))).score(clip, ["low", "high"])
    for b, o, e in zip(base, outside, everything):
        assert o.logprobs == b.logprobs
        assert abs(e.total - b.total) > 1e-3  # seen: 0.027 nats and more; float noise is ~1e-6
    blocked = model.variant(CrossAttentionMask(frames=Frames("span", 0.0, 1.0)))
    assert blocked.model_id.startswith(model.model_id + "+attnmask(")


def test_steer_learn_and_induce_run_on_the_folder(folder, tmp_path, capsys):
    import soundfile as sf

    from asraudit.cli import main

    # Two corpora with the same clip ids (audio paths relative to each manifest): pairs match by id.
    for name, band, seed in (("low", encdec_tiny.LOW, 11), ("high", encdec_tiny.HIGH, 12)):
        (tmp_path / name).mkdir()
        with open(tmp_path / name / "manifest.jsonl", "w") as f:
            for i, clip in enumerate(_tones(seed, band, 4)):
                sf.write(tmp_path / name / f"c{i}.wav", clip, 16000, subtype="FLOAT")
                f.write(json.dumps({"audio_filepath": f"c{i}.wav", "text": name}) + "\n")
    direction = tmp_path / "low.safetensors"
    assert main(["steer", "learn", "--model", f"hf:{folder}", "--corpus", str(tmp_path / "low" / "manifest.jsonl"),
                 "--negative-corpus", str(tmp_path / "high" / "manifest.jsonl"), "--layer", "1",
                 "--out", str(direction)]) == 0
    assert direction.is_file()
    capsys.readouterr()
    report = tmp_path / "induce.json"
    assert main(["steer", "induce", "--model", f"hf:{folder}", "--corpus", str(tmp_path / "high" / "manifest.jsonl"),
                 "--direction", str(direction), "--store", str(tmp_path / "store.sqlite"), "--json", str(report),
                 "--no-progress"]) == 0
    variants = {v["label"]: v for v in json.loads(report.read_text())["variants"]}
    assert variants["add a=1"]["changed_vs_baseline"] >= 3 and variants["random a=1"]["changed_vs_baseline"] <= 1


def test_patch_runs_on_the_folder_and_its_self_patch_control_changes_nothing(folder, tmp_path):
    import soundfile as sf

    from asraudit.cli import main

    with open(tmp_path / "manifest.jsonl", "w") as f:
        for i, clip in enumerate(_tones(13, encdec_tiny.LOW, 3)):
            sf.write(tmp_path / f"c{i}.wav", clip, 16000, subtype="FLOAT")
            f.write(json.dumps({"audio_filepath": f"c{i}.wav", "text": "low"}) + "\n")
    report = tmp_path / "patch.json"
    assert main(["patch", "--model", f"hf:{folder}", "--corpus", str(tmp_path / "manifest.jsonl"), "--source", "silence",
                 "--layer", "-1", "--block-attention", "0.0-0.2", "--store", str(tmp_path / "store.sqlite"),
                 "--json", str(report), "--no-progress"]) == 0
    variants = {v["role"] + ":" + v["label"]: v for v in json.loads(report.read_text())["variants"]}
    controls = [v for key, v in variants.items() if key.startswith("control:")]
    assert len(controls) == 1 and controls[0]["changed_vs_baseline"] == 0
    assert any(v["model_id"].startswith("whitebox:hf:") and "+patch(" in v["model_id"] for v in variants.values())


def test_a_mechanism_entry_takes_the_folder_and_checks_a_direction_against_its_shape(model, folder, tmp_path):
    """[[mechanism]] model = "hf:<dir>": the spec resolves the folder, the audit loads it as white-box
    (whitebox:<dir>), and a direction is checked against the model's own width and layer count."""
    from asraudit.audit.mechanism import _fits
    from asraudit.audit.spec_mechanism import parse_mechanism
    from asraudit.mechanism.steering import Direction

    entry = {"type": "steer", "model": f"hf:{folder}", "layer": 1, "positive": {"field": "band", "value": "low"},
             "negative": {"field": "band", "value": "high"}, "pair_by": "pair",
             "induce": {"field": "band", "value": "high"}}
    (spec,) = parse_mechanism([entry], "spec.toml", tmp_path)
    assert spec.model == str(folder.resolve())
    loaded = load_model(f"whitebox:{spec.model}", max_new_tokens=6)
    assert isinstance(loaded, WhiteboxSeq2Seq)
    fitting = Direction(np.ones(64), np.eye(64)[:1], np.ones(1), 1, {})
    assert _fits(spec, loaded, fitting) is None
    too_wide = Direction(np.ones(384), np.eye(384)[:1], np.ones(1), 1, {})
    assert "width 64" in _fits(spec, loaded, too_wide)


@pytest.fixture(scope="module", params=["speech_to_text", "canary", "cohere_asr"])
def other_family(request, tmp_path_factory):
    folder = getattr(encdec_tiny, request.param)(tmp_path_factory.mktemp(request.param))
    return load_model(f"whitebox:hf:{folder}", max_new_tokens=6), load_model(str(folder), max_new_tokens=6)


def test_other_white_box_families_equal_their_runner_and_their_hooks_reach_the_model(other_family):
    """Random weights (no trained behaviour to steer, and a decoder that barely reads the encoder): what
    is checked is the plumbing.  No intervention: the runner's transcripts and scores.  A steer moves
    the steered layer's output by exactly alpha * v on the clip's frames.  A cross-attention mask over
    the whole clip changes the scores (by little: the random decoder hardly attends), one past the
    clip's end changes nothing, bit for bit."""
    model, plain = other_family
    clips = [np.asarray(np.random.default_rng(s).standard_normal(12000) * 0.1, np.float32) for s in (0, 1)]
    assert model.transcribe(clips) == plain.transcribe(clips)
    base = model.score(clips[0], ["the cat", ""])
    for ours, theirs in zip(base, plain.score(clips[0], ["the cat", ""])):
        np.testing.assert_allclose(ours.logprobs, theirs.logprobs, atol=1e-5, rtol=LOGPROB_RTOL)
    from asraudit.mechanism.steering import Direction

    width = model.hidden_size
    vector = np.random.default_rng(0).standard_normal(width)
    direction = Direction(vector, (vector / np.linalg.norm(vector))[None], np.ones(1), 0, {})
    before = model.encoder_activations(clips[:1], [0])[0][0]
    after = model.variant(SteerAdd(direction=direction, alpha=2.0)).encoder_activations(clips[:1], [0])[0][0]
    assert before.shape[1] == width
    np.testing.assert_allclose(after - before, np.broadcast_to(2.0 * vector, before.shape), atol=1e-4)
    masked = model.variant(CrossAttentionMask(frames=Frames("span", 0.0, 1.0))).score(clips[0], ["the cat"])
    assert masked[0].logprobs != base[0].logprobs  # tiny random weights: a real mask moves them by 1e-10..1e-5
    outside = model.variant(CrossAttentionMask(frames=Frames("span", 5.0, 6.0))).score(clips[0], ["the cat"])
    # A mask over no frame changes nothing but the attention kernel (a masked one adds in another order on
    # some CPUs: 1e-9 relative seen on AVX-512), so equal up to rounding (tests/tolerances.py).
    np.testing.assert_allclose(outside[0].logprobs, base[0].logprobs, atol=1e-6, rtol=LOGPROB_RTOL)
