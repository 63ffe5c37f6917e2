"""pocketsphinx: transcription and forced alignment on the LibriVox clips."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pocketsphinx")

from asraudit.metrics import corpus_wer  # noqa: E402
from asraudit.models.pocketsphinx import PocketSphinx, alignment_words  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402
from asraudit.text.normalize import get_normalizer  # noqa: E402


@pytest.fixture(scope="module")
def sphinx() -> PocketSphinx:
    return load_model("pocketsphinx")


def test_pocketsphinx_transcribes_real_speech(sphinx, librivox, librivox_audio):
    hyps = sphinx.transcribe([librivox_audio[c.clip_id] for c in librivox[:3]])
    norm = get_normalizer("whisper")
    score = corpus_wer([norm(c.transcript) for c in librivox[:3]], [norm(h) for h in hyps])
    # A 2010s GMM model: far from Whisper, far better than chance.
    assert score.rate < 0.6, hyps
    assert all(hyps)


def test_forced_alignment_reproduces_the_word_timings_shipped_with_the_clips(sphinx, librivox, librivox_audio):
    clip = librivox[0]
    timings = sphinx.align(librivox_audio[clip.clip_id], clip.transcript)
    assert [t.word for t in timings] == [w for w, _, _ in clip.word_timings]
    starts = np.array([t.start for t in timings])
    expected = np.array([s for _, s, _ in clip.word_timings])
    assert np.abs(starts - expected).mean() < 0.05
    assert all(t.start < t.end for t in timings)
    assert all(a.end <= b.start + 1e-9 for a, b in zip(timings, timings[1:]))


def test_words_missing_from_the_dictionary_are_named(sphinx, librivox_audio):
    audio = next(iter(librivox_audio.values()))
    with pytest.raises(ValueError, match="zqxjkw"):
        sphinx.align(audio, "and mister zqxjkw")


def test_alignment_words_drop_punctuation_and_case():
    assert alignment_words("Ill-disposed, Mr. O'Brien!") == ["ill", "disposed", "mr", "o'brien"]


def test_transcribing_silence_gives_empty_or_filler_free_text(sphinx):
    (text,) = sphinx.transcribe([np.zeros(16000, np.float32)])
    assert "<sil>" not in text
    assert len(sphinx.config_hash) == 16


def test_an_alignment_without_a_path_is_a_value_error_not_a_crash(sphinx):
    """A pure tone holds no path for "low": the aligner's segments are None, which must read as a failed
    alignment (the ValueError align_clips reports and skips), not a TypeError that stops an audit."""
    t = np.arange(8000) / 16000
    with pytest.raises(ValueError, match="alignment failed"):
        sphinx.align((0.3 * np.sin(2 * np.pi * 300 * t)).astype(np.float32), "low")
