"""Case 2: a text-only audit needs no audio and no durations.

Prediction files without ``duration`` made replayed models read the audio
header of each clip id (``cannot read audio header``), after ``--check`` had
passed.  Now no header is read, RTFx is unknown, and no duration is invented.
"""

from __future__ import annotations

import json

from asraudit.data.predictions import load_prediction_file

from conftest import write_preds

CLIPS = [(f"audio/clip{i}.wav", f"the cat sat on mat number {i}", f"the cat sat on the mat number {i}")
         for i in range(6)]


def test_prediction_files_without_durations_audit_without_audio_and_rtfx_is_unknown(tmp_path, cli):
    models = ""
    for i in range(3):
        preds = write_preds(tmp_path / f"m{i}.jsonl", [(c, r, h if i else r) for c, r, h in CLIPS])
        models += f'[[model]]\npredictions = "{preds}"\npanel = true\n\n'
    spec = tmp_path / "audit.toml"
    spec.write_text(f'name = "text only"\nout = "out"\nbootstrap = 50\n[corpus]\npredictions = "{tmp_path / "m0.jsonl"}"'
                    f"\n\n{models}[conventions]\n", encoding="utf-8")
    assert not (tmp_path / "audio").exists()  # the clip ids name files that are not there
    assert cli("audit", spec, "--check").code == 0
    ran = cli("audit", spec, "--no-progress")
    assert ran.code == 0, ran.err
    assert "audio header" not in ran.err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert [m.get("rtfx") for m in summary["models"].values()] == [None, None, None]  # unknown: null or left out
    for written in (tmp_path / "out" / "preds").glob("*.jsonl"):  # the exports (not the hidden list of them)
        assert all(p.duration is None for p in load_prediction_file(written).rows.values())
