"""Case 344: a copy of the paper's released results whose switch group gives a ``chance`` that is not 1/arms: ``0.3``
for a group of two arms (a value typed by hand), ``0.5`` left on a group whose arms grew to three.

A switch rate is a minimum over the group's arms, so a model choosing among them at random scores 1/arms: every
group of the real release writes exactly that (0.5 for two arms).  Any other value was read as released, exit 0,
and ``reference g`` printed it over the group's rows (``g: within-tiny; chance 0.3``), a level to read the rates
against that the arms contradict.  Now the group is refused when the release is read, naming the file, the group
and both numbers; a chance rounded to two decimals (0.33 for three arms) reads as before (control)."""

from __future__ import annotations

import pytest

from conftest import TINY_AGGREGATE, TINY_SWITCH, write_release

THREE_ARMS_ROW = {"switch": 0.5, "lo": 0.15, "hi": 0.85, "limiting_arm": "Mr",
                  "arms": {"Mr": {"hits": 2, "n": 4}, "mister": {"hits": 3, "n": 4}, "Mister": {"hits": 3, "n": 4}}}


def _three_arms(chance):
    def change(d):
        d["g"].update(arms=["Mr", "mister", "Mister"], chance=chance, results={"m": THREE_ARMS_ROW})
    return change


@pytest.mark.parametrize("change, message", [
    (lambda d: d["g"].update(chance=0.3), "g: chance 0.3 is not 1/2 (0.5), a random pick among the group's 2 arms "
                                          "['Mr', 'mister']"),
    (_three_arms(0.5), "g: chance 0.5 is not 1/3 (0.3333), a random pick among the group's 3 arms ['Mr', 'mister', "
                       "'Mister']"),
], ids=["two-arms-0.3", "three-arms-0.5"])
def test_a_chance_that_is_not_one_over_the_arms_is_refused(tmp_path, cli, change, message):
    release = write_release(tmp_path, TINY_AGGREGATE, TINY_SWITCH, None, change)
    ran = cli("reference", "--dir", release, "g")
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {release / 'ortho_switch.json'}: {message}"])


@pytest.mark.parametrize("chance", [0.33, 0.3333, 1 / 3])
def test_control_a_rounded_chance_reads_as_before(tmp_path, cli, chance):
    release = write_release(tmp_path, TINY_AGGREGATE, TINY_SWITCH, None, _three_arms(chance))
    ran = cli("reference", "--dir", release, "g")
    assert ran.code == 0, ran.err
