"""Case 192: a folder of prediction files holding, under a model's file name, a symbolic link that points nowhere
or a FIFO: the entry was skipped without a word (``f.is_file()`` is false for both), so that model was missing
from every table, as if it had never been run (``wer --preds DIR`` printed the others, exit 0).  Now the folder is
refused naming the entry, as the same file named on its own is (case 17)."""

from __future__ import annotations

import os

from conftest import write_preds


def _folder(tmp_path):
    folder = tmp_path / "preds"
    folder.mkdir()
    for model in ("m0", "m3"):
        write_preds(folder / f"{model}.jsonl", [("a.wav", "a b", "a b")])
    return folder


def test_a_link_pointing_nowhere_is_named(tmp_path, cli):
    folder = _folder(tmp_path)
    (folder / "m1.jsonl").symlink_to("gone.jsonl")
    ran = cli("wer", "--preds", folder)
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {folder / 'm1.jsonl'}: prediction file is a symbolic link to gone.jsonl, which is not there"]


def test_a_fifo_is_named(tmp_path, cli):
    folder = _folder(tmp_path)
    os.mkfifo(folder / "m2.jsonl")
    ran = cli("wer", "--preds", folder)
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {folder / 'm2.jsonl'}: prediction file is not a regular file (a pipe, socket or device): "
        "save its rows to a file"]


def test_a_subfolder_and_hidden_files_are_still_passed_over(tmp_path, cli):
    folder = _folder(tmp_path)
    (folder / "sub.jsonl").mkdir()
    (folder / "._m0.jsonl").write_bytes(b"\x00\x05\x16\x07")
    ran = cli("wer", "--preds", folder, "--bootstrap", "0")
    assert ran.code == 0 and "m0" in ran.out and "m3" in ran.out
