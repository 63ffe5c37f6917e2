"""Case 74: samples that fail the decode checks are refused when the corpus is read, not when the run reaches them.

NaN samples, float samples at integer scale (case 6) and channels that
cancel (case 41) were found only when a clip was decoded, during the run:
at row 90,000 of a corpus that was after the models had worked through the
rows before it.  Only float and multichannel files can hold such samples
(libsndfile scales integer PCM into [-1, 1], and one channel cannot cancel),
so the corpus check decodes those files once more and refuses a bad one in
the manifest's row, before any model runs; integer mono files, most speech
corpora, are still read by their headers alone.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
import soundfile as sf

from asraudit.audio import io as audio_io
from asraudit.audio.io import check_audio_bytes
from asraudit.data.corpus import load_manifest
from asraudit.errors import InputError

SR = 16_000
TONE = (0.3 * np.sin(2 * np.pi * 220 * np.arange(SR) / SR)).astype(np.float32)
NAN = TONE.copy()
NAN[100] = np.nan


def _corpus(tmp_path, bad: np.ndarray, subtype: str = "FLOAT"):
    """Three clips, the bad one last (the run would have reached it after the others)."""
    rows = []
    for i in range(2):
        sf.write(tmp_path / f"ok{i}.wav", TONE, SR, subtype="PCM_16")
        rows.append({"audio_filepath": f"ok{i}.wav", "text": "a tone"})
    sf.write(tmp_path / "bad.wav", bad, SR, subtype=subtype)
    rows.append({"audio_filepath": "bad.wav", "text": "a tone"})
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return manifest


@pytest.mark.parametrize("bad, said", [
    (NAN, "audio contains NaN or infinite samples"),
    (TONE * 32767.0, f"float samples reach {float(np.abs(TONE * 32767.0).max()):g}, far outside [-1, 1] (16-bit "
                     "integer values stored as float?): divide them by the integer full scale (32768 for 16-bit) or "
                     "save the file as PCM_16"),
    (np.stack([TONE, -TONE], axis=1), "its 2 channels cancel when mixed to mono (the mix is over 120 dB below the "
                                      "loudest channel: one is the other inverted?): save one channel, or invert one "
                                      "back"),
], ids=["nan", "integer-scale", "cancelling"])
def test_bad_samples_are_refused_when_the_manifest_is_read(tmp_path, bad, said):
    manifest = _corpus(tmp_path, bad)
    with pytest.raises(InputError) as caught:
        load_manifest(manifest)
    assert str(caught.value).endswith(f"m.jsonl, row 3: audio file {tmp_path / 'bad.wav'}: {said}")


def test_a_dataset_rows_bytes_are_checked_the_same_way():
    buffer = io.BytesIO()
    sf.write(buffer, NAN, SR, format="WAV", subtype="FLOAT")
    with pytest.raises(InputError, match="^clip 7: audio contains NaN or infinite samples$"):
        check_audio_bytes(buffer.getvalue(), name="clip 7")


def test_integer_mono_files_are_read_by_their_headers_alone(tmp_path, monkeypatch):
    decoded = []
    monkeypatch.setattr(audio_io, "_check_samples", lambda *args: decoded.append(args[1]))
    corpus = load_manifest(_corpus(tmp_path, TONE, subtype="PCM_16"))
    assert len(corpus) == 3 and decoded == []  # no sample read at load
    stereo = load_manifest(_corpus(tmp_path, np.stack([TONE, TONE], axis=1), subtype="PCM_16"))
    assert len(stereo) == 3 and decoded == [tmp_path / "bad.wav"]  # two channels: read to check the mix
