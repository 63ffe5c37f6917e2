"""Case 186: a copy of the paper's released results in which an aggregate file and a switch group have one name
(``tiny_aggregate.json`` and a group ``"tiny"`` in ``ortho_switch.json``).

The listing showed both under the name ``tiny``, but ``asraudit reference tiny`` printed the accept-ref set alone,
exit 0: the switch group could not be shown at all.  Now both are shown, with a note naming both files; a name
nobody has is refused listing each name once.
"""

from __future__ import annotations

import json

from test_166_published_bounds_and_chance_out_of_range import AGGREGATE, SWITCH


def _release(tmp_path):
    folder = tmp_path / "release"
    folder.mkdir()
    (folder / "tiny_aggregate.json").write_text(json.dumps(AGGREGATE), encoding="utf-8")
    (folder / "ortho_switch.json").write_text(json.dumps({"tiny": SWITCH["g"], "g": SWITCH["g"]}), encoding="utf-8")
    return folder


def test_a_name_of_both_shows_the_set_and_the_group(tmp_path, cli):
    folder = _release(tmp_path)
    ran = cli("reference", "--dir", folder, "tiny")
    assert ran.code == 0, ran.err
    assert ran.err.splitlines() == ["asraudit: 'tiny' names both a published set (tiny_aggregate.json) and a switch "
                                    "group (ortho_switch.json): both are shown"]
    titles = [line for line in ran.out.splitlines() if line.startswith("tiny: ")]
    assert titles[0].startswith("tiny: tiny, panel a, b; majority 0.75")
    assert titles[1] == "tiny: within-tiny; chance 0.5 (published, not re-measured)"
    assert any(line.split()[:2] == ["m", "50.00%"] for line in ran.out.splitlines()), ran.out


def test_a_name_of_neither_lists_each_name_once(tmp_path, cli):
    folder = _release(tmp_path)
    ran = cli("reference", "--dir", folder, "x")
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {folder}: no published set 'x'; the folder has "
                                               "tiny, g"])
