"""Case 72: a manifest ``duration`` that is not its audio file's length.

A duration of 9.0 for a 1.5 s file (a row pointing at other audio), or 1500
for it (milliseconds), was copied into every prediction file the run wrote
and into every RTFx, as given.  The file's header is read when the corpus is
loaded (case 29), so its length is known there: a duration off by more than
rounding (half a second, or a tenth) is refused, naming the row; one in
milliseconds is named as such.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

from asraudit.data.corpus import load_manifest
from asraudit.errors import InputError


@pytest.fixture()
def audio(tmp_path):
    sf.write(tmp_path / "a.wav", np.zeros(24_000, dtype=np.float32), 16_000)  # 1.5 s
    return tmp_path


def _manifest(folder, duration):
    m = folder / "m.jsonl"
    m.write_text(json.dumps({"audio_filepath": "a.wav", "text": "x", "duration": duration}) + "\n", encoding="utf-8")
    return m


@pytest.mark.parametrize("duration, said", [
    (9.0, "duration 9 s, but audio file {a} is 1.50 s long: the row names other audio, or its duration is wrong"),
    (1500, "duration 1500 s, but audio file {a} is 1.50 s long (milliseconds? asraudit reads seconds): the row "
           "names other audio, or its duration is wrong"),
])
def test_a_duration_that_is_not_the_files_length_is_refused(audio, duration, said):
    with pytest.raises(InputError) as caught:
        load_manifest(_manifest(audio, duration))
    assert str(caught.value).endswith(f"m.jsonl, row 1: {said.format(a=audio / 'a.wav')}")


@pytest.mark.parametrize("duration", [1.5, 1.49, 1.9, 1.1])
def test_a_rounded_duration_is_read(audio, duration):
    assert load_manifest(_manifest(audio, duration))["a.wav"].duration == duration
