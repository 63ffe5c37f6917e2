"""Case 27: an audit's ``[corpus] group_field = "speaker"``, and a group field no clip has.

A manifest's ``speaker`` column is read into the clip's speaker, not its
other fields, so ``group_field = "speaker"`` (the spec's own example is a
voice or speaker field) reported accept-ref for one group, ``None``, holding
every clip, exit 0; a misspelt field (``speakr``) did the same, and so did
``said_field``.  Now the speaker column groups like any other, and a field no
clip has is refused by ``--check``, naming the fields there are.
"""

from __future__ import annotations

import json

import pytest


def _spec(tmp_path, field: str):
    for name in ("m0", "m1", "m2", "sus"):
        with (tmp_path / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
            for i in range(8):
                ref = f"well the cat sat on mat {i}"
                fh.write(json.dumps({"audio_filepath": f"c{i}", "text": ref, "speaker": f"s{i % 2}",
                                     "pred_text": ref if name == "sus" else ref.replace("well ", "")}) + "\n")
    models = "".join(f'[[model]]\npredictions = "{n}.jsonl"\npanel = {str(n != "sus").lower()}\n\n'
                     for n in ("m0", "m1", "m2", "sus"))
    spec = tmp_path / "audit.toml"
    spec.write_text(f'out = "out"\nbootstrap = 20\n[corpus]\npredictions = "m0.jsonl"\n{field}\n\n{models}'
                    "[refdis]\nmajority = 0.66\nmin_panel = 2\n", encoding="utf-8")
    return spec


def test_group_field_speaker_groups_by_speaker(tmp_path, cli):
    ran = cli("audit", _spec(tmp_path, 'group_field = "speaker"'), "--no-progress")
    assert ran.code == 0, ran.err
    groups = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))["accept_ref_by_group"]
    assert sorted(groups["groups"]) == ["s0", "s1"]
    assert groups["groups"]["s0"]["sus"]["n_ref"] == 4 and groups["groups"]["s1"]["sus"]["n_ref"] == 4


@pytest.mark.parametrize("key", ["group_field", "said_field"])
def test_a_field_no_clip_has_is_refused_by_check(tmp_path, cli, key):
    spec = _spec(tmp_path, f'{key} = "speakr"')
    ran = cli("audit", spec, "--check")
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {spec}: [corpus] {key}: no clip has the field 'speakr' "
                               "(fields: pred_text, speaker)"]
