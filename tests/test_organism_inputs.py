"""What the training loop feeds the model: clip features and the SpecAugment time-mask knob (no training here)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from asraudit.demo.organism import BENCHMARK_DIR, TrainConfig
from asraudit.demo.organism_inputs import clip_features, time_mask_spans, time_masked
from asraudit.demo.organism_kinds import KINDS


def _feats(frames: list[int]) -> np.ndarray:
    rng = np.random.default_rng(7)
    return rng.uniform(-1.0, 1.5, size=(len(frames), 4, 3000)).astype(np.float32)


def test_without_the_knob_the_features_are_the_very_array_untouched():
    feats = _feats([300, 420])
    before = feats.copy()
    assert TrainConfig().time_masks == 0
    assert time_masked(feats, [300, 420], 0, 100, seed=0, epoch=1) is feats
    assert np.array_equal(feats, before)


def test_only_the_contaminated_kinds_mask_time():
    assert {k.name: k.config.time_masks for k in KINDS.values()} == \
        {"record": 0, "gated": 0, "gated-many": 0, "gated-deep": 0, "contaminated": 2, "contaminated-heldout": 2, "switching": 0,
         "switching-4ep": 0, "record-base": 0}


@pytest.mark.parametrize("kind", [k for k in KINDS.values() if not k.config.time_masks and k.sha256],
                         ids=lambda k: k.name)
def test_an_unmasked_kind_writes_the_header_its_committed_adapter_carries(kind):
    from safetensors import safe_open

    with safe_open(str(kind.adapter), framework="pt") as fh:
        assert fh.metadata()["config"] == kind.config.header()


def test_a_masked_kind_records_its_masks_in_the_header():
    config = json.loads(TrainConfig(time_masks=2).header())
    assert (config["time_masks"], config["time_mask_frames"]) == (2, 100)


def test_masks_are_spans_of_zeros_inside_each_clip_no_wider_than_the_limit():
    frames = [250, 420, 40]
    feats = _feats(frames)
    before = feats.copy()
    out = time_masked(feats, frames, 2, 100, seed=0, epoch=0)
    assert np.array_equal(feats, before)  # the input is not changed in place
    for i, n in enumerate(frames):
        zeroed = np.flatnonzero((out[i] != before[i]).any(axis=0))
        assert np.all(out[i][:, zeroed] == 0.0)
        assert zeroed.size <= min(n, 2 * 100) and (zeroed.size == 0 or zeroed.max() < n)
        assert np.array_equal(out[i, :, n:], before[i, :, n:])  # Whisper's padding is never masked


def test_masks_are_seeded_the_same_each_build_and_drawn_afresh_each_epoch():
    frames = [420] * 20
    feats = _feats(frames)
    first = time_masked(feats, frames, 2, 100, seed=0, epoch=0)
    assert np.array_equal(first, time_masked(feats, frames, 2, 100, seed=0, epoch=0))
    assert not np.array_equal(first, time_masked(feats, frames, 2, 100, seed=0, epoch=1))
    assert not np.array_equal(first, time_masked(feats, frames, 2, 100, seed=1, epoch=0))


def test_widths_are_uniform_up_to_the_limit_and_starts_cover_the_clip():
    rng = np.random.default_rng(0)
    spans = [s for _ in range(2000) for s in time_mask_spans(420, 2, 100, rng)]
    widths = np.array([w for _, w in spans])
    starts = np.array([s for s, _ in spans])
    assert widths.min() == 0 and widths.max() == 100
    assert abs(widths.mean() - 50) < 3  # mean of U{0..100} is 50; 4000 draws: standard error 0.46
    assert starts.min() == 0 and (starts + widths).max() == 420 and np.all(starts + widths <= 420)


def test_a_clip_shorter_than_a_mask_is_masked_whole_at_most():
    rng = np.random.default_rng(3)
    assert all(0 <= s and s + w <= 5 for s, w in time_mask_spans(5, 50, 100, rng))


def test_a_clips_frame_count_is_its_audio_in_10_ms_hops():
    from asraudit.audio.io import load_audio

    row = {"audio_filepath": "audio/s002-piper-joe.ogg"}
    feats, frames = clip_features([row], BENCHMARK_DIR, 80)
    samples = len(load_audio(BENCHMARK_DIR / row["audio_filepath"]))
    assert feats.shape == (1, 80, 3000) and frames == [-(-samples // 160)]
