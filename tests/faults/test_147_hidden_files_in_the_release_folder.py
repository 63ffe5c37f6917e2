"""Case 147: the paper's released results copied from a Mac: ``._tiny_aggregate.json`` beside each file.

macOS writes its metadata for a file on a disk that cannot hold it as a
hidden binary file named ``._`` and the file's name.  ``reference --dir``
(and an audit's ``[published]``) read every ``*_aggregate.json``, hidden or
not, so the whole release was refused: ``._tiny_aggregate.json: not a JSON
file: Expecting value: line 1 column 1 (char 0)``; a hidden copy that was
JSON (``.tiny_aggregate.json``, an editor's backup) was listed as a set of
its own.  A predictions folder skips hidden files (case 21); the release
folder now does too.
"""

from __future__ import annotations

import json

from conftest import ONE_MODEL_AGGREGATE

AGGREGATE = ONE_MODEL_AGGREGATE


def test_hidden_files_are_not_read(tmp_path, cli):
    folder = tmp_path / "release"
    folder.mkdir()
    (folder / "tiny_aggregate.json").write_text(json.dumps(AGGREGATE), encoding="utf-8")
    (folder / "._tiny_aggregate.json").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        \x00\x02")
    (folder / ".old_aggregate.json").write_text(json.dumps(AGGREGATE), encoding="utf-8")
    from asraudit.data.published import load_published

    assert list(load_published(folder).sets) == ["tiny"]
    ran = cli("reference", "--dir", folder)
    assert ran.code == 0, ran.err
    assert "tiny" in ran.out and "old" not in ran.out
