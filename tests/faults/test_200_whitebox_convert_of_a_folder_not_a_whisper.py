"""Case 200: `asraudit whitebox convert DIR` (and `--model whitebox:DIR`) of a CTranslate2 folder that is not a
Whisper the converter reads: another architecture's `model.bin` (a translation model's `TransformerSpec`), one cut
short by an interrupted copy, an empty one; a `tokenizer.json` that is not JSON.

Each was a traceback before any model ran: `ConversionError: ...: spec 'TransformerSpec' is not WhisperSpec`,
`ValueError: ...: truncated CTranslate2 model at byte 187`, `ValueError: cannot mmap an empty file`,
`JSONDecodeError: Expecting value`.  Now one line
names the folder and what its model.bin holds, exit 2, and nothing is written to the cache.
"""

from __future__ import annotations

import shutil
import struct

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

PREFIX = "asraudit: error: {}: not a CTranslate2 Whisper model asraudit can convert: "
HINT = (" (asraudit converts Whisper models only; a folder cut short by an interrupted download or copy: "
        "fetch it again)")


def _string(text: str) -> bytes:
    raw = text.encode() + b"\0"
    return struct.pack("<H", len(raw)) + raw


def _folder(tmp_path, name, model_bin: bytes):
    """A CTranslate2 folder beside tiny.en's own config, tokenizer and vocabulary, holding ``model_bin``."""
    from asraudit.models.whitebox.sources import embedded_source

    source = embedded_source("whisper-tiny.en")
    folder = tmp_path / name
    folder.mkdir()
    for path in (source.config_json, source.tokenizer_json, source.vocabulary):
        shutil.copy(path, folder / path.name)
    (folder / "model.bin").write_bytes(model_bin)
    return folder


def _tiny_model_bin() -> bytes:
    from asraudit.models.whitebox.sources import embedded_source

    return embedded_source("whisper-tiny.en").model_bin.read_bytes()


@pytest.mark.parametrize("name, model_bin, reason", [
    ("translation", struct.pack("<I", 6) + _string("TransformerSpec") + struct.pack("<III", 1, 0, 0),
     "model.bin holds a CTranslate2 TransformerSpec, not a WhisperSpec"),
    ("empty", b"", "model.bin is empty"),
], ids=["translation", "empty"])
def test_another_architecture_or_an_empty_model_bin_is_one_line(tmp_path, cli, monkeypatch, name, model_bin, reason):
    monkeypatch.chdir(tmp_path)
    folder = _folder(tmp_path, name, model_bin)
    ran = cli("whitebox", "convert", folder.name, "--cache", "cache")
    assert ran.code == 2
    assert ran.error_lines == [PREFIX.format(name) + reason + HINT]
    assert "Traceback" not in ran.err
    assert not list((tmp_path / "cache").glob(f"whitebox/{name}*"))


def test_a_model_bin_cut_short_is_one_line(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = _folder(tmp_path, "cut", _tiny_model_bin()[:1_000_000])
    ran = cli("whitebox", "convert", "cut", "--cache", "cache")
    assert ran.code == 2
    assert len(ran.error_lines) == 1
    assert ran.error_lines[0].startswith(PREFIX.format("cut") + "model.bin: truncated CTranslate2 model at byte ")
    assert not list((tmp_path / "cache").glob(f"whitebox/{folder.name}*"))


def test_the_white_box_model_of_such_a_folder_is_the_same_line(tmp_path, monkeypatch):
    from asraudit.errors import InputError
    from asraudit.models.whitebox.model import WhiteboxWhisper

    monkeypatch.chdir(tmp_path)
    _folder(tmp_path, "empty", b"")
    with pytest.raises(InputError) as caught:
        WhiteboxWhisper.load("empty", cache=tmp_path / "cache")
    assert str(caught.value) == "empty: not a CTranslate2 Whisper model asraudit can convert: model.bin is empty" + HINT


def test_a_tokenizer_that_is_not_json_is_named(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = _folder(tmp_path, "badtok", _tiny_model_bin())
    (folder / "tokenizer.json").write_text("<html>rate limited</html>\n", encoding="utf-8")
    ran = cli("whitebox", "convert", "badtok", "--cache", "cache")
    assert ran.code == 2
    assert ran.error_lines == [PREFIX.format("badtok") + "tokenizer.json is not JSON (Expecting value: line 1 column 1 "
                               "(char 0))" + HINT]
