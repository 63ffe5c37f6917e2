"""Frames in seconds land on the model's own encoder frames (``FrameGeometry``), without torch.

Whisper's geometry (20 ms, always 1500 frames) stays the default, so every
Whisper path computes what it did before; Moonshine's (24 ms, as many
frames as the input has) is what the white-box Moonshine supplies.
"""

from __future__ import annotations

import numpy as np

from asraudit.models.whitebox.frames import WHISPER_FRAMES, FrameGeometry, Frames, audio_frames, changed_frames

MOONSHINE = FrameGeometry(samples_per_frame=384, max_frames=None)


def test_whisper_is_the_default_geometry_and_unchanged():
    assert Frames.parse("1.2-2.5").bounds(100) == (60, 125) == Frames.parse("1.2-2.5").bounds(100, geometry=WHISPER_FRAMES)
    assert Frames("all").bounds(10) == (0, 1500)
    assert Frames("audio").bounds(5000) == (0, 1500)
    assert audio_frames(16000) == 50


def test_seconds_map_to_24_ms_frames_and_nothing_caps_a_variable_length_encoder():
    span = Frames.parse("1.2-2.5")
    assert span.bounds(100, geometry=MOONSHINE) == (50, 105)  # floor(1.2 / 0.024), ceil(2.5 / 0.024)
    assert Frames("audio").bounds(5000, geometry=MOONSHINE) == (0, 5000)
    first, last = Frames("all").bounds(10, geometry=MOONSHINE)
    assert first == 0 and last > 10**6  # every frame the batch has
    assert audio_frames(16000, MOONSHINE) == 42


def test_changed_frames_use_the_geometry():
    audio = np.zeros(16000, dtype=np.float32)
    source = audio.copy()
    source[3840:7680] = 1.0  # samples 3840..7679: frames 10..19 of 384 samples, 12..23 of 320
    assert changed_frames(audio, source, MOONSHINE) == (10, 20)
    assert changed_frames(audio, source) == (12, 24)
