"""A model's identity in the result store follows its whole content: a fine-tune into the same folder is a
new model, whatever bytes it leaves alone (the old fingerprint read only the first and last megabyte)."""

from __future__ import annotations

import os

from asraudit.models.ct2_whisper import model_fingerprint
from asraudit.models.weights_digest import file_digest, folder_digest
from asraudit.models.whitebox.convert import weights_fingerprint

MB = 1 << 20


def _rewrite_middle(path, offset: int) -> None:
    """Flip one byte at ``offset`` in place: same size, same head and tail."""
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    stat = path.stat()
    path.write_bytes(bytes(data))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))  # a new version even on a coarse clock


def test_a_change_in_the_middle_of_model_bin_is_a_new_ct2_model(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "model.bin").write_bytes(bytes(5 * MB))
    before = model_fingerprint(tmp_path)
    assert model_fingerprint(tmp_path) == before  # stable
    _rewrite_middle(tmp_path / "model.bin", 5 * MB // 2)
    assert model_fingerprint(tmp_path) != before


def test_a_fine_tune_into_the_same_transformers_folder_is_a_new_model(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "model.safetensors").write_bytes(bytes(3 * MB))
    (tmp_path / "tokenizer.json").write_text("{}")
    before, folder_before = weights_fingerprint(tmp_path), folder_digest(tmp_path)
    _rewrite_middle(tmp_path / "model.safetensors", 3 * MB // 2)
    assert weights_fingerprint(tmp_path) != before and folder_digest(tmp_path) != folder_before
    folder_now = folder_digest(tmp_path)
    (tmp_path / "tokenizer.json").write_text('{"changed": 1}')  # the tokenizer decides outputs too
    assert folder_digest(tmp_path) != folder_now


def test_the_digest_is_of_content_not_place(tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "model.bin").write_bytes(b"weights" * 1000)
        (tmp_path / name / ".hidden").write_text(name)  # hidden files are not the model
    assert folder_digest(tmp_path / "a") == folder_digest(tmp_path / "b")
    assert file_digest(tmp_path / "a" / "model.bin") == file_digest(tmp_path / "b" / "model.bin")
