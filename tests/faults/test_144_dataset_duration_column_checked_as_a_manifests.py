"""Case 144: a saved Hugging Face dataset whose ``duration`` column is wrong: milliseconds, text, NaN, negative,
or the length of other audio.

A manifest's ``duration`` is parsed and compared with its file's length
(cases 72 and 80); a dataset's was taken with ``float()``: ``"1.0s"`` stopped
the corpus with ``ValueError: could not convert string to float``, a
traceback, and NaN, ``-1`` or a length in milliseconds (1000 for a 1-s clip)
were kept as the clip's duration, written into the prediction file
(``"duration": 1000.0``) while the run's RTFx read the audio, exit 0.  Now a
dataset's ``duration`` is checked as a manifest's, when the corpus is loaded.
"""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf


def _saved(tmp_path, duration, *, embedded):
    datasets = pytest.importorskip("datasets")
    t = np.arange(16_000) / 16_000
    sf.write(tmp_path / "c0.wav", (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), 16_000)
    features = datasets.Features({"audio": datasets.Value("string"), "text": datasets.Value("string"),
                                  "duration": datasets.Value("string" if isinstance(duration, str) else "float64")})
    ds = datasets.Dataset.from_dict({"audio": [str(tmp_path / "c0.wav")], "text": ["a tone"], "duration": [duration]},
                                    features=features)
    if embedded:  # the file's bytes in the dataset, as save_to_disk keeps a hub dataset's audio
        ds = ds.cast_column("audio", datasets.Audio(decode=False)).map(
            lambda r: {"audio": {"bytes": open(r["audio"]["path"], "rb").read(), "path": None}})
    ds.save_to_disk(str(tmp_path / "saved"))
    return tmp_path / "saved"


@pytest.mark.parametrize("duration, said", [
    (1000.0, "duration 1000 s, but {audio} is 1.00 s long (milliseconds? asraudit reads seconds): the row names "
             "other audio, or its duration is wrong"),
    (7.0, "duration 7 s, but {audio} is 1.00 s long: the row names other audio, or its duration is wrong"),
    ("1.0s", "duration must be a number of seconds, got '1.0s'"),
    (float("nan"), "duration must be a non-negative, finite number of seconds, got nan"),
    (-1.0, "duration must be a non-negative, finite number of seconds, got -1.0"),
], ids=["milliseconds", "other-audio", "text", "nan", "negative"])
@pytest.mark.parametrize("embedded", [False, True], ids=["path", "bytes"])
def test_a_wrong_duration_is_refused_before_any_model_runs(tmp_path, cli, duration, said, embedded):
    saved = _saved(tmp_path, duration, embedded=embedded)
    audio = "the row's audio" if embedded else f"audio file {tmp_path / 'c0.wav'}"
    ran = cli("transcribe", "--corpus", saved, "--model", "pocketsphinx", "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {saved}, row 1: {said.format(audio=audio)}"]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("embedded", [False, True], ids=["path", "bytes"])
def test_a_right_or_missing_duration_is_kept(tmp_path, embedded):
    from asraudit.data.corpus import load_corpus

    assert [c.duration for c in load_corpus(_saved(tmp_path, 1.02, embedded=embedded))] == [1.02]
    assert [c.duration for c in load_corpus(_none(tmp_path, embedded))] == [None]


def _none(tmp_path, embedded):
    (tmp_path / "none").mkdir()
    return _saved(tmp_path / "none", None, embedded=embedded)
