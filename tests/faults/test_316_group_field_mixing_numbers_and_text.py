"""Case 316: a group field that holds a number on one row and the same text on another (``1`` and ``"1"``).

``group_label`` compares values as printed, so JSON's ``1`` and ``"1"`` were one group: ``wer --group-field
speaker`` reported one row ``1`` of three clips for speakers ``1``, ``"1"`` and ``1.0``, with no word.  Two values
JSON keeps apart (written by two scripts, or a text id that only looks like a number) may be one speaker or two;
nothing in the file says which.  Now a field whose number and text would be one group is refused in one line naming
the file and both rows (``data.group_values.refuse_mixed_spellings``, which the audit's ``group_field`` and a
mechanism's ``pair_by`` use too).  ``1.0`` meeting ``1`` stays as case 234 decided (a number column with a gap is
float); a CSV's values are all text, so it never mixes; a column of numbers and unrelated text is not refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import write_preds

from asraudit.errors import InputError
from asraudit.data.group_values import group_rows


ROWS = [("a", "the cat sat", "the cat sat"), ("b", "the dog ran", "a dog ran"), ("c", "one two", "one two"),
        ("d", "red fish", "red fish")]


def _preds(path: Path, speakers) -> Path:
    return write_preds(path, ROWS, speakers=speakers)


def test_wer_refuses_a_number_and_its_text_in_one_field(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _preds(tmp_path / "p.jsonl", [1, "1", 1.0, 2])
    ran = cli("wer", "--preds", "p.jsonl", "--group-field", "speaker")
    assert ran.code == 2 and ran.out == ""
    assert ran.error_lines == [
        "asraudit: error: p.jsonl, row 2: field 'speaker' holds the text '1' here and the number 1 at row 1, "
        "which would be one group: JSON's 1 and \"1\" are two values, and nothing says whether they are one group or "
        "two: write the field one way on every row (all numbers, or all text)"]


def test_a_manifest_is_read_the_same_way(tmp_path):
    with pytest.raises(InputError) as caught:
        group_rows(_preds(tmp_path / "m.jsonl", ["7", 3, 7, 2]), "speaker", "manifest")
    assert str(caught.value).startswith(f"{tmp_path / 'm.jsonl'}, row 3: field 'speaker' holds the number 7 here "
                                        "and the text '7' at row 1, which would be one group")


def test_control_numbers_of_both_kinds_and_unrelated_text_still_group(tmp_path, cli, monkeypatch):
    """Control: ``1`` and ``1.0`` are one group (case 234), and text that no number prints as is its own group."""
    monkeypatch.chdir(tmp_path)
    _preds(tmp_path / "p.jsonl", [1, 1.0, "unknown", 2])
    ran = cli("wer", "--preds", "p.jsonl", "--group-field", "speaker", "--json", "o.json")
    assert ran.code == 0, ran.err
    groups = json.loads((tmp_path / "o.json").read_text())["groups"]["models"]["p"]
    assert {g["group"]: g["clips"] for g in groups} == {"1": 2, "2": 1, "unknown": 1}


def test_a_mechanism_pair_by_mixing_them_is_refused():
    pytest.importorskip("torch")
    from asraudit.audit.mechanism import plan_steer
    from asraudit.audit.spec_mechanism import parse_mechanism
    from asraudit.data.corpus import Clip

    entry = {"type": "steer", "model": "whisper-tiny.en-organism", "layer": 3,
             "positive": {"field": "voice_role", "value": "benchmark"},
             "negative": {"field": "voice_role", "value": "fresh"}, "pair_by": "sentence", "holdout": 0,
             "ablate": {"field": "voice_role", "value": "benchmark"}}
    (spec,) = parse_mechanism([entry], "spec.toml", Path("."))
    clips = [Clip(f"c{i}", np.zeros(16000, np.float32), "x", metadata={"sentence": s, "voice_role": r})
             for i, (s, r) in enumerate([(1, "benchmark"), ("1", "fresh"), (2, "benchmark"), (2, "fresh")])]
    with pytest.raises(InputError) as caught:
        plan_steer(spec, clips)
    assert str(caught.value).startswith("[[mechanism]] #1: field 'sentence' holds the text '1' for clip 'c1' and "
                                        "the number 1 for clip 'c0', which would be one group")


def test_an_audits_group_field_is_refused_before_any_model(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    models = ""
    for i in range(3):
        _preds(tmp_path / f"m{i}.jsonl", [1, "1", 2, 2])
        models += f'[[model]]\npredictions = "m{i}.jsonl"\npanel = true\n\n'
    (tmp_path / "audit.toml").write_text('name = "t"\nout = "out"\n[corpus]\npredictions = "m0.jsonl"\n'
                                         f'group_field = "speaker"\n\n{models}', encoding="utf-8")
    ran = cli("audit", "audit.toml", "--no-progress")
    assert ran.code == 2, ran.err
    assert len(ran.error_lines) == 1 and "field 'speaker' holds the text '1' here and the number 1 at row 1" in ran.err
    assert not (tmp_path / "out").exists()


def test_translation_clusters_and_python_groups_are_read_the_same_way():
    from asraudit.data.corpus import Clip
    from asraudit.probes.refdis import ClipInput
    from asraudit.probes.refdis_probe import _group_labels
    from asraudit.probes.translation_probe import clusters_of

    clips = [Clip(c, np.zeros(16000, np.float32), "x", metadata={"speaker_group": v})
             for c, v in (("c0", 1), ("c1", "1"))]
    with pytest.raises(InputError) as caught:
        clusters_of(clips, "speaker_group")
    assert str(caught.value).startswith("field 'speaker_group' holds the text '1' for clip 'c1' and the number 1 for "
                                        "clip 'c0', which would be one group")
    inputs = [ClipInput("c0", ("the", "cat"), {}), ClipInput("c1", ("the", "cat"), {})]
    with pytest.raises(InputError) as caught:
        _group_labels({"c0": 1, "c1": "1"}, inputs)
    assert str(caught.value).startswith("field 'groups' holds the text '1' for clip 'c1' and the number 1 for clip "
                                        "'c0', which would be one group")
    assert set(_group_labels({"c0": 1, "c1": 1.0}, inputs).values()) == {"1"}  # control: case 234's rule
