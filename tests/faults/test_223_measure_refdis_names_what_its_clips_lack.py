"""Case 223: ``measure_refdis`` from Python told about clips or models its clips do not have.

A human correction of the references, held in a pandas frame, comes out
keyed by the frame's row numbers (``df["corrected"].str.split().to_dict()``)
or by ids spelled another way (``"C0"``, a path).  No clip was corrected:
``measure_refdis`` returned no edit and every model's accept-ref over none,
with no error, where ``asraudit refdis --corrected`` refuses a file that
corrects no clip the models ran.  A model named in ``scored`` that no clip
has a transcript of (a misspelling: ``"M2"`` for ``m2``) got an accept-ref
over no edit and a WER over no clip, with no error, where the same
misspelling in the panel was refused (case 52).  Now each is one line naming
what the clips have, before anything is diffed or mined; corrections of some
of the clips go as before, and a model known to have run nothing (an empty
prediction file, ``ran_nothing``) is still scored, as ``refdis`` and
``accept_ref_from_predictions`` score it.
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


def test_a_scored_model_no_clip_has_is_refused(clips):
    with pytest.raises(InputError) as err:
        measure_refdis(clips, [], scored=["m1", "M2"], corrections={"c0": tuple(SAID["c0"].split())}, n_boot=0)
    assert str(err.value) == "scored names M2, which no clip has a transcript of; the clips have transcripts of m1, m2"
    panel_clips = clip_inputs(REFS, {**TRANSCRIPTS, "m3": SAID}, "whisper")
    with pytest.raises(InputError) as err:
        measure_refdis(panel_clips, ["m1", "m2", "m3"], scored=["m1", "m4"], n_boot=0)
    assert str(err.value).startswith("scored names m4, which no clip has a transcript of")
    known_empty = measure_refdis(panel_clips, ["m1", "m2", "m3"], scored=["m1", "m4"], n_boot=0, ran_nothing=["m4"])
    assert known_empty.accept_ref["m4"].n_eligible == 0


def test_an_empty_prediction_file_is_still_scored_by_accept_ref_from_predictions(tmp_path, cli):
    from conftest import write_preds

    from asraudit import accept_ref_from_predictions

    rows = [(cid, "madam president " + ref, ref) for cid, ref in REFS.items()]
    for name in ("m1", "m2", "m3"):
        write_preds(tmp_path / f"{name}.jsonl", rows)
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    result = accept_ref_from_predictions(tmp_path, ["m1", "m2", "m3"])
    assert sorted(result.accept_ref) == ["empty", "m1", "m2", "m3"] and result.accept_ref["empty"].n_eligible == 0
    ran = cli("refdis", "--preds", tmp_path, "--panel", "m1,m2,m3", "--bootstrap", "0")
    assert ran.code == 0 and "empty" in ran.out
