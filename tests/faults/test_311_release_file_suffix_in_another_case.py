"""Case 311: a release file whose suffix is in another case (``x_Aggregate.JSON``).

``asraudit reference`` found the release's sets with a case-sensitive
``*_aggregate.json`` match: a set saved as ``big_Aggregate.JSON`` (a copy
through a tool that changes case) was not read and not named, so the listing
went on without it, exit 0, and ``asraudit reference big`` said "no published
set 'big'" though the file was in the folder.  A predictions folder matches
its suffixes ignoring case; the release folder does now too, and two files
that name one set (``big_aggregate.json`` beside ``big_Aggregate.JSON``) are
refused, naming both, rather than one hiding the other.
"""

from __future__ import annotations

import json

from conftest import ONE_MODEL_AGGREGATE

AGGREGATE = ONE_MODEL_AGGREGATE


def _folder(tmp_path, *names):
    folder = tmp_path / "release"
    folder.mkdir()
    for name in names:
        (folder / name).write_text(json.dumps(AGGREGATE), encoding="utf-8")
    return folder


def test_a_suffix_in_another_case_is_read(tmp_path, cli):
    folder = _folder(tmp_path, "tiny_aggregate.json", "big_Aggregate.JSON")
    listing = cli("reference", "--dir", folder)
    assert listing.code == 0, listing.err
    assert "big" in listing.out and "tiny" in listing.out
    one = cli("reference", "--dir", folder, "big")
    assert one.code == 0, one.err


def test_two_files_of_one_set_are_refused(tmp_path, cli):
    folder = _folder(tmp_path, "big_aggregate.json", "big_AGGREGATE.json")
    ran = cli("reference", "--dir", folder)
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {folder}: two aggregate files for set 'big': big_AGGREGATE.json and "
                               "big_aggregate.json"]
