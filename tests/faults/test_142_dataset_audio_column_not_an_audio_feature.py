"""Case 142: a saved Hugging Face dataset whose audio column is no ``Audio`` feature.

A column of decoded audio, ``{"array": [...], "sampling_rate": N}`` per row
(what ``Dataset.from_dict`` or ``from_pandas`` types the rows of a decoded
``Audio`` column as, when they are not cast back), stopped every command that
read the corpus with ``ImportError: To support encoding audio data, please
install 'torchcodec'.``, a traceback: asraudit cast the column to
``Audio(decode=False)``, which asks ``datasets`` to encode every array.  A
column of numbers stopped with pyarrow's ``ArrowNotImplementedError:
Unsupported cast from int64 to struct``.  Now decoded arrays are read as
samples at their rate (resampled to 16 kHz, channels-first arrays mixed to
mono, checked when the corpus is loaded), and a column that holds no audio
is one line naming it, before any model runs.
"""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf

RATE = 8_000


def _tone(seconds=1.0):
    t = np.arange(int(RATE * seconds)) / RATE
    return (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)


def test_decoded_arrays_are_read_at_their_rate(tmp_path):
    datasets = pytest.importorskip("datasets")
    from asraudit.data.corpus import load_corpus

    tone = _tone()
    sf.write(tmp_path / "tone.wav", tone, RATE, subtype="FLOAT")
    datasets.Dataset.from_dict({"audio": [{"array": tone.tolist(), "sampling_rate": RATE}], "text": ["a tone"]}) \
        .save_to_disk(str(tmp_path / "mono"))
    two = [{"array": np.stack([tone, 0.5 * tone]).tolist(), "sampling_rate": RATE}]  # datasets' channels-first layout
    datasets.Dataset.from_dict({"audio": two, "text": ["two channels"]}).save_to_disk(str(tmp_path / "stereo"))
    corpus, stereo = load_corpus(tmp_path / "mono"), load_corpus(tmp_path / "stereo")
    assert corpus.ids == ["0"] and corpus["0"].reference == "a tone" and stereo["0"].reference == "two channels"
    from asraudit.audio.io import load_audio

    expected = load_audio(tmp_path / "tone.wav")  # the same samples as a file: 16,000 samples at 16 kHz
    mono, mixed = corpus["0"].decode(), stereo["0"].decode()
    assert mono.shape == expected.shape == (16_000,)
    np.testing.assert_allclose(mono, expected, atol=1e-6)
    np.testing.assert_allclose(mixed, 0.75 * expected, atol=1e-6)  # the mean of the two channels


def test_decoded_array_with_a_broken_rate_is_refused_at_load(tmp_path):
    datasets = pytest.importorskip("datasets")
    from asraudit.data.corpus import load_corpus
    from asraudit.errors import InputError

    rows = {"audio": [{"array": _tone().tolist(), "sampling_rate": 0}], "text": ["a tone"]}
    datasets.Dataset.from_dict(rows).save_to_disk(str(tmp_path / "saved"))
    with pytest.raises(InputError, match=r"saved, row 1: audio file clip 0: sample rate 0 Hz is below 4000 Hz"):
        load_corpus(tmp_path / "saved")


def test_a_column_of_numbers_is_one_line_before_any_model_runs(tmp_path, cli):
    datasets = pytest.importorskip("datasets")
    saved = tmp_path / "saved"
    datasets.Dataset.from_dict({"audio": [3, 4], "text": ["a", "b"]}).save_to_disk(str(saved))
    ran = cli("transcribe", "--corpus", saved, "--model", "pocketsphinx", "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {saved}: column 'audio' holds Value('int64'), not audio: give an Audio column "
        "(file paths or encoded bytes), or decoded arrays with their sampling_rate"]
    assert "Traceback" not in ran.err
    assert not (tmp_path / "out").exists()
