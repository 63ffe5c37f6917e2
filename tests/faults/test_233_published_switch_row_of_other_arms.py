"""Case 233: a published switch row whose arms are not its group's (``reference --dir``, an audit's ``[published]``).

A switch rate is the minimum over the group's arms of P(model writes the arm |
the reference uses it).  A row of ``ortho_switch.json`` that lost one of them
(an edit by hand, a row pasted from another group) had its minimum taken over
the arms it had: a one-arm row's "switch rate" was that arm's hit rate, 81%
for a model that may write one arm always, printed beside chance 0.5 and drawn
beside an audit's rates as the group's; an arm of another group lowered the
minimum under the group's chance.  A limiting arm that is not the lowest (or
no arm at all) was replaced without a word.  Now each is refused when the
release is read, naming the row; the real release's 89 rows all read as before.
"""

from __future__ import annotations

import json

import pytest

ARMS = {"spaced": {"hits": 26, "n": 32}, "solid": {"hits": 57, "n": 70}}


def release(folder, group_arms, row_arms, limiting="spaced", switch=0.8125):
    folder.mkdir()
    (folder / "ortho_switch.json").write_text(json.dumps({"spacing": {
        "scope": "within-librispeech", "arms": group_arms, "chance": 0.5, "min_per_arm": 5,
        "results": {"m": {"switch": switch, "lo": 0.6, "hi": 0.95, "limiting_arm": limiting, "arms": row_arms}}}}),
        encoding="utf-8")
    return folder


@pytest.mark.parametrize("group_arms, row_arms, limiting, switch, said", [
    (["spaced", "solid"], {"spaced": ARMS["spaced"]}, "spaced", 0.8125,
     "spacing.results.m: arms ['spaced'] are not the group's arms ['spaced', 'solid'] (no 'solid'): a switch rate is "
     "the minimum over the group's arms, so this row's is not the group's rate"),
    (["spaced", "solid"], {**ARMS, "hyphenated": {"hits": 7, "n": 10}}, "hyphenated", 0.7,
     "spacing.results.m: arms ['spaced', 'solid', 'hyphenated'] are not the group's arms ['spaced', 'solid'] "
     "('hyphenated' is not one of them): a switch rate is the minimum over the group's arms, so this row's is not "
     "the group's rate"),
    (["spaced", "solid"], {"spaced": ARMS["spaced"], "Solid": ARMS["solid"]}, "spaced", 0.8125,
     "spacing.results.m: arms ['spaced', 'Solid'] are not the group's arms ['spaced', 'solid'] (no 'solid'; "
     "'Solid' is not one of them): a switch rate is the minimum over the group's arms, so this row's is not the "
     "group's rate"),
    (["spaced", "solid"], ARMS, "hyphenated", 0.8125,
     "spacing.results.m: limiting_arm 'hyphenated' is not one of the group's arms ['spaced', 'solid']"),
    (["spaced", "solid"], {"spaced": {"hits": 26, "n": 32}, "solid": {"hits": 60, "n": 70}}, "solid", 0.8125,
     "spacing.results.m: limiting_arm 'solid' has hits/n 60/70 = 0.8571, not the switch 0.8125: the limiting arm is "
     "the lowest"),
    (["spaced"], {"spaced": ARMS["spaced"]}, "spaced", 0.8125,
     "spacing: arms ['spaced'] are not two or more distinct arms: a switch rate is the minimum over a group's arms"),
    (["spaced", "spaced"], ARMS, "spaced", 0.8125,
     "spacing: arms ['spaced', 'spaced'] are not two or more distinct arms: a switch rate is the minimum over a "
     "group's arms"),
], ids=["an-arm-lost", "an-arm-of-another-group", "an-arm-in-other-case", "limiting-arm-of-none",
        "limiting-arm-not-lowest", "group-of-one-arm", "group-arm-twice"])
def test_refused_when_the_release_is_read(tmp_path, cli, group_arms, row_arms, limiting, switch, said):
    folder = release(tmp_path / "release", group_arms, row_arms, limiting, switch)
    for args in (("reference", "--dir", folder), ("reference", "--dir", folder, "spacing")):
        ran = cli(*args)
        assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {folder / 'ortho_switch.json'}: {said}"])


def test_a_row_of_the_groups_arms_reads_as_before(tmp_path, cli):
    ran = cli("reference", "--dir", release(tmp_path / "release", ["spaced", "solid"], ARMS), "spacing")
    assert ran.code == 0 and "81.25%" in ran.out and "spaced 26/32, solid 57/70" in ran.out
