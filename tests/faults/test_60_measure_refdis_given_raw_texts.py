"""Case 60: ``measure_refdis`` given raw texts, or its keyed arguments as lists, from Python.

``measure_refdis`` takes the normalized clips ``clip_inputs`` builds; a
notebook passes what it has: a dict of clip id -> reference, or a list of
strings, was ``AttributeError: 'str' object has no attribute 'hyps'`` from
the miner; ``groups`` as a list of values (one per clip) was ``AttributeError:
'list' object has no attribute 'values'`` after the mining; ``corrections``
as a list the same.  Now each is one line naming the argument and what builds
it, before any mining.
"""

from __future__ import annotations

import pytest

from asraudit import InputError, clip_inputs, get_normalizer, measure_refdis

REFS = {f"c{i}": f"well the cat sat on mat {i}" for i in range(4)}
HYPS = {m: {c: r.removeprefix("well ") for c, r in REFS.items()} for m in ("a", "b", "c")}


def refused(**kw) -> str:
    args = {"clips": clip_inputs(REFS, HYPS, get_normalizer("whisper")), "panel": ["a", "b", "c"], "scored": ["a"],
            "n_boot": 0, **kw}
    with pytest.raises(InputError) as err:
        measure_refdis(**args)
    return str(err.value)


def test_raw_texts_and_lists_for_dicts_are_one_line():
    assert refused(clips=REFS) == "clips is a list of ClipInput (clip_inputs builds them from raw texts), got dict"
    assert refused(clips=list(REFS.values())) == \
        "clips[0] is a str, not a ClipInput: clip_inputs builds them from raw texts"
    assert refused(groups=["x", "y", "x", "y"]) == "groups is a dict keyed by clip id, got list"
    assert refused(corrections=[("the",)]) == "corrections is a dict keyed by clip id, got list"


def test_what_clip_inputs_builds_still_goes():
    clips = clip_inputs(REFS, HYPS, get_normalizer("whisper"))
    result = measure_refdis(iter(clips), ["a", "b", "c"], scored=["a"], n_boot=0,
                            groups={c: ("x" if i % 2 else "y") for i, c in enumerate(REFS)})
    assert len(result.edits) == 4 and set(result.by_group) == {"x", "y"}
