"""Case 135: an output file option naming a stream (a FIFO, ``/proc/self/fd/N``, ``/dev/stdout``) or a symbolic link.

Outputs are written whole (a temporary file beside the path, then renamed onto it: cases 109 and 110), and the
rename replaced whatever the path was.  ``wer --json FIFO`` put a regular file where the FIFO was, so its reader
got nothing (and waited for ever); ``--json link.json``, a link to a file kept elsewhere, replaced the link with a
file and left the linked file as it was; ``--json /proc/self/fd/3`` (``/dev/fd/3`` is a link to it: a shell's
``>(...)``) failed creating the temporary file beside it; and as root, ``--json /dev/stdout`` or ``--out
/dev/null`` replaced the system's ``/dev/stdout`` link or ``/dev/null`` device with a regular file.  Every writer
now goes through ``data.paths.written_whole``: a stream is written directly, a link's target is replaced.
"""

from __future__ import annotations

import json
import os
import stat
import threading

import pytest

from conftest import PANEL, panel_files, release_fifo_reader

ROWS = [(f"c{i}", "the cat sat on the mat", "the cat sat on a mat") for i in range(4)]


def _command(kind: str, preds, out) -> list:
    if kind == "wer --json":
        return ["wer", "--preds", preds, "--json", out]
    if kind == "conventions --json":
        return ["conventions", "--preds", preds, "--json", out]
    if kind == "refdis --json":
        return ["refdis", "--preds", preds, "--panel", ",".join(PANEL), "--json", out]
    return ["refdis", "--preds", preds, "--panel", ",".join(PANEL), "--edits-out", out]


KINDS = ("wer --json", "conventions --json", "refdis --json", "refdis --edits-out")


@pytest.mark.parametrize("kind", KINDS)
def test_a_fifo_gets_the_output_and_stays_a_fifo(tmp_path, cli, kind):
    preds = panel_files(tmp_path / "preds", ROWS)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read():
        with open(fifo, "rb") as fh:
            got.append(fh.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        ran = cli(*_command(kind, preds, fifo))
    finally:
        if reader.is_alive():  # a run that never opened the FIFO: let the reader finish
            release_fifo_reader(fifo)
        reader.join(30)
    assert ran.code == 0, ran.err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    text = got[0].decode("utf-8")
    assert text, "the FIFO's reader got nothing"
    if kind == "refdis --edits-out":
        assert [json.loads(line)["clip"] for line in text.splitlines()] == ["c0", "c1", "c2", "c3"]
    else:
        assert isinstance(json.loads(text), dict)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_link_to_a_file_elsewhere_stays_a_link_and_its_file_is_written(tmp_path, cli, kind):
    preds = panel_files(tmp_path / "preds", ROWS)
    kept = tmp_path / "kept"
    kept.mkdir()
    target = kept / "result.json"
    target.write_text("old\n", encoding="utf-8")
    link = tmp_path / "out" / "result.json"
    link.parent.mkdir()
    link.symlink_to(target)
    ran = cli(*_command(kind, preds, link))
    assert ran.code == 0, ran.err
    assert link.is_symlink() and os.readlink(link) == str(target)
    text = target.read_text(encoding="utf-8")
    assert text != "old\n"
    if kind == "refdis --edits-out":
        assert [json.loads(line)["clip"] for line in text.splitlines()] == ["c0", "c1", "c2", "c3"]
    else:
        assert isinstance(json.loads(text), dict)
    assert sorted(p.name for p in kept.iterdir()) == ["result.json"]
    assert sorted(p.name for p in link.parent.iterdir()) == ["result.json"]


def test_a_file_descriptor_path_is_written_as_a_stream(tmp_path, cli):
    """``--json /proc/self/fd/N``, what ``/dev/fd/N`` and a shell's ``>(...)`` name."""
    preds = panel_files(tmp_path / "preds", ROWS)
    read_end, write_end = os.pipe()
    try:
        ran = cli("wer", "--preds", preds, "--json", f"/proc/self/fd/{write_end}")
        os.close(write_end)
        write_end = None
        with os.fdopen(read_end, "rb") as fh:
            read_end = None
            text = fh.read().decode("utf-8")
    finally:
        for fd in (read_end, write_end):
            if fd is not None:
                os.close(fd)
    assert ran.code == 0, ran.err
    assert list(json.loads(text)) == ["scorer", "normalizer", "models"]


def test_the_whole_file_writer_of_the_audit_outputs_writes_into_a_fifo(tmp_path):
    """``write_text_whole``, which writes report.html, summary.json and ``report --out``."""
    from asraudit.data.paths import write_text_whole

    fifo = tmp_path / "page.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
    reader.start()
    write_text_whole(fifo, "<html></html>\n")
    reader.join(30)
    assert got == [b"<html></html>\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_standard_output_sent_to_a_file_gets_the_table_then_the_json(tmp_path):
    """``asraudit wer --json /dev/fd/1 > all.txt``: the JSON comes after the table, which is kept (opened anew for
    writing, ``/dev/fd/1`` truncated the file the shell had opened, and the table printed before was lost)."""
    import subprocess
    import sys

    from conftest import PROJECT_ROOT

    preds = panel_files(tmp_path / "preds", ROWS)
    out = tmp_path / "all.txt"
    env = dict(os.environ, PYTHONPATH=str(PROJECT_ROOT / "src"))
    with out.open("w") as fh:
        done = subprocess.run([sys.executable, "-m", "asraudit", "wer", "--preds", str(preds), "--json", "/dev/fd/1"],
                              stdout=fh, stderr=subprocess.PIPE, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    table, brace, rest = text.partition("\n{")
    assert table.startswith("WER (asraudit scorer") and "m3" in table
    assert list(json.loads(brace.strip() + rest)) == ["scorer", "normalizer", "models"]


def test_a_regular_file_under_dev_is_replaced_not_appended_to(tmp_path, cli):
    """Only a path naming a file descriptor is a stream by its name: ``/dev/shm/x.json`` (a file in memory) written
    twice holds the second run's JSON alone."""
    from pathlib import Path

    shm = Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK):
        pytest.skip("no writable /dev/shm")
    preds = panel_files(tmp_path / "preds", ROWS)
    out = shm / f"asraudit-test-135-{os.getpid()}.json"
    try:
        for _ in range(2):
            ran = cli("wer", "--preds", preds, "--json", out)
            assert ran.code == 0, ran.err
        assert list(json.loads(out.read_text(encoding="utf-8"))) == ["scorer", "normalizer", "models"]
        assert stat.S_ISREG(os.lstat(out).st_mode)
    finally:
        out.unlink(missing_ok=True)
