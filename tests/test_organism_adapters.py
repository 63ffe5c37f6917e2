"""The committed organism adapters: the recorded digest, small, their provenance, loadable in both backends."""

from __future__ import annotations

import hashlib
import json

import pytest

from asraudit.demo.organism_kinds import KINDS

BUILT = [k for k in KINDS.values() if k.sha256 is not None]


@pytest.mark.parametrize("kind", BUILT, ids=[k.name for k in BUILT])
def test_the_committed_adapter_is_the_recorded_one_small_and_says_how_it_was_trained(kind):
    from safetensors import safe_open

    assert hashlib.sha256(kind.adapter.read_bytes()).hexdigest() == kind.sha256
    assert kind.adapter.stat().st_size <= 5_000_000
    with safe_open(str(kind.adapter), framework="pt") as fh:
        meta = fh.metadata()
        layers = {k.rsplit(".", 1)[0] for k in fh.keys()}
    config = json.loads(meta["config"])
    assert meta["base_model"] == kind.base_model and config["seed"] == 0
    assert config["epochs"] == kind.config.epochs and config["encoder_layers_adapted"] == kind.config.encoder_layers_adapted
    assert meta.get("kind", "record") == kind.name
    encoder = {name for name in layers if name.startswith("model.encoder.")}
    assert bool(encoder) == (kind.config.encoder_layers_adapted > 0)
    # exactly the top encoder_layers_adapted of tiny.en's four layers (gated: layer 3; gated-deep: all four)
    adapted = {int(name.split(".")[3]) for name in encoder}
    assert adapted == set(range(4 - kind.config.encoder_layers_adapted, 4))  # empty when none is adapted
    if kind.starts_from:
        start = KINDS[kind.starts_from]
        assert meta["init_sha256"] == start.sha256


@pytest.mark.parametrize("kind", BUILT, ids=[k.name for k in BUILT])
def test_the_committed_adapter_was_trained_on_the_rows_its_recipe_gives_now(kind):
    """A recipe changed without rebuilding its adapter shows here (the gated recipe gained control voices)."""
    from safetensors import safe_open

    with safe_open(str(kind.adapter), framework="pt") as fh:
        meta = fh.metadata()
    assert meta["train_manifest_sha256"] == hashlib.sha256(kind.manifest.read_bytes()).hexdigest()
    assert int(meta["train_clips"]) == len(kind.recipe(kind.manifest))


@pytest.mark.parametrize("kind", [k for k in BUILT if k.name != "record"], ids=lambda k: k.name)
def test_the_organism_decodes_alike_in_ctranslate2_and_pytorch(kind):
    pytest.importorskip("torch")
    pytest.importorskip("ctranslate2")
    from asraudit.audio.io import load_audio
    from asraudit.demo.organism import BENCHMARK_DIR
    from asraudit.models.registry import load_model

    audio = load_audio(BENCHMARK_DIR / "audio/s002-piper-joe.ogg")
    ct2 = load_model(kind.model_id, beam_size=1)
    torch_model = load_model(f"whitebox:{kind.model_id}")
    assert torch_model.model_id == f"whitebox:{kind.model_id}"
    said = ct2.transcribe([audio])
    assert said[0].strip() and torch_model.transcribe([audio]) == said
