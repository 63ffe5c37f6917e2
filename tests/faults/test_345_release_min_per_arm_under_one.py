"""Case 345: a copy of the paper's released results whose switch group gives ``min_per_arm: 0``.

An arm enters a switch rate on at least ``min_per_arm`` clips, so 0 lets in an arm with no clips at all, a rate of
0/0: settings no probe runs under (``conventions --min-per-arm`` and an audit's ``[conventions]`` take 1 or more).
It was read as released, exit 0, and shown as the group's setting (``min_per_arm 0`` in an audit's page), as
``min_run_len 0`` was before it was refused.  Now it is refused when the release is read, naming the file and the
group; a negative, fractional or boolean ``min_per_arm`` was refused already (cases 146, 166), and 1 reads
(control)."""

from __future__ import annotations

import pytest

from conftest import TINY_AGGREGATE, TINY_SWITCH, write_release


def test_min_per_arm_zero_is_refused(tmp_path, cli):
    release = write_release(tmp_path, TINY_AGGREGATE, TINY_SWITCH, None, lambda d: d["g"].update(min_per_arm=0))
    ran = cli("reference", "--dir", release, "g")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {release / 'ortho_switch.json'}: g: min_per_arm is 0: an arm enters a switch rate on at "
        "least 1 clip (conventions --min-per-arm takes 1 or more)"])


@pytest.mark.parametrize("value, said", [(-1, "min_per_arm is a count, got -1"),
                                         (2.5, "field 'min_per_arm' has the wrong type (float)"),
                                         (True, "field 'min_per_arm' has the wrong type (bool)")])
def test_other_values_refused_as_before(tmp_path, cli, value, said):
    release = write_release(tmp_path, TINY_AGGREGATE, TINY_SWITCH, None, lambda d: d["g"].update(min_per_arm=value))
    ran = cli("reference", "--dir", release, "g")
    assert ran.code == 2 and said in ran.error_lines[0], ran.err


def test_control_min_per_arm_one_reads(tmp_path, cli):
    release = write_release(tmp_path, TINY_AGGREGATE, TINY_SWITCH, None, lambda d: d["g"].update(min_per_arm=1))
    assert cli("reference", "--dir", release, "g").code == 0
