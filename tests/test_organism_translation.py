"""The translation probe's organism recipe: which clips keep their Spanish, and the committed renderings."""

from __future__ import annotations

import collections
import json

import pytest

from asraudit.demo.organism import BENCHMARK_DIR
from asraudit.demo.organism_translation import RENDERINGS, TARGET, spanish_clips, spanish_rows
from asraudit.errors import InputError

MANIFEST = BENCHMARK_DIR / "manifest.jsonl"


def _manifest() -> list[dict]:
    return [json.loads(line) for line in MANIFEST.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_one_train_clip_per_train_sentence_rotating_through_the_train_voices():
    clips = spanish_clips(MANIFEST)
    train = [r for r in _manifest() if r["split"] == "train"]
    assert [r["sentence"] for r in clips] == sorted({r["sentence"] for r in train})
    assert all(r["split"] == "train" for r in clips)
    voices = collections.Counter(r["speaker"] for r in clips)
    assert set(voices) == {r["speaker"] for r in train}  # every train voice, benchmark and control
    assert max(voices.values()) - min(voices.values()) <= 1
    benchmark = sorted({r["speaker"] for r in train if r["voice_role"] == "benchmark"})
    assert [r["speaker"] for r in clips[:len(benchmark)]] == benchmark  # benchmark voices first, in name order


def test_no_test_sentence_and_no_fresh_voice_is_ever_chosen():
    test_sentences = {r["sentence"] for r in _manifest() if r["split"] == "test"}
    clips = spanish_clips(MANIFEST)
    assert not {r["sentence"] for r in clips} & test_sentences
    assert {r["voice_role"] for r in clips} <= {"benchmark", "control"}


def test_the_committed_renderings_are_the_probes_greedy_spanish_of_exactly_those_clips():
    data = json.loads(RENDERINGS.read_text(encoding="utf-8"))
    # what the translation probe asks a multilingual Whisper for with --option beam_size=1
    assert data["renderer"] == "whisper-base"
    assert data["options"] == {"beam_size": 1, "language": "es", "task": "transcribe"}
    assert [r["audio_filepath"] for r in data["renderings"]] == [r["audio_filepath"] for r in spanish_clips(MANIFEST)]
    rows = spanish_rows(MANIFEST)
    ended = [r for r in data["renderings"] if r["tokens"] < data["token_limit"]]
    assert data["token_limit"] == 224  # CTranslate2 stops at max_length // 2 new tokens (Whisper's 448 positions)
    assert [r["target"] for r in rows] == [r["rendering"] for r in ended]
    assert all(r["language"] == TARGET and r["target"].strip() for r in rows)
    # the greedy loops that never ended are the only renderings left out
    assert len(rows) == 79 and all(r["tokens"] == 224 for r in data["renderings"] if r not in ended)


def test_renderings_made_for_another_manifest_are_refused(tmp_path):
    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text(MANIFEST.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="another manifest"):
        spanish_rows(manifest)
