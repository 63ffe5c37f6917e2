"""Case 24: a prediction file saved as UTF-16 (with its byte-order mark), Windows-1252 or an .xlsx renamed .csv.

Each was one line, ``not valid UTF-8 (byte 0xff at offset 0)``, saying
neither what the file is nor how to fix it.  Now the byte-order mark and a
zip archive (a workbook) are named, and every such error ends with how to
save the file.
"""

from __future__ import annotations

import io
import zipfile

import pytest

TEXT = "audio_filepath,text,pred_text\nc0,café au lait,café au lait\n"


def _workbook() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("xl/workbook.xml", "<workbook/>")
    return buf.getvalue()


@pytest.mark.parametrize("name, data, message", [
    ("m.jsonl", '{"audio_filepath": "c0", "text": "café", "pred_text": "café"}\n'.encode("utf-16"),
     "row 1: UTF-16 text (its byte-order mark starts the file), not UTF-8: save the file as UTF-8"),
    ("m.csv", TEXT.encode("utf-16"),
     "row 1: UTF-16 text (its byte-order mark starts the file), not UTF-8: save the file as UTF-8"),
    ("m.csv", TEXT.encode("cp1252"), "row 2: not valid UTF-8 (byte 0xe9 at offset 36): save the file as UTF-8"),
    ("m.csv", _workbook(), "row 1: a zip archive (a spreadsheet workbook?), not UTF-8 text: save the file as UTF-8"),
])
def test_another_encoding_is_named_with_how_to_save_it(tmp_path, cli, name, data, message):
    path = tmp_path / name
    path.write_bytes(data)
    ran = cli("wer", "--preds", path)
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [f"asraudit: error: {path}, {message}"]


def test_a_workbook_whose_bytes_happen_to_decode_is_still_named(tmp_path, cli):
    """A small zip's header bytes (timestamps, CRC) are sometimes all valid UTF-8; the file then failed as a broken
    CSV row instead, depending on the minute the workbook was written."""
    path = tmp_path / "m.csv"
    path.write_bytes(b"PK\x03\x04" + b"plain ascii after the zip magic\n")
    ran = cli("wer", "--preds", path)
    assert ran.error_lines == [f"asraudit: error: {path}, row 1: a zip archive (a spreadsheet workbook?), not UTF-8 "
                               "text: save the file as UTF-8"]
