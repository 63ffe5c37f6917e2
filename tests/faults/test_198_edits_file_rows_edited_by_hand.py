"""Case 198: an edits file (``lift --edits``, ``battery --edits``, ``translate --edits``) edited by hand.

Each row was read with ``str()``, ``int()`` and defaults: a row without ``a`` (or ``"a": null``) was an edit to
nothing, a substitution measured as a deletion; ``"a": 5`` or ``["dog"]`` the spoken words ``5`` and
``['dog']``; ``"ref_start": true`` token 1 and ``2.5`` token 2 (an insertion placed elsewhere than the row said);
a kind misspelt (``"substitution"``), left out, or contradicted by the span and ``a`` (``"delete"`` with ``a =
"dog"``) was read as given: its own group in every table, and no span at all for the translation probe, whose
``"deletion"`` edits were passed over (``no dropped or invented spans``). Every row is now checked when the file
is read, before any model loads: the five fields present, ``r`` and ``a`` texts, the indices whole numbers, and
the kind the one the span and ``a`` make (``refdis --edits-out`` writes it so; left out, it is that one).
"""

from __future__ import annotations

import json

import pytest
from conftest import one_clip_manifest

from asraudit.errors import InputError
from asraudit.probes.lift_run import load_edits
from asraudit.text.normalize import get_normalizer

REFS = {"c0": "the cat sat on the mat"}
GOOD = {"edit_id": "c0@1-2", "clip": "c0", "kind": "substitute", "position": "middle", "ref_start": 1,
        "ref_end": 2, "r": "cat", "a": "dog"}


def _load(tmp_path, row):
    path = tmp_path / "edits.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return path, load_edits(path, REFS, get_normalizer("whisper"))


@pytest.mark.parametrize("row, message", [
    ({k: v for k, v in GOOD.items() if k != "a"},
     "an edit needs clip, ref_start, ref_end, r and a (asraudit refdis --edits-out); this one lacks a"),
    ({**GOOD, "a": None}, 'a must be the edit\'s words as a text ("" for none), got null'),
    ({**GOOD, "a": 5}, 'a must be the edit\'s words as a text ("" for none), got 5'),
    ({**GOOD, "a": ["dog"]}, 'a must be the edit\'s words as a text ("" for none), got ["dog"]'),
    ({**GOOD, "kind": "insert", "ref_end": 1, "r": None}, 'r must be the edit\'s words as a text ("" for none), got null'),
    ({**GOOD, "ref_start": True}, "ref_start must be a token index (a whole number), got true"),
    ({**GOOD, "kind": "insert", "ref_start": 2.5, "ref_end": 2.5, "r": ""},
     "ref_start must be a token index (a whole number), got 2.5"),
    ({**GOOD, "kind": "substitution"},
     'kind is "substitution", and the edit of tokens 1:2 to \'dog\' is a \'substitute\' (as asraudit refdis '
     '--edits-out writes it): give kind "substitute", or leave it out'),
    ({**GOOD, "kind": "delete"},
     'kind is "delete", and the edit of tokens 1:2 to \'dog\' is a \'substitute\' (as asraudit refdis --edits-out '
     'writes it): give kind "substitute", or leave it out'),
])
def test_a_row_read_as_another_edit_is_refused_naming_the_row(tmp_path, row, message):
    with pytest.raises(InputError) as err:
        _load(tmp_path, row)
    assert str(err.value) == f"{tmp_path / 'edits.jsonl'}, row 1: {message}"


def test_sound_rows_read_as_before_and_a_kind_left_out_is_the_spans(tmp_path):
    _, items = _load(tmp_path, {**GOOD, "ref_start": 1.0, "ref_end": "2"})
    assert [(i.kind, i.start, i.end, i.r, i.a) for i in items] == [("substitute", 1, 2, ("cat",), ("dog",))]
    _, items = _load(tmp_path, {k: v for k, v in GOOD.items() if k != "kind"})
    assert items[0].kind == "substitute"


def test_translate_refuses_a_misspelt_kind_before_any_model_loads(tmp_path, cli):
    manifest = one_clip_manifest(tmp_path, text="Madam President, the vote")
    edits = tmp_path / "edits.jsonl"
    edits.write_text(json.dumps({"edit_id": "a.wav@0-2", "clip": "a.wav", "kind": "deletion", "position": "start",
                                 "ref_start": 0, "ref_end": 2, "r": "madam president", "a": ""}) + "\n",
                     encoding="utf-8")
    ran = cli("translate", "--model", "whisper-base", "--corpus", manifest, "--edits", edits,
              "--out", tmp_path / "out" / "t.jsonl")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {edits}, row 1: kind is \"deletion\", and the edit of tokens 0:2 to '' is a 'delete' (as "
        "asraudit refdis --edits-out writes it): give kind \"delete\", or leave it out"])
    assert not (tmp_path / "out").exists()
