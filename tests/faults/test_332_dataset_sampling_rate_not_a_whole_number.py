"""Case 332: a saved Hugging Face dataset whose audio column holds decoded arrays (``{"array", "sampling_rate"}``
per row, as ``Dataset.from_dict`` or ``from_pandas`` types a decoded column) with a ``sampling_rate`` that is no
whole number of Hz: NaN (a float column with a gap), infinity, ``16000.5``, the text ``"16k"``.

``audio.io.prepare`` read the rate with ``int()``: NaN stopped the run with ``ValueError: cannot convert float NaN
to integer``, infinity with ``OverflowError``, ``"16k"`` with ``ValueError: invalid literal for int()``,
tracebacks, and 16000.5 was cut to 16000 without a word.  Now the rate is refused at its row, before any model
runs; a whole float rate (``8000.0``) is that rate, as before.
"""

from __future__ import annotations

import numpy as np
import pytest


def _saved(tmp_path, rate):
    datasets = pytest.importorskip("datasets")
    samples = (0.1 * np.sin(np.arange(16_000) / 5)).astype(np.float32).tolist()
    folder = tmp_path / "saved"
    datasets.Dataset.from_dict({"audio": [{"array": samples, "sampling_rate": rate}], "text": ["a tone"]}) \
        .save_to_disk(str(folder))
    return folder


@pytest.mark.parametrize("rate, shown", [(float("nan"), "nan"), (float("inf"), "inf"), (16000.5, "16000.5"),
                                         ("16k", "'16k'")], ids=["nan", "inf", "fraction", "text"])
def test_a_rate_that_is_no_whole_number_is_refused_at_its_row(tmp_path, cli, rate, shown):
    saved = _saved(tmp_path, rate)
    ran = cli("transcribe", "--corpus", saved, "--model", "pocketsphinx", "--out", tmp_path / "out", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {saved}, row 1: audio file clip 0: sample rate {shown} is not a whole number of Hz (a "
        "broken row?): give the rate the samples were recorded at"])
    assert not (tmp_path / "out").exists()


def test_control_a_whole_float_rate_is_that_rate(tmp_path):
    from asraudit.data.corpus import load_corpus

    clip = load_corpus(_saved(tmp_path, 8000.0)).clips[0]
    assert clip.decode().size == 32_000  # one second at 8 kHz is two at 16 kHz
