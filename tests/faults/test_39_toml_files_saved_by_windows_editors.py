"""Case 39: TOML inputs saved with a byte-order mark, or in another encoding, read or refused in one line.

Windows Notepad saves UTF-8 with a byte-order mark.  An audit spec, a
battery spec, a conventions family file or a translation lexicon saved so
was refused as ``not valid TOML: Invalid statement (at line 1, column 1)``,
which names nothing the user can see.  A battery spec in Windows-1252 was a
``UnicodeDecodeError`` traceback; the other three said only ``not UTF-8``.
The four readers now decode through the row files' one decoder: the mark is
dropped, and another encoding is one line naming the line and the byte.
"""

from __future__ import annotations

import json

import pytest

BOM = b"\xef\xbb\xbf"


@pytest.fixture()
def preds(tmp_path):
    (tmp_path / "p.jsonl").write_text(json.dumps({"audio_filepath": "c0", "text": "x", "pred_text": "x"}) + "\n")
    return tmp_path / "p.jsonl"


def test_an_audit_spec_with_a_byte_order_mark_is_read(tmp_path, cli, preds):
    models = "".join(f'[[model]]\npredictions = "{m}.jsonl"\npanel = true\n' for m in ("p1", "p2", "p3"))
    for m in ("p1", "p2", "p3"):
        (tmp_path / f"{m}.jsonl").write_bytes(preds.read_bytes())
    spec = tmp_path / "audit.toml"
    spec.write_bytes(BOM + ('out = "o"\n[corpus]\npredictions = "p.jsonl"\n[refdis]\nmajority = 0.66\n'
                            f'min_panel = 2\n{models}').encode())
    ran = cli("audit", spec, "--check")
    assert ran.code == 0, ran.err
    assert ran.error_lines == []


def test_a_battery_spec_with_a_byte_order_mark_or_in_windows_1252(tmp_path):
    from asraudit.errors import InputError
    from asraudit.probes.battery import load_spec

    spec = tmp_path / "b.toml"
    spec.write_bytes(BOM + b'[[condition]]\nname = "original"\ntype = "original"\n')
    assert [c.name for c in load_spec(spec).conditions] == ["original"]
    spec.write_bytes('# caf\u00e9\n[[condition]]\nname = "original"\ntype = "original"\n'.encode("cp1252"))
    with pytest.raises(InputError) as err:
        load_spec(spec)
    assert str(err.value) == f"{spec}, row 1: not valid UTF-8 (byte 0xe9 at offset 5): save the file as UTF-8"


def test_a_family_file_and_a_lexicon_with_a_byte_order_mark_reach_their_own_checks(tmp_path, cli, preds):
    families = tmp_path / "f.toml"
    families.write_bytes(BOM + b"[[family]]\n")
    ran = cli("conventions", "--preds", preds, "--families", families)
    assert ran.code == 2
    assert "Invalid statement" not in ran.err and "line 1, column 1" not in ran.err
    families.write_bytes("# caf\u00e9\n".encode("cp1252"))
    ran = cli("conventions", "--preds", preds, "--families", families)
    assert ran.error_lines == [f"asraudit: error: {families}, row 1: not valid UTF-8 (byte 0xe9 at offset 5): save "
                               "the file as UTF-8"]
