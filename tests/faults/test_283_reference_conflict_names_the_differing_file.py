"""Case 283: prediction files whose references disagree on a clip, where one file besides the first writes the
first's reference decomposed (NFD: "café" as "e" and a combining accent, as a Mac saves it) and another writes a
different text.  The conflict was found (case 103: NFC and NFD are one text), but the line named the first file
whose reference differed by whitespace alone: the NFD file, whose reference is the same text, and not the file
that differs.  Now it names the file whose reference differs as the conflict was judged."""

from __future__ import annotations

import pytest

from asraudit import InputError, load_predictions
from conftest import write_preds


def _folder(tmp_path):
    folder = tmp_path / "preds"
    folder.mkdir()
    for model, ref in (("m1", "caf\u00e9 au lait"), ("m2", "cafe\u0301 au lait"), ("m3", "tea au lait")):
        write_preds(folder / f"{model}.jsonl", [("c0.wav", ref, "x")])
    return folder


def test_the_differing_file_is_named_from_python(tmp_path):
    folder = _folder(tmp_path)
    with pytest.raises(InputError) as raised:
        load_predictions(folder).references()
    assert str(raised.value).startswith(f"{folder / 'm3.jsonl'}, row 1: clip 'c0.wav': reference 'tea au lait' "
                                        "differs from m1's 'caf\u00e9 au lait'")


def test_the_differing_file_is_named_by_refdis(tmp_path, cli):
    folder = _folder(tmp_path)
    ran = cli("refdis", "--preds", folder, "--panel", "m1,m2,m3")
    assert ran.code == 2 and len(ran.error_lines) == 1
    assert ran.error_lines[0].startswith(f"asraudit: error: {folder / 'm3.jsonl'}, row 1: clip 'c0.wav': reference "
                                         "'tea au lait' differs from m1's")
