"""Case 349: a clip over one window long, transcribed in Chinese or Japanese, got a space at each window's cut.

Both windowing paths (Whisper's and the encoder-decoder families', ``transcribe_in_windows``; the speech LLMs',
``transcribe_windowed``) joined the windows' texts with a space.  Chinese and Japanese are written without
spaces, so a sentence cut in two windows came back with a space inside it: one more character for CER, two words
for WER where the speech has one run of text.  A window's own leading or trailing space doubled the space.
"""

from __future__ import annotations

import numpy as np
import pytest

from asraudit.models.hf_speech_llm import transcribe_windowed
from asraudit.models.whisper_frontend import join_window_texts, transcribe_in_windows

SR = 16_000


@pytest.mark.parametrize("texts, joined", [
    (["我们今天讨论", "预算问题。"], "我们今天讨论预算问题。"),
    (["議長、ありがとう", "ございます。"], "議長、ありがとうございます。"),
    (["第一句。", "第二句"], "第一句。第二句"),
    (["我们讨论", "Python"], "我们讨论 Python"),     # a cut between scripts keeps its space
    (["the budget", "debate"], "the budget debate"),
    ([" the budget ", " debate"], "the budget debate"),  # a window's own spaces are not doubled
    (["the budget", "", "debate"], "the budget debate"),  # a window that says nothing adds nothing
    (["ไปที่", "ตลาด"], "ไปที่ ตลาด"),                   # Thai writes a space where a phrase ends, as at a pause
    ([], ""),
])
def test_window_texts_join_as_their_script_is_written(texts, joined):
    assert join_window_texts(texts) == joined


HALVES = ("我们今天讨论", "预算问题。")  # "today we discuss" / "the budget question."


def two_window_clip(window_samples: int) -> np.ndarray:
    """Two tones, the second louder, cut from each other by a pause, so the split falls in the pause and each
    window says which half it is by its loudness."""
    t = np.arange(int(window_samples * 0.7)) / SR
    pause = np.zeros(int(window_samples * 0.4), dtype=np.float32)
    quiet, loud = ((a * np.sin(2 * np.pi * 220 * t)).astype(np.float32) for a in (0.2, 0.6))
    return np.concatenate([quiet, pause, loud])


def decode(windows):
    """Each window's half of the sentence, told by its loudness: the order windows are decoded in does not matter."""
    return [HALVES[int(np.abs(w).max() > 0.4)] for w in windows]


def test_whisper_style_windows_of_a_chinese_clip_join_without_a_space():
    clip = two_window_clip(2 * SR)
    assert transcribe_in_windows([clip], decode, batch_size=8, window_samples=2 * SR) == ["我们今天讨论预算问题。"]


def test_speech_llm_windows_of_a_chinese_clip_join_without_a_space():
    clip = two_window_clip(2 * SR)
    assert transcribe_windowed([clip], decode, batch_size=1, max_samples=2 * SR) == ["我们今天讨论预算问题。"]
