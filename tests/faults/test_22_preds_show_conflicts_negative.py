"""Case 22: ``preds --show-conflicts -1``.

The count was a slice bound: ``-1`` listed every clip whose references
differ except the last, under a header giving the full count, exit 0.  Now
it is one line before any file is read; 0 lists none.
"""

from __future__ import annotations

from conftest import write_preds


def test_a_negative_count_is_refused(tmp_path, cli):
    write_preds(tmp_path / "m1.jsonl", [("c0", "a b", "a b"), ("c1", "c d", "c d")])
    write_preds(tmp_path / "m2.jsonl", [("c0", "a x", "a b"), ("c1", "c x", "c d")])
    ran = cli("preds", "--preds", tmp_path, "--show-conflicts", "-1")
    assert (ran.code, ran.out, ran.error_lines) == (2, "", ["asraudit: error: --show-conflicts must be at least 0, got -1"])
    shown = cli("preds", "--preds", tmp_path, "--show-conflicts", "0")
    assert shown.code == 0 and "2 clip(s) with references that differ" in shown.out and "clip 'c0'" not in shown.out
