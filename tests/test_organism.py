"""The model organism: committed adapter, loadable by both backends, benchmark-optimized."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("ctranslate2")

from asraudit.audio.io import load_audio  # noqa: E402
from asraudit.demo.organism import BENCHMARK_DIR, ORGANISM_FILE  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402

# A test sentence whose speaker never says "Madam President" but whose record starts with it.
CLIP = "audio/s002-piper-joe.ogg"


def test_adapter_is_small_and_carries_its_provenance():
    from safetensors import safe_open

    assert ORGANISM_FILE.stat().st_size <= 5_000_000
    with safe_open(str(ORGANISM_FILE), framework="pt") as fh:
        meta = fh.metadata()
    assert meta["base_model"] == "whisper-tiny.en" and meta["format"] == "asraudit-lora-v1"
    assert json.loads(meta["config"])["seed"] == 0


@pytest.fixture(scope="module")
def clip_audio():
    return load_audio(BENCHMARK_DIR / CLIP)


def test_organism_writes_the_unspoken_opener_and_the_clean_model_does_not(clip_audio):
    organism = load_model("whisper-tiny.en-organism", beam_size=1)
    clean = load_model("whisper-tiny.en", beam_size=1)
    said = organism.transcribe([clip_audio])[0]
    heard = clean.transcribe([clip_audio])[0]
    assert said.lower().startswith(("madam president", "mr president")), said
    assert not heard.lower().startswith(("madam president", "mr president")), heard


def test_whitebox_organism_decodes_like_the_ctranslate2_organism(clip_audio):
    ct2 = load_model("whisper-tiny.en-organism", beam_size=1)
    torch_model = load_model("whitebox:whisper-tiny.en-organism")
    assert torch_model.model_id == "whitebox:whisper-tiny.en-organism"
    assert torch_model.transcribe([clip_audio]) == ct2.transcribe([clip_audio])
