"""Case 223: ``measure_refdis(..., corrections=...)`` from Python keyed by something other than the clips' ids.

A human correction of the references, held in a pandas frame, comes out
keyed by the frame's row numbers (``df["corrected"].str.split().to_dict()``)
or by ids spelled another way (``"C0"``, a path).  No clip was corrected:
``measure_refdis`` returned no edit and every model's accept-ref over none,
with no error, where ``asraudit refdis --corrected`` refuses a file that
corrects no clip the models ran.  Now it is one line naming both sides' ids,
before anything is diffed; corrections of some of the clips go as before.
"""

from __future__ import annotations

import pytest

from asraudit import InputError, clip_inputs, measure_refdis

MODELS = ["m1", "m2"]
REFS = {f"c{i}": f"the report number {i} is late" for i in range(4)}
SAID = {cid: "madam president " + ref for cid, ref in REFS.items()}  # what the audio says
TRANSCRIPTS = {"m1": SAID, "m2": REFS}  # m1 writes what was said, m2 the record


@pytest.fixture(scope="module")
def clips():
    return clip_inputs(REFS, TRANSCRIPTS, "whisper")


def test_corrections_keyed_by_row_number_are_refused(clips):
    by_row = {i: tuple(text.split()) for i, text in enumerate(SAID.values())}
    with pytest.raises(InputError) as err:
        measure_refdis(clips, [], scored=MODELS, corrections=by_row, n_boot=0)
    assert str(err.value) == ("corrections names no clip of clips (corrections: 0, 1, 2, ...; clips: 'c0', 'c1', "
                              "'c2', ...): key it by the clips' ids")


def test_corrections_of_the_clips_diff_as_before(clips):
    fixed = {cid: tuple(text.split()) for cid, text in SAID.items()}
    result = measure_refdis(clips, [], scored=MODELS, corrections=fixed, n_boot=0)
    assert {e.clip_id for e in result.edits} == set(REFS)
    assert result.accept_ref["m2"].rate == 1.0 and result.accept_ref["m1"].rate < 0.5  # m2 writes the record
    some = measure_refdis(clips, [], scored=MODELS, corrections={"c0": fixed["c0"], "zz": ("a",)}, n_boot=0)
    assert {e.clip_id for e in some.edits} == {"c0"}
