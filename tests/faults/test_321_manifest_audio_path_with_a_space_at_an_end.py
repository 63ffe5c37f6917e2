"""Case 321: a manifest whose audio path has a space at either end (a spreadsheet's cell ``a.wav ``, a hand-edited
CSV ``the cat, a.wav``).

The path is the file's name as written, and no file ``a.wav `` is there, so the refusal is right; but it read
``audio file a.wav  is missing``, the space invisible, while ``a.wav`` is plainly in the folder.  The line now says
which name has the space and that the file without it is there (the path is not stripped: a name may end in a
space).
"""

from __future__ import annotations

import pytest

from conftest import one_clip_manifest


@pytest.mark.parametrize("written, shown", [("a.wav ", "a.wav "), (" a.wav", " a.wav")], ids=["after", "before"])
def test_the_space_is_named(tmp_path, cli, monkeypatch, written, shown):
    monkeypatch.chdir(tmp_path)
    one_clip_manifest(tmp_path)  # a.wav
    (tmp_path / "m.csv").write_text(f"audio_filepath,text\n{written},a tone\n", encoding="utf-8")
    ran = cli("transcribe", "--corpus", "m.csv", "--model", "pocketsphinx", "--out", "o", "--no-progress")
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [f"asraudit: error: m.csv, row 2: audio file {shown} is missing: the name {shown!r} has "
                               "a space at an end, and a.wav is there: remove the space from the manifest"]
    assert not (tmp_path / "o").exists()
