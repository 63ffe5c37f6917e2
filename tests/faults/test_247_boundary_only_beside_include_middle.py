"""Case 247: ``refdis --boundary-only --include-middle`` (or the two the other way round; also with
``--compat hume``): two options that say opposite things about where edits are mined.

Before, both wrote one value and the last given won with no word: ``--compat hume --include-middle
--boundary-only`` mined boundary edits only, and its output says nothing of which was used, exit 0."""

from __future__ import annotations

import pytest

from tests.faults.conftest import panel_files

ROWS = [("c0", "the cat sat", "the cat sat down"), ("c1", "a dog ran", "a dog ran off")]


@pytest.mark.parametrize("order", [("--boundary-only", "--include-middle"), ("--include-middle", "--boundary-only")])
@pytest.mark.parametrize("compat", [(), ("--compat", "hume")])
def test_opposite_options_are_refused(cli, capsys, tmp_path, order, compat):
    folder = panel_files(tmp_path / "p", ROWS)
    with pytest.raises(SystemExit) as stop:
        cli("refdis", "--preds", folder, "--panel", "m1,m2,m3", *compat, *order)
    assert stop.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"asraudit refdis: error: argument {order[1]}: not allowed with argument {order[0]}")


def test_each_alone_reads_as_before(cli, tmp_path):
    folder = panel_files(tmp_path / "p", ROWS)
    for flag, said in (("--boundary-only", "boundary edits only"), ("--include-middle", "interior edits on")):
        ran = cli("refdis", "--preds", folder, "--panel", "m1,m2,m3", flag, "--bootstrap", "0")
        assert ran.code == 0 and said in ran.out
