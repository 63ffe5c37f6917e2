"""Case 41: stereo audio whose channels are each other inverted is refused, not transcribed as silence.

asraudit mixes channels to mono by averaging (a speaker panned to one side
keeps the speech).  A stereo WAV whose right channel is the left inverted (a
balanced cable wired backwards) averaged to exact silence, and
whisper-tiny.en wrote "you" for a clip that says "the cat sat on the mat",
exit 0: a silently wrong result.  A mix more than 20 dB below its loudest
channel is now refused; ordinary stereo (identical, independent or panned
channels) and true silence are not.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

SR = 16_000
T = np.arange(SR) / SR
VOICE = (0.3 * np.sin(2 * np.pi * 220 * T) * np.sin(2 * np.pi * 3 * T)).astype(np.float32)


def _manifest(tmp_path, channels):
    sf.write(tmp_path / "s.wav", np.stack(channels, axis=1), SR, subtype="FLOAT")  # exact opposites
    m = tmp_path / "m.jsonl"
    m.write_text(json.dumps({"audio_filepath": "s.wav", "text": "a tone"}) + "\n", encoding="utf-8")
    return m


def test_channels_in_opposite_phase_are_refused(tmp_path, cli):
    manifest = _manifest(tmp_path, [VOICE, -VOICE])
    out = tmp_path / "out"
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", manifest, "--out", out, "--no-progress")
    assert ran.code == 2
    assert ran.error_lines == [
        f"asraudit: error: {manifest}, row 1: audio file {tmp_path / 's.wav'}: its 2 channels cancel when mixed to "
        "mono (the mix is over 120 dB below the loudest channel: one is the other inverted?): save one channel, or "
        "invert one back"]
    assert not (out / "pocketsphinx.jsonl").exists()


@pytest.mark.parametrize("channels", [
    [VOICE, VOICE],  # the same signal twice
    [VOICE, np.zeros_like(VOICE)],  # panned hard left
    [VOICE, np.random.default_rng(0).standard_normal(SR).astype(np.float32) * 0.05],  # independent
    [np.zeros_like(VOICE), np.zeros_like(VOICE)],  # silence is silence
    [VOICE] * 6,  # 5.1
])
def test_ordinary_multichannel_audio_is_mixed(tmp_path, channels):
    from asraudit.audio.io import load_audio

    _manifest(tmp_path, channels)
    assert len(load_audio(tmp_path / "s.wav")) == SR
