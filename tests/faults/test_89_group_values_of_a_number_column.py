"""Case 89: a group column (``wer --group-field``, an audit's ``[corpus] group_field``) of numbers with gaps.

A Parquet or pandas column of speaker numbers with a missing value is float:
speaker ``3`` is written ``3.0`` and the missing one ``NaN``.  Values were
grouped by their Python spelling, so one speaker became two groups (``3`` in
one model's file, ``3.0`` in another's, or both in one manifest), the
missing speakers a group called ``nan``, and in an audit a clip without the
field a group called ``None`` (``wer`` said ``(none)``).  A list or object
in the column was a group labelled ``['x']``.  Now one rule
(``data.group_values.group_label``) serves every caller: a whole float is its
integer, NaN and null are ``(none)``, and a list or object is refused naming
the row (by ``audit --check``, before any model runs).
"""

from __future__ import annotations

import json


def _write(path, speakers, hyp_of=lambda ref: ref, field="speaker"):
    with path.open("w", encoding="utf-8") as fh:
        for i, speaker in enumerate(speakers):
            ref = f"well the cat sat on mat {i}"
            row = {"audio_filepath": f"c{i}", "text": ref, "pred_text": hyp_of(ref)}
            if speaker != "absent":
                row[field] = speaker
            fh.write(json.dumps(row) + "\n")
    return path


def test_wer_groups_one_speaker_once_whatever_its_number_type(tmp_path, cli):
    a = _write(tmp_path / "a.jsonl", [3, 3, float("nan"), None])
    b = _write(tmp_path / "b.jsonl", [3.0, 3.0, float("nan"), "absent"])
    ran = cli("wer", "--preds", a, b, "--group-field", "speaker", "--json", tmp_path / "w.json")
    assert ran.code == 0, ran.err
    groups = json.loads((tmp_path / "w.json").read_text(encoding="utf-8"))["groups"]["models"]
    for model in ("a", "b"):
        assert {g["group"]: g["clips"] for g in groups[model]} == {"3": 2, "(none)": 2}, groups


def test_wer_refuses_a_list_as_a_group_naming_the_row(tmp_path, cli):
    a = _write(tmp_path / "a.jsonl", ["s0", ["s1", "s2"]])
    ran = cli("wer", "--preds", a, "--group-field", "speaker")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {a}, row 2: field 'speaker' (the group field) holds a list, not one value"]


def _audit(tmp_path, rooms):
    """A text-only audit grouped by ``room``, a plain column of the clips (not a speaker column)."""
    for name in ("m0", "m1", "m2", "sus"):
        _write(tmp_path / f"{name}.jsonl", rooms,
               (lambda ref: ref) if name == "sus" else (lambda ref: ref.replace("well ", "")), field="room")
    models = "".join(f'[[model]]\npredictions = "{n}.jsonl"\npanel = {str(n != "sus").lower()}\n\n'
                     for n in ("m0", "m1", "m2", "sus"))
    spec = tmp_path / "audit.toml"
    spec.write_text(f'out = "out"\nbootstrap = 20\n[corpus]\npredictions = "m0.jsonl"\ngroup_field = "room"\n\n'
                    f"{models}[refdis]\nmajority = 0.66\nmin_panel = 2\n", encoding="utf-8")
    return spec


def test_an_audit_groups_whole_floats_with_their_integers_and_missing_values_as_none(tmp_path, cli):
    spec = _audit(tmp_path, [3, 3.0, float("nan"), None, "absent", 4])
    ran = cli("audit", spec, "--no-progress")
    assert ran.code == 0, ran.err
    groups = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))["accept_ref_by_group"]
    assert sorted(groups["groups"]) == ["(none)", "3", "4"]
    assert {g: rows["sus"]["n_ref"] for g, rows in groups["groups"].items()} == {"3": 2, "(none)": 3, "4": 1}


def test_an_audit_refuses_a_list_as_a_group_at_check(tmp_path, cli):
    spec = _audit(tmp_path, ["s0", ["s1"]])
    ran = cli("audit", spec, "--check")
    assert ran.code == 2 and len(ran.error_lines) == 1
    assert "m0.jsonl, row 2: field 'room' (the group field) holds a list, not one value" in ran.error_lines[0], ran.err
