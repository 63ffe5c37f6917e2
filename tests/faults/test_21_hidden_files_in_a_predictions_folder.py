"""Case 21: a predictions folder copied from a Mac to another disk, with ``._m1.jsonl`` beside ``m1.jsonl``.

macOS keeps a file's metadata in a hidden binary ``._NAME`` file on disks
that cannot hold it; the folder was read as a model ``._m1`` and stopped at
``._m1.jsonl, row 1: broken JSON row``.  Hidden files (a name starting with
``.``) are no model's: a folder skips them; one named on its own is read.
"""

from __future__ import annotations

from conftest import write_preds

ROWS = [("c0", "the cat sat", "the cat sat"), ("c1", "a dog ran", "a dog")]
APPLE_DOUBLE = b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        \x00\x02\x00\x00\x00\x09"


def test_a_folder_skips_hidden_files(tmp_path, cli):
    for name in ("m1", "m2"):
        write_preds(tmp_path / f"{name}.jsonl", ROWS)
        (tmp_path / f"._{name}.jsonl").write_bytes(APPLE_DOUBLE)
    ran = cli("preds", "--preds", tmp_path)
    assert ran.code == 0, ran.err
    assert "2 prediction file(s), 2 distinct clip(s), 2 run by every model" in ran.out
    assert "._m1" not in ran.out
    named = cli("wer", "--preds", tmp_path / "._m1.jsonl")
    assert named.code == 2 and named.error_lines[0].startswith(f"asraudit: error: {tmp_path / '._m1.jsonl'}, row 1:")
