"""Case 17: an input path that is a symbolic link loop, a dangling link, a pipe or a device.

A prediction file that was a symbolic link looping onto itself crashed
while the error was being worded (``RuntimeError: Symlink loop`` from
``Path.resolve`` as a traceback); ``/dev/null``, a FIFO, a looping and a
dangling link were all "no such prediction file" although something is
there.  Now each is one line saying what is there and what to give instead
(also for ``--review`` and ``--corrected``).
"""

from __future__ import annotations

import os

import pytest


@pytest.fixture()
def odd(tmp_path):
    os.symlink(tmp_path / "b.jsonl", tmp_path / "a.jsonl")
    os.symlink(tmp_path / "a.jsonl", tmp_path / "b.jsonl")
    os.symlink(tmp_path / "gone.jsonl", tmp_path / "dangling.jsonl")
    os.mkfifo(tmp_path / "fifo.jsonl")
    return tmp_path


def test_a_looping_link_named_from_its_folder_is_one_line(odd, cli, monkeypatch):
    monkeypatch.chdir(odd)  # the error names the file relative to here, which resolved the loop and crashed
    ran = cli("wer", "--preds", odd / "a.jsonl")
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == ["asraudit: error: a.jsonl: prediction file is a symbolic link that loops: "
                               "point it at a file"]


@pytest.mark.parametrize("name, message", [
    ("dangling.jsonl", "prediction file is a symbolic link to {odd}/gone.jsonl, which is not there"),
    ("fifo.jsonl", "prediction file is not a regular file (a pipe, socket or device): save its rows to a file"),
    ("missing.jsonl", "no such file or directory"),
])
def test_what_is_there_is_named(odd, cli, name, message):
    ran = cli("preds", "--preds", odd / name)
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [f"asraudit: error: {odd / name}: {message.format(odd=odd)}"]


def test_a_device_and_other_inputs(odd, cli):
    ran = cli("wer", "--preds", "/dev/null")
    assert ran.error_lines == ["asraudit: error: /dev/null: prediction file is not a regular file (a pipe, socket or "
                               "device): save its rows to a file"]
    ran = cli("refdis", "--review", odd / "a.jsonl")
    assert ran.error_lines == [f"asraudit: error: {odd / 'a.jsonl'}: review sheet is a symbolic link that loops: "
                               "point it at a file"]
    ran = cli("refdis", "--review", odd)
    assert ran.error_lines == [f"asraudit: error: {odd}: review sheet is a folder: name a file"]
