"""Case 263: `asraudit whitebox convert .` (and `steer`/`patch --model .`) run inside a CTranslate2 Whisper folder.

A conversion is cached in a folder named after the model's folder, ``whitebox/NAME``; the name was
``Path(".").name``, which is empty, so the conversion's folder was ``whitebox`` itself: it was not a finished
conversion of this model, so publishing moved it aside and deleted it, every other model's conversion with it,
and put this conversion in its place (``converted  -> cache/whitebox``), exit 0.  Now the name is the folder's
own name (``m``), and a name that is no single folder name is refused before anything is written.
"""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")


def test_convert_dot_converts_into_the_folders_own_slot(tmp_path, cli, monkeypatch):
    from asraudit.models import embedded
    from asraudit.models.whitebox.sources import folder_slot

    source = embedded.locate("whisper-tiny.en")
    folder = tmp_path / "m"
    folder.mkdir()
    for name in ("config.json", "model.bin", "tokenizer.json", "vocabulary.txt"):
        (folder / name).symlink_to(source / name)
    other = tmp_path / "cache" / "whitebox" / "other-model"
    other.mkdir(parents=True)
    (other / "model.safetensors").write_bytes(b"another model's conversion")
    monkeypatch.chdir(folder)
    ran = cli("whitebox", "convert", ".", "--cache", tmp_path / "cache")
    assert ran.code == 0, ran.err
    slot = folder_slot("m", folder)  # the folder's name, then its path's digest (case 271)
    assert slot.startswith("m-")
    assert ran.out.splitlines()[0] == f"converted m -> {tmp_path / 'cache' / 'whitebox' / slot}"
    assert (other / "model.safetensors").read_bytes() == b"another model's conversion"
    assert sorted(p.name for p in (tmp_path / "cache" / "whitebox").iterdir()) == [slot, "other-model"]


@pytest.mark.parametrize("name", ["", ".", "..", "a/b"])
def test_a_name_that_is_no_folder_name_has_no_cache_slot(tmp_path, name):
    from asraudit.errors import InputError
    from asraudit.models.whitebox.convert import conversion_dir

    with pytest.raises(InputError) as err:
        conversion_dir(name, tmp_path)
    assert str(err.value) == (f"{name!r} is not a folder name, and a model's conversion is cached in a folder named "
                              "after it: name the model's folder by its path (its own name last)")
