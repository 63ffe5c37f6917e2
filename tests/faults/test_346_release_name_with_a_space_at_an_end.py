"""Case 346: a copy of the paper's released results whose names carry a space at an end (a hand edit, a cell
pasted from a spreadsheet): a set's ``dataset`` ``"tiny "``, a panel member ``"a "``, a switch group's arm
``"Mr "``, a row's ``model`` or a switch row keyed ``" m"``.

Each was read as released, exit 0, and compared with the audit's names as written, so nothing matched while the
lines said they did in all but the space: ``published set tiny not shown: panel a , b, not a, b``, ``[published]
corpus 'tiny' is no corpus of the release ... it names tiny ``, ``arms Mr , mister: no family or pool of this
audit's catalogue has them``; a model printed ``" m"`` beside the audit's ``m``.  Now the release is refused when
it is read, naming the file, the field and the name as written; names without a space at an end, and spaces
inside a name, read as before (control)."""

from __future__ import annotations

import pytest

from conftest import TINY_AGGREGATE, TINY_SWITCH, TINY_SWITCH_ROW, write_release

SAID = "a name with a space at an end: the names an audit compares it with have none, so it would match nothing"


@pytest.mark.parametrize("change_aggregate, change_switch, file, message", [
    (lambda d: d.update(dataset="tiny "), None, "tiny_aggregate.json", "tiny: dataset is 'tiny '"),
    (lambda d: d.update(whitelist=["a ", "b"]), None, "tiny_aggregate.json", "tiny: whitelist[1] is 'a '"),
    (lambda d: d["benchmaxx_leaderboard"][0].update(model=" m"), None, "tiny_aggregate.json",
     "benchmaxx_leaderboard[1]: model is ' m'"),
    (None, lambda d: d["g"].update(arms=["Mr ", "mister"]), "ortho_switch.json", "g: arms[1] is 'Mr '"),
    (None, lambda d: d["g"].update(results={" m": TINY_SWITCH_ROW}), "ortho_switch.json",
     "g.results: a row is keyed ' m'"),
], ids=["dataset", "panel", "model", "arm", "switch-row"])
def test_a_name_with_a_space_at_an_end_is_refused(tmp_path, cli, change_aggregate, change_switch, file, message):
    release = write_release(tmp_path, TINY_AGGREGATE, TINY_SWITCH, change_aggregate, change_switch)
    ran = cli("reference", "--dir", release)
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {release / file}: {message}, {SAID}"])


def test_control_a_space_inside_a_name_reads(tmp_path, cli):
    release = write_release(tmp_path, TINY_AGGREGATE, TINY_SWITCH,
                            lambda d: d["benchmaxx_leaderboard"][0].update(model="whisper large"))
    ran = cli("reference", "--dir", release, "tiny")
    assert ran.code == 0 and "whisper large" in ran.out, ran.err
