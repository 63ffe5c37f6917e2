"""Case 271: two CTranslate2 folders with the same name (``ft1/model`` and ``ft2/model``, or a folder of the
user's named ``whisper-tiny.en``) converted into one cache: each has a cache folder of its own."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

FILES = ("config.json", "model.bin", "tokenizer.json", "vocabulary.txt")


def _folder(path, source=None):
    """``path`` linking to the files of a CTranslate2 Whisper: ``source``, or the embedded tiny.en."""
    from asraudit.models import embedded

    source = source or embedded.locate("whisper-tiny.en")
    path.mkdir(parents=True)
    for name in FILES:
        (path / name).symlink_to(source / name)
    return path


def test_two_folders_named_model_keep_two_conversions(tmp_path, cli, tiny_ct2_whisper):
    cache = tmp_path / "cache"
    ft1 = _folder(tmp_path / "ft1" / "model", tiny_ct2_whisper)
    ft2 = _folder(tmp_path / "ft2" / "model", tiny_ct2_whisper)
    first = cli("whitebox", "convert", ft1, "--cache", cache)
    assert first.code == 0, first.err
    second = cli("whitebox", "convert", ft2, "--cache", cache)
    assert second.code == 0, second.err
    slot1 = first.out.splitlines()[0].split(" -> ")[1]
    slot2 = second.out.splitlines()[0].split(" -> ")[1]
    assert first.out.startswith("converted model -> ") and second.out.startswith("converted model -> ")
    assert slot1 != slot2
    stamp = (cache / "whitebox" / slot2.rsplit("/", 1)[1] / "model.safetensors").stat().st_mtime_ns
    again = cli("whitebox", "convert", ft1, "--cache", cache)  # it converted again, over ft2's, before
    assert again.code == 0, again.err
    assert again.out.splitlines()[0] == f"cached model -> {slot1}"
    assert (cache / "whitebox" / slot2.rsplit("/", 1)[1] / "model.safetensors").stat().st_mtime_ns == stamp
    assert sorted(p.name for p in (cache / "whitebox").iterdir()) == sorted(s.rsplit("/", 1)[1] for s in (slot1, slot2))


def test_a_folder_named_as_an_embedded_model_has_a_slot_of_its_own(tmp_path):
    from asraudit.models.whitebox.convert import conversion_dir
    from asraudit.models.whitebox.sources import embedded_source, source_from_dir

    mine = source_from_dir(_folder(tmp_path / "whisper-tiny.en"))
    assert mine.name == "whisper-tiny.en"  # the model is still named by its folder: whitebox:whisper-tiny.en
    assert conversion_dir(mine.cache_name, tmp_path) != conversion_dir(embedded_source("whisper-tiny.en").cache_name,
                                                                       tmp_path)
    assert conversion_dir(embedded_source("whisper-tiny.en").cache_name, tmp_path) == (
        tmp_path / "whitebox" / "whisper-tiny.en")  # the embedded models keep their names
    assert conversion_dir(embedded_source("whisper-base").cache_name, tmp_path) == tmp_path / "whitebox" / "whisper-base"


def test_a_long_folder_name_still_makes_a_slot(tmp_path):
    from asraudit.models.whitebox.sources import source_from_dir

    long = "é" * 120  # 240 bytes: with the digest and the staging folder's suffix, past 255
    slot = source_from_dir(_folder(tmp_path / long)).cache_name
    assert len(slot.encode()) <= 140 and slot.startswith("é" * 60)
