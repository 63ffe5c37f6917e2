"""Case 8: an empty prediction file is warned about, and the panel is the members that voted.

An empty file was accepted silently, and ``refdis`` reported a 4-member
panel that behaved as 3 (its threshold counted the members with
transcripts).  Now the loader warns in one line naming the file, and the
reported panel is the members that had transcripts.
"""

from __future__ import annotations

import json

from conftest import write_preds

REFS = [(f"c{i}", f"madam president the report number {i} is late") for i in range(8)]


def _panel_files(folder, with_empty: bool):
    folder.mkdir()
    for name in ("m1", "m2", "m3"):  # each drops "madam president", as the audio says
        write_preds(folder / f"{name}.jsonl", [(c, r, r.removeprefix("madam president ")) for c, r in REFS])
    if with_empty:
        (folder / "empty.jsonl").write_text("", encoding="utf-8")


def test_empty_prediction_file_is_warned_about_and_left_out_of_the_panel(tmp_path, cli):
    _panel_files(tmp_path / "four", True)
    _panel_files(tmp_path / "three", False)
    four = cli("refdis", "--preds", tmp_path / "four", "--panel", "m1,m2,m3,empty", "--models", "m1,m2,m3",
               "--json", tmp_path / "four.json", "--bootstrap", "0")
    assert four.code == 0, four.err
    warnings = [line for line in four.err.splitlines() if "empty" in line and "warning" in line]
    assert warnings == [f"asraudit: warning: {tmp_path / 'four' / 'empty.jsonl'}: no rows with a hypothesis (an "
                        "empty prediction file): model empty ran no clips and is left out of every panel"]
    assert "panel: m1, m2, m3 (3)" in four.out
    three = cli("refdis", "--preds", tmp_path / "three", "--panel", "m1,m2,m3", "--json", tmp_path / "three.json",
                "--bootstrap", "0")
    assert three.code == 0, three.err
    got, want = (json.loads((tmp_path / f).read_text()) for f in ("four.json", "three.json"))
    assert got["panel"] == ["m1", "m2", "m3"] and got["n_edits"] == want["n_edits"] == len(REFS)
    assert got["accept_ref"] == want["accept_ref"]


def test_an_audit_with_an_empty_replayed_file_stops_before_any_work_naming_the_file(tmp_path, cli):
    _panel_files(tmp_path / "p", True)
    models = "".join(f'[[model]]\npredictions = "{tmp_path / "p" / f"{m}.jsonl"}"\npanel = true\n'
                     for m in ("m1", "m2", "m3", "empty"))
    spec = tmp_path / "a.toml"
    spec.write_text(f'name = "x"\nout = "out"\n[corpus]\npredictions = "{tmp_path / "p" / "m1.jsonl"}"\n{models}',
                    encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {spec}: [[model]] #4: the prediction file "
                               f"{tmp_path / 'p' / 'empty.jsonl'} has no usable rows (no row with a hypothesis)"]
    assert not (tmp_path / "out").exists()
