"""Case 272: one CTranslate2 folder reached by two spellings of its path (``.`` and ``../model``, a link to it)
is one source: its conversion is reused, not made again."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")


def test_one_folder_by_three_paths_is_converted_once(tmp_path, cli, monkeypatch):
    from asraudit.models import embedded

    source = embedded.locate("whisper-tiny.en")
    folder = tmp_path / "ft" / "model"
    folder.mkdir(parents=True)
    for name in ("config.json", "model.bin", "tokenizer.json", "vocabulary.txt"):
        (folder / name).symlink_to(source / name)
    (tmp_path / "link").symlink_to(folder)
    cache = tmp_path / "cache"
    monkeypatch.chdir(folder)
    first = cli("whitebox", "convert", ".", "--cache", cache)
    assert first.code == 0, first.err
    assert first.out.startswith("converted model -> ")
    target = first.out.splitlines()[0].split(" -> ")[1]
    stamp = (cache / "whitebox" / target.rsplit("/", 1)[1] / "model.safetensors").stat().st_mtime_ns
    for spelling in ("../model", tmp_path / "link", folder):
        ran = cli("whitebox", "convert", spelling, "--cache", cache)
        assert ran.code == 0, ran.err
        assert ran.out.splitlines()[0] == f"cached model -> {target}"  # was: converted, each spelling again
    assert (cache / "whitebox" / target.rsplit("/", 1)[1] / "model.safetensors").stat().st_mtime_ns == stamp
