"""Case 312: one prediction file given twice to ``--preds``.

``preds --preds m1.jsonl m1.jsonl`` (or a folder and a file in it, ``p p/m1.jsonl``) stopped on "two prediction
files for model 'm1': m1.jsonl and m1.jsonl", which sent the user looking for a second file that does not exist;
a link beside its target (``m1.jsonl m1link.jsonl``) was read as a second model, ``m1link``, the same transcripts
listed and scored twice, exit 0.  The list of files is checked once, where ``--preds`` is expanded, for every
command that reads it: one file reached twice is refused in one line.
"""

from __future__ import annotations

import pytest

from tests.faults.conftest import write_preds


@pytest.fixture()
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p").mkdir()
    write_preds(tmp_path / "m1.jsonl", [("a", "hi there", "hi there")])
    write_preds(tmp_path / "p" / "m1.jsonl", [("a", "hi there", "hi there")])
    (tmp_path / "m1link.jsonl").symlink_to(tmp_path / "m1.jsonl")
    return tmp_path


@pytest.mark.parametrize("command", ["preds", "wer", "conventions"])
@pytest.mark.parametrize("files, line", [
    (["m1.jsonl", "m1.jsonl"], "m1.jsonl: the same prediction file is given twice: name it once"),
    (["m1.jsonl", "./m1.jsonl"], "m1.jsonl: the same prediction file is given twice: name it once"),
    (["p", "p/m1.jsonl"], "p/m1.jsonl: the same prediction file is given twice: name it once"),
    (["m1.jsonl", "m1link.jsonl"],
     "m1link.jsonl: the same prediction file is given twice (as m1.jsonl and as m1link.jsonl): name it once"),
], ids=["same-name", "dot-slash", "folder-and-file", "link"])
def test_one_file_given_twice_is_one_line(here, cli, command, files, line):
    ran = cli(command, "--preds", *files)
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {line}"]


def test_two_files_of_one_model_still_say_so(here, cli):
    ran = cli("preds", "--preds", "m1.jsonl", "p/m1.jsonl")
    assert ran.code == 2
    assert ran.error_lines == ["asraudit: error: p/m1.jsonl: two prediction files for model 'm1': m1.jsonl and "
                               "p/m1.jsonl"]
