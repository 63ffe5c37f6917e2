"""Case 26: a text-only audit whose prediction files number their clips (``"audio_filepath": 0``).

``asraudit wer``/``refdis`` read such files (an id ``7`` is the clip
``"7"``), but the same file as an audit's ``[corpus] predictions`` stopped
``--check`` with ``'audio_filepath' must be a string, got int``.  Now the
corpus reads a numeric id as the prediction files do (``7`` and ``7.0``
alike), and the audit runs.
"""

from __future__ import annotations

import json


def test_numeric_clip_ids_audit_as_they_score(tmp_path, cli):
    for name in ("m0", "m1", "m2"):
        with (tmp_path / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
            for i in range(6):
                clip = float(i) if name == "m2" else i  # a float column in one file
                fh.write(json.dumps({"audio_filepath": clip, "text": f"well the cat sat {i}",
                                     "pred_text": f"the cat sat {i}"}) + "\n")
    models = "".join(f'[[model]]\npredictions = "{n}.jsonl"\npanel = true\n\n' for n in ("m0", "m1", "m2"))
    spec = tmp_path / "audit.toml"
    spec.write_text(f'out = "out"\nbootstrap = 20\n[corpus]\npredictions = "m0.jsonl"\n\n{models}'
                    "[refdis]\nmajority = 0.66\nmin_panel = 2\n", encoding="utf-8")
    check = cli("audit", spec, "--check")
    assert check.code == 0, check.err
    assert check.out.strip().endswith("ok: 6 clips, models m0, m1, m2, panel m0, m1, m2")
    ran = cli("audit", spec, "--no-progress")
    assert ran.code == 0, ran.err
    exported = [json.loads(line)["audio_filepath"] for line in (tmp_path / "out" / "preds" / "m2.jsonl").open()]
    assert exported == ["0", "1", "2", "3", "4", "5"]
