"""Case 214: an edits file (``lift --edits``, ``battery --edits``, ``translate --edits``) whose row gives a
``position`` that is not where its span is: ``"middle"`` for tokens 0:1 (a row whose span was moved by hand, the
position left), a word of the user's (``"beginning"``), a token index (``5``, ``-1``: ``position`` read as a
number), or ``null``.

``position`` is the edit's place in its reference (start, middle or end: ``refdis --edits-out`` derives it from the
span, as it does the kind), but case 198 left it read with ``str()``: it was kept as written, ``5`` as ``"5"`` and
``null`` as ``"None"``, in every row ``lift`` writes, without a word.  It is now checked with the row, before any
model loads: given, it must be the one the span makes; left out, it is that one.
"""

from __future__ import annotations

import json

import pytest
from conftest import one_clip_manifest

from asraudit.errors import InputError
from asraudit.probes.lift_run import load_edits
from asraudit.text.normalize import get_normalizer

REFS = {"c0": "the cat sat on the mat"}
FIRST = {"edit_id": "c0@0-1", "clip": "c0", "kind": "substitute", "ref_start": 0, "ref_end": 1, "r": "the", "a": "a"}


def _load(tmp_path, row):
    path = tmp_path / "edits.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return load_edits(path, REFS, get_normalizer("whisper"))


@pytest.mark.parametrize("given", ["middle", "end", "beginning", "Start", 5, -1, 0, None, ["start"]])
def test_a_position_that_is_not_where_the_span_is_is_refused_naming_the_row(tmp_path, given):
    with pytest.raises(InputError) as err:
        _load(tmp_path, {**FIRST, "position": given})
    assert str(err.value) == (f"{tmp_path / 'edits.jsonl'}, row 1: position is {json.dumps(given)}, and the edit of "
                              "tokens 0:1 (of 6 in the reference) is at its start (as asraudit refdis --edits-out "
                              "writes it): give position \"start\", or leave it out")


@pytest.mark.parametrize("start, end, r, position", [
    (0, 1, "the", "start"), (2, 3, "sat", "middle"), (5, 6, "mat", "end"), (0, 6, "the cat sat on the mat", "start"),
    (6, 6, "", "end"), (0, 0, "", "start"), (3, 3, "", "middle"),
])
def test_the_position_the_span_makes_reads_as_before_given_or_left_out(tmp_path, start, end, r, position):
    row = {**FIRST, "kind": None, "ref_start": start, "ref_end": end, "r": r, "a": "again"}
    del row["kind"], row["edit_id"]
    assert [i.position for i in _load(tmp_path, {**row, "position": position})] == [position]
    assert [i.position for i in _load(tmp_path, row)] == [position]


def test_translate_refuses_it_before_any_model_loads(tmp_path, cli):
    manifest = one_clip_manifest(tmp_path, text="Madam President, the vote")
    edits = tmp_path / "edits.jsonl"
    edits.write_text(json.dumps({"edit_id": "a.wav@0-2", "clip": "a.wav", "kind": "delete", "position": "middle",
                                 "ref_start": 0, "ref_end": 2, "r": "madam president", "a": ""}) + "\n",
                     encoding="utf-8")
    ran = cli("translate", "--model", "whisper-base", "--corpus", manifest, "--edits", edits,
              "--out", tmp_path / "out" / "t.jsonl")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {edits}, row 1: position is \"middle\", and the edit of tokens 0:2 (of 4 in the reference) "
        "is at its start (as asraudit refdis --edits-out writes it): give position \"start\", or leave it out"])
    assert not (tmp_path / "out").exists()
