"""Whisper's tokenizer (merge restoration, prompts, offsets) and log-mel front end."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("tokenizers")

from asraudit.models import embedded  # noqa: E402
from asraudit.models.whisper_frontend import (  # noqa: E402
    N_FRAMES,
    N_SAMPLES,
    log_mel_spectrogram,
    mel_filters,
    split_windows,
)
from asraudit.models.whisper_tokenizer import WhisperTokenizer, restore_missing_merges  # noqa: E402


def _data_dir(name: str):
    if not embedded.is_present(name):
        pytest.skip(f"embedded model {name} is not installed")
    return embedded._data_dirs(embedded.EMBEDDED_MODELS[name])[0]


@pytest.fixture(scope="module")
def base_tokenizer() -> WhisperTokenizer:
    return WhisperTokenizer(_data_dir("whisper-base") / "tokenizer.json", multilingual=True)


@pytest.fixture(scope="module")
def tiny_tokenizer() -> WhisperTokenizer:
    return WhisperTokenizer(_data_dir("whisper-tiny.en") / "tokenizer.json", multilingual=False)


def test_a_tokenizer_file_is_read_once_per_version_of_it(tmp_path):
    """Every Whisper load (and the candidate check, the token counter) reads tokenizer.json: once per process now,
    and again when the file is replaced."""
    import shutil

    path = shutil.copy(_data_dir("whisper-base") / "tokenizer.json", tmp_path / "tokenizer.json")
    first, second = WhisperTokenizer(path, multilingual=True), WhisperTokenizer(path, multilingual=True)
    assert first._tok is second._tok and first.restored_merges == second.restored_merges == [("Ġ", "t")]
    data = json.loads(path.read_text(encoding="utf-8"))
    data["model"]["merges"] = [m for m in data["model"]["merges"] if m not in ("i n", ["i", "n"])]
    path.write_text(json.dumps(data), encoding="utf-8")  # replaced: another size, another time
    third = WhisperTokenizer(path, multilingual=True)
    assert third._tok is not first._tok and third.restored_merges == [("Ġ", "t"), ("i", "n")]
    assert third.encode(" the").ids == first.encode(" the").ids


def test_base_tokenizer_encodes_the_as_one_token_after_restoring_the_lost_merge(base_tokenizer):
    assert base_tokenizer.restored_merges == [("Ġ", "t")]
    assert base_tokenizer.encode(" the").ids == (264,)
    assert base_tokenizer.id_to_token(264) == "Ġthe"
    assert len(base_tokenizer.encode("this is the test").ids) == 4


def test_the_wheel_file_really_lacks_the_merge_so_the_restoration_is_needed():
    import tokenizers

    raw = tokenizers.Tokenizer.from_file(str(_data_dir("whisper-base") / "tokenizer.json"))
    assert len(raw.encode(" the", add_special_tokens=False).ids) == 2


def test_every_restored_merge_produces_the_token_id_of_its_rank():
    data = json.loads((_data_dir("whisper-base") / "tokenizer.json").read_text())
    restore_missing_merges(data)
    vocab = data["model"]["vocab"]
    ranks = [vocab[m.replace(" ", "")] - 256 for m in data["model"]["merges"]]
    assert ranks == list(range(len(ranks)))


def test_a_complete_tokenizer_is_left_unchanged(tiny_tokenizer):
    assert tiny_tokenizer.restored_merges == []
    assert tiny_tokenizer.encode(" the").ids == (262,)


def _toy_bpe(extra_base: dict[str, int], merged: list[str], merges: list[str]) -> dict:
    vocab = {f"f{i}": i for i in range(256)}
    for token, i in extra_base.items():
        del vocab[f"f{i}"]
        vocab[token] = i
    vocab.update({token: 256 + k for k, token in enumerate(merged)})
    return {"model": {"vocab": vocab, "merges": merges}}


def test_a_lost_merge_is_restored_at_its_rank():
    data = _toy_bpe({"a": 0, "b": 1}, ["ab", "abb"], ["ab b"])
    assert restore_missing_merges(data) == [("a", "b")]
    assert data["model"]["merges"] == ["a b", "ab b"]


def test_ambiguous_lost_merges_are_refused_rather_than_guessed():
    # "abc" could be a+bc or ab+c: guessing would silently change tokenization.
    data = _toy_bpe({"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4, "z": 5}, ["abc", "zz"], ["z z"])
    with pytest.raises(ValueError, match="abc"):
        restore_missing_merges(data)


def test_prompts_follow_whisper_english_only_and_multilingual_conventions(tiny_tokenizer, base_tokenizer):
    assert tiny_tokenizer.prompt() == [tiny_tokenizer.sot, tiny_tokenizer.no_timestamps]
    ids = base_tokenizer.prompt("en", "transcribe")
    assert [base_tokenizer.id_to_token(i) for i in ids] == [
        "<|startoftranscript|>", "<|en|>", "<|transcribe|>", "<|notimestamps|>"
    ]


def test_token_ids_agree_with_the_ctranslate2_vocabulary_file(base_tokenizer):
    vocabulary = (_data_dir("whisper-base") / "vocabulary.txt").read_text(encoding="utf-8").split("\n")
    for token_id in (0, 220, 264, 1000, 50257, base_tokenizer.no_timestamps):
        assert vocabulary[token_id] == base_tokenizer.id_to_token(token_id)


def test_offsets_index_the_text_as_given_with_or_without_a_leading_space(tiny_tokenizer):
    for text in ("Mr. Dashwood", " Mr. Dashwood"):
        enc = tiny_tokenizer.encode(text)
        assert "".join(text[s:e] for s, e in enc.offsets).strip() == text.strip()
    assert tiny_tokenizer.encode("").ids == ()


def test_mel_filters_are_slaney_normalised_triangles():
    filters = mel_filters(80)
    assert filters.shape == (80, 201)
    assert (filters >= 0).all()
    assert np.count_nonzero(filters.sum(axis=1)) == 80
    assert mel_filters(128).shape == (128, 201)


def test_log_mel_matches_the_transformers_whisper_feature_extractor():
    transformers = pytest.importorskip("transformers")
    rng = np.random.default_rng(0)
    t = np.arange(int(2.5 * 16000)) / 16000
    audio = (0.3 * np.sin(2 * np.pi * 440 * t) + 0.05 * rng.standard_normal(t.size)).astype(np.float32)
    ours = log_mel_spectrogram(audio)
    extractor = transformers.WhisperFeatureExtractor(feature_size=80)
    theirs = extractor(audio, sampling_rate=16000, return_tensors="np").input_features[0]
    assert ours.shape == theirs.shape == (80, N_FRAMES)
    np.testing.assert_allclose(ours, theirs, atol=1e-4)


def test_padding_reads_as_silence_and_features_always_span_3000_frames():
    short = log_mel_spectrogram(np.zeros(1600, np.float32) + 0.01)
    assert short.shape == (80, N_FRAMES)
    assert np.allclose(short[:, 100:], short[:, -1:])  # after the audio: one constant silence column


def test_over_long_audio_is_split_not_truncated():
    audio = np.ones(N_SAMPLES * 2 + 5, np.float32)
    windows = split_windows(audio)
    assert [len(w) for w in windows] == [320002, 320001, 320002]  # near-equal (fault case 100), every sample kept
    with pytest.raises(ValueError, match="30 s"):
        log_mel_spectrogram(audio)
