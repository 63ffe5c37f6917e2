"""Case 136: ``measure_refdis(groups=...)`` from Python with NaN values, clips it does not name, or a list.

A pandas column of speakers with a gap gives NaN for the missing ones: each
NaN clip became a group of its own (NaN is not equal to itself) and its edits
fell out of every group; a clip missing from ``groups`` fell out silently; a
list was ``TypeError: unhashable type`` after the mining.  Now the Python
path groups as the command line and the audit do (``group_label``, case 89):
NaN, None and an unnamed clip are ``(none)``, ``3.0`` is ``3``, a list is one
line naming the clip, before any mining.
"""

from __future__ import annotations

import pytest

from asraudit import InputError, clip_inputs, get_normalizer, measure_refdis

REFS = {f"c{i}": f"well the cat sat on mat {i}" for i in range(4)}
HYPS = {m: {c: r.removeprefix("well ") for c, r in REFS.items()} for m in ("a", "b", "c", "d")}
PANEL = ["a", "b", "c", "d"]


def by_group(groups) -> dict[str, int]:
    clips = clip_inputs(REFS, HYPS, get_normalizer("whisper"))
    result = measure_refdis(clips, PANEL, scored=["a"], n_boot=0, groups=groups)
    assert len(result.edits) == 4  # one edit per clip: "well" dropped
    return {g: s["a"].n_audio for g, s in result.by_group.items()}


def test_nan_and_unnamed_clips_are_the_none_group():
    assert by_group({"c0": float("nan"), "c1": float("nan"), "c2": "x"}) == {"(none)": 3, "x": 1}
    assert by_group({"c0": 3.0, "c1": 3, "c2": None, "c3": ""}) == {"3": 2, "(none)": 2}
    assert by_group({c: "x" for c in REFS}) == {"x": 4}


def test_a_list_as_a_group_value_is_one_line():
    with pytest.raises(InputError) as err:
        by_group({"c0": ["x"], "c1": "y"})
    assert str(err.value) == "groups['c0'] is a list, not one value: groups maps each clip id to its group's label"
