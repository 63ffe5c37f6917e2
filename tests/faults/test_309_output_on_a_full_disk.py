"""Case 309: an output written on a full disk (or past a quota): `schema --out`, `wer --json`, `preds --export`, any
file written whole (`data.paths.written_whole`).  The write's error names no file, so the command line's handler
let it through: `OSError: [Errno 28] No space left on device`, a traceback of 20 lines naming no path (`schema --out
s.json` on a full 32 KB tmpfs; `/dev/full` is such a disk).  Now the error names the output in one line, exit 2;
the file is left as it was and no temporary file stays."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from asraudit.data.paths import written_whole

FULL = Path("/dev/full")
LINE = "cannot write it: No space left on device; the file is left as it was (free some space, or write it elsewhere)"
needs_full = pytest.mark.skipif(not FULL.exists(), reason="no /dev/full on this system")


@needs_full
def test_schema_out_on_a_full_disk_is_one_line(cli):
    ran = cli("schema", "--out", FULL)
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [f"asraudit: error: {FULL}: {LINE}"]


@needs_full
def test_wer_json_on_a_full_disk_is_one_line(cli, tmp_path):
    (tmp_path / "m1.jsonl").write_text(json.dumps({"audio_filepath": "c0", "text": "a b", "pred_text": "a b"}) + "\n",
                                       encoding="utf-8")
    ran = cli("wer", "--preds", tmp_path / "m1.jsonl", "--json", FULL, "--bootstrap", "0")
    assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {FULL}: {LINE}"]


def test_a_file_on_a_full_disk_is_left_as_it_was(tmp_path):
    out = tmp_path / "s.json"
    out.write_text("the last whole file\n", encoding="utf-8")
    with pytest.raises(OSError) as err:
        with written_whole(out) as tmp:
            tmp.write_text("half", encoding="utf-8")
            raise OSError(errno.ENOSPC, "No space left on device")  # what a write on a full disk raises
    assert (err.value.filename, err.value.strerror) == (str(out), LINE)
    assert out.read_text(encoding="utf-8") == "the last whole file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


def test_another_error_goes_up_as_it_came(tmp_path):
    with pytest.raises(OSError) as err:
        with written_whole(tmp_path / "s.json"):
            raise OSError(errno.ECONNRESET, "Connection reset by peer")
    assert err.value.filename is None and err.value.errno == errno.ECONNRESET
