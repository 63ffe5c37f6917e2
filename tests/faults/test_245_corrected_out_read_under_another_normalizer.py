"""Case 245: a corrected benchmark written by ``refdis --corrected-out`` (its texts normalized under the run's
normalizer) read back as ``--corrected`` under another ``--normalizer``.

Before, the file did not say what it was normalized under: read with ``--normalizer none``, every place the
Whisper normalizer had respelled (``Mr.`` as ``mister``, ``25 dollars`` as ``$25``, the case and the full
stop) was diffed against the raw reference as a correction, so a clip with no mined edit was counted
"corrected" and the run printed 7 edits from a correction of 3, exit 0."""

from __future__ import annotations

import json

from tests.faults.conftest import panel_files

ROWS = [("c0", "Mr. Smith said hello, world.", "mister smith said hello world and"),
        ("c1", "It's 25 dollars today.", "it's twenty five dollars today yes"),
        ("c2", "The cat sat on the mat.", "the cat sat on the mat"),
        ("c3", "Dr. Who is here.", "doctor who is here now")]


def _preds(tmp_path):
    return panel_files(tmp_path / "p", ROWS)


def test_corrected_out_names_its_normalizer_and_another_is_refused(cli, tmp_path):
    preds = _preds(tmp_path)
    corr = tmp_path / "corr.jsonl"
    ran = cli("refdis", "--preds", preds, "--panel", "m1,m2,m3", "--majority", "0.6", "--bootstrap", "0",
              "--corrected-out", corr)
    assert ran.code == 0, ran.err
    rows = [json.loads(line) for line in corr.read_text(encoding="utf-8").splitlines()]
    assert [r["normalizer"] for r in rows] == ["whisper"] * 4

    ran = cli("refdis", "--preds", preds, "--corrected", corr, "--normalizer", "none", "--bootstrap", "0")
    assert ran.code == 2 and ran.out == ""
    assert ran.error_lines == [
        f"asraudit: error: {corr}, row 1: this corrected reference is text normalized under 'whisper' (refdis "
        "--corrected-out of a run with --normalizer whisper), and this run normalizes with 'none': every word the two "
        "normalizers write differently would be counted as a correction; give --normalizer whisper"]

    # under the normalizer it names, the file gives back the run's own three edits
    ran = cli("refdis", "--preds", preds, "--corrected", corr, "--bootstrap", "0")
    assert ran.code == 0, ran.err
    assert "clips: 4 (corrected 3, unchanged 1)" in ran.out and "edits: 3 from the correction" in ran.out


def test_a_row_naming_another_normalizer_is_refused_and_a_raw_correction_is_read(cli, tmp_path):
    preds = _preds(tmp_path)
    corr = tmp_path / "mine.jsonl"
    corr.write_text(json.dumps({"audio_filepath": "c2", "text": "The cat sat on a mat."}) + "\n"
                    + json.dumps({"audio_filepath": "c3", "text": "doctor who is here now",
                                  "normalizer": "basic"}) + "\n", encoding="utf-8")
    ran = cli("refdis", "--preds", preds, "--corrected", corr, "--bootstrap", "0")
    assert ran.code == 2
    assert ran.error_lines[0].startswith(f"asraudit: error: {corr}, row 2: this corrected reference is text "
                                         "normalized under 'basic' ")
    corr.write_text(json.dumps({"audio_filepath": "c2", "text": "The cat sat on a mat."}) + "\n"
                    + json.dumps({"audio_filepath": "c3", "text": "x", "normalizer": 5}) + "\n", encoding="utf-8")
    ran = cli("refdis", "--preds", preds, "--corrected", corr, "--bootstrap", "0")
    assert ran.error_lines == [f"asraudit: error: {corr}, row 2: normalizer must be the name of a normalizer, got 5"]
    # a correction of the user's own (raw text, no normalizer named) is normalized as it is read
    corr.write_text(json.dumps({"audio_filepath": "c2", "text": "The cat sat on a mat."}) + "\n", encoding="utf-8")
    ran = cli("refdis", "--preds", preds, "--corrected", corr, "--normalizer", "none", "--bootstrap", "0")
    assert ran.code == 0, ran.err
    assert "edits: 1 from the correction" in ran.out


def test_a_file_written_before_rows_named_their_normalizer_is_checked_by_its_original(cli, tmp_path):
    """Such a file still holds each row's ``original_text`` and ``original_normalized``: the second is the first
    under the normalizer it was written with, so under another it is another text."""
    preds = _preds(tmp_path)
    corr = tmp_path / "corr.jsonl"
    assert cli("refdis", "--preds", preds, "--panel", "m1,m2,m3", "--majority", "0.6", "--bootstrap", "0",
               "--corrected-out", corr).code == 0
    old = tmp_path / "old.jsonl"
    old.write_text("".join(json.dumps({k: v for k, v in json.loads(line).items() if k != "normalizer"}) + "\n"
                           for line in corr.read_text(encoding="utf-8").splitlines()), encoding="utf-8")
    ran = cli("refdis", "--preds", preds, "--corrected", old, "--normalizer", "basic", "--bootstrap", "0")
    assert ran.code == 2 and ran.out == ""
    assert ran.error_lines == [
        f"asraudit: error: {old}, row 1: original_normalized 'mister smith said hello world' is not original_text "
        "read under this run's normalizer 'basic' ('mr smith said hello world'): a file of refdis --corrected-out "
        "written under another normalizer, whose spellings would be counted as corrections; give the --normalizer "
        "it was written under"]
    ran = cli("refdis", "--preds", preds, "--corrected", old, "--bootstrap", "0")
    assert ran.code == 0 and "edits: 3 from the correction" in ran.out
