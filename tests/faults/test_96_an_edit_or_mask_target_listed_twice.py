"""Case 96: an edits file (``lift``, ``battery``, ``translate --edits``) or a mask recipe listing one item twice.

A row repeated in an edits file, or one edit under two ids, was measured
twice and counted twice in every rate (``battery --edits`` gave ``n=2,
[0.0, 65.8]`` for one edit); a ``mask --recipe`` row listed twice reported
``2/2, [0.0, 65.8]`` where the single row gives ``1/1, [0.0, 79.3]``.  Both
are now refused when the file is read, naming the row and the row it
repeats.  Two edits of one span with other words (``c0@0-1`` and
``c0@0-1#1``, as the miner writes them) are two edits.
"""

from __future__ import annotations

import json

import pytest

from asraudit.data.mask_recipe import read_recipe
from asraudit.errors import InputError
from asraudit.probes.lift_run import load_edits

REFS = {"c0": "well the cat sat"}
EDIT = {"edit_id": "c0@0-1", "clip": "c0", "kind": "delete", "position": "start", "ref_start": 0, "ref_end": 1,
        "r": "well", "a": ""}


def _edits(tmp_path, rows):
    path = tmp_path / "edits.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("second, said", [
    (EDIT, "row 2: edit id 'c0@0-1' repeats row 1"),
    ({**EDIT, "edit_id": "other"}, "row 2: the edit of clip 'c0' at tokens 0:1 repeats row 1"),
], ids=["same-row", "same-edit-other-id"])
def test_an_edit_given_twice_is_refused_naming_both_rows(tmp_path, second, said):
    path = _edits(tmp_path, [EDIT, second])
    with pytest.raises(InputError) as refused:
        load_edits(path, REFS, str.lower)
    assert str(refused.value) == f"{path}, {said}: give each edit once, or it counts twice"


def test_two_edits_of_one_span_with_other_words_are_two_edits(tmp_path):
    other = {**EDIT, "edit_id": "c0@0-1#1", "kind": "substitute", "a": "oh"}
    assert [e.edit_id for e in load_edits(_edits(tmp_path, [EDIT, other]), REFS, str.lower)] == ["c0@0-1",
                                                                                                   "c0@0-1#1"]


def test_lift_refuses_it_before_any_model_runs(tmp_path, cli):
    from conftest import one_clip_manifest

    manifest = one_clip_manifest(tmp_path, text="well the cat sat")
    edit = {**EDIT, "clip": "a.wav", "edit_id": "a.wav@0-1"}
    path = _edits(tmp_path, [edit, edit])
    ran = cli("lift", "--model", "whisper-tiny.en", "--corpus", manifest, "--edits", path, "--out",
              tmp_path / "scores.jsonl", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {path}, row 2: edit id 'a.wav@0-1' repeats row 1: give each edit once, or it counts "
        "twice"]
    assert not (tmp_path / "scores.jsonl").exists()


def test_a_mask_target_listed_twice_is_refused(tmp_path):
    recipe = tmp_path / "r.jsonl"
    row = {"audio_filepath": "n1.wav", "t0": 1.3, "t1": 1.6, "word": "seven"}
    recipe.write_text(json.dumps(row) + "\n" + json.dumps({**row, "t1": 1.7}) + "\n" + json.dumps(row) + "\n",
                      encoding="utf-8")
    with pytest.raises(InputError) as refused:
        read_recipe(recipe)
    assert str(refused.value) == (f"{recipe}, row 3: the target 'seven' of clip 'n1.wav' at [1.3, 1.6] s repeats "
                                  "row 1: list each target once, or it counts twice")
