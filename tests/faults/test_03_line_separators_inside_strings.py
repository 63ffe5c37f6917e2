"""Case 3: JSONL rows split on "\\n" only.

Valid JSONL with U+2028, U+2029 or U+0085 raw inside a string was rejected
(``broken JSON row``) because rows were split with ``str.splitlines()``;
asraudit's own export writes such strings raw, so it could not read its own
output back.  Same for manifests.
"""

from __future__ import annotations

import json

from asraudit.data.corpus import load_manifest
from asraudit.data.predictions import load_prediction_file

from conftest import write_preds

ODD = ["line\u2028separator", "para\u2029separator", "next\u0085line", "vertical\x0btab", "form\x0cfeed"]


def test_prediction_files_and_manifests_with_unicode_line_separators_round_trip(tmp_path, cli):
    rows = [(f"c{i}", f"ref {text}", f"hyp {text}") for i, text in enumerate(ODD)]
    src = tmp_path / "in"
    src.mkdir()
    write_preds(src / "model.jsonl", rows)
    assert "\u2028" in (src / "model.jsonl").read_text(encoding="utf-8")  # written raw, as json.dumps does
    ran = cli("preds", "--preds", src, "--export", tmp_path / "out")
    assert ran.code == 0, ran.err
    back = load_prediction_file(tmp_path / "out" / "model.jsonl")
    assert [(p.clip_id, p.reference, p.hypothesis) for p in back.rows.values()] == rows
    assert (back["c0"].row, back["c4"].row) == (1, 5)  # row numbers are lines, as a person counts them
    assert cli("wer", "--preds", tmp_path / "out").code == 0

    (tmp_path / "a.wav").write_bytes(b"")
    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text("".join(json.dumps({"audio_filepath": "a.wav", "text": t, "duration": 1.0},
                                           ensure_ascii=False) + "\n" for t in ODD[:1]), encoding="utf-8")
    corpus = load_manifest(manifest, check_files=False)
    assert [c.reference for c in corpus] == ODD[:1]


def test_a_broken_row_after_a_separator_is_still_named_by_its_line(tmp_path, cli):
    f = tmp_path / "m.jsonl"
    f.write_text(json.dumps({"audio_filepath": "a", "text": "x\u2028y", "pred_text": "x"}, ensure_ascii=False)
                 + "\n{oops\n", encoding="utf-8")
    ran = cli("wer", "--preds", f)
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {f}, row 2: broken JSON row: Expecting property name enclosed "
                               "in double quotes (column 2)"]
