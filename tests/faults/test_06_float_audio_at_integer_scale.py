"""Case 6: a float WAV holding int16-scale values is a clear error, not garbage text.

Samples peaking near 32767 in a FLOAT file were passed to the model, which
transcribed them as "to" with no warning.  asraudit refuses float audio far
outside [-1, 1] (peak above 2) and says how to fix it, rather than rescale:
dividing by 32768 is right only for 16-bit values, and an audit must not
guess what its input means.  Mild overshoot (peaks of 1.2) is accepted.
"""

from __future__ import annotations

import numpy as np
import soundfile as sf

SR = 16_000


def _manifest(tmp_path, peak: float):
    t = np.arange(SR) / SR
    sf.write(tmp_path / "loud.wav", (peak * np.sin(2 * np.pi * 220 * t)).astype(np.float32), SR, subtype="FLOAT")
    m = tmp_path / "m.jsonl"
    m.write_text('{"audio_filepath": "loud.wav", "text": "a tone"}\n', encoding="utf-8")
    return m


def test_float_wav_at_int16_scale_is_refused_with_the_fix_named(tmp_path, cli):
    manifest = _manifest(tmp_path, 32767.0)
    out = tmp_path / "out"
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", manifest, "--out", out, "--no-progress")
    assert ran.code == 2
    assert ran.error_lines == [
        f"asraudit: error: {manifest}, row 1: audio file {tmp_path / 'loud.wav'}: float samples reach 32767, far "
        "outside [-1, 1] (16-bit integer values stored as float?): divide them by the integer full scale "
        "(32768 for 16-bit) or save the file as PCM_16"]
    assert not (out / "loud.jsonl").exists()


def test_float_audio_with_mild_overshoot_is_accepted(tmp_path):
    from asraudit.audio.io import load_audio

    _manifest(tmp_path, 1.2)
    assert abs(float(np.abs(load_audio(tmp_path / "loud.wav")).max()) - 1.2) < 0.01
