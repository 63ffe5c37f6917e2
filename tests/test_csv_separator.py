"""A CSV saved with another separator (a spreadsheet in a European locale writes semicolons) is named as such.

Its header read as one column, ``audio_filepath;text``, and every column was "missing": ``missing
'audio_filepath' (found fields ['audio_filepath;text'])``, with no word about the separator.
"""

from __future__ import annotations

import re

import pytest

from asraudit.data.corpus import load_manifest
from asraudit.data.predictions import load_prediction_file
from asraudit.errors import InputError


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_a_manifest_or_prediction_file_with_another_separator_is_named(tmp_path, sep):
    manifest = tmp_path / "m.csv"
    manifest.write_text(f"audio_filepath{sep}text\na.wav{sep}one\n", encoding="utf-8")
    header = f"audio_filepath{sep}text"
    with pytest.raises(InputError, match=re.escape(f"row 1: the header is one column, {header!r}: the file is "
                                                   f"separated by {sep!r}, not by commas: save it as comma-separated CSV")):
        load_manifest(manifest, check_files=False)
    preds = tmp_path / "p.csv"
    preds.write_text(f"audio_filepath{sep}text{sep}pred_text\nc0{sep}a{sep}a\n", encoding="utf-8")
    with pytest.raises(InputError, match="separated by"):
        load_prediction_file(preds)


def test_a_semicolon_inside_a_comma_separated_cell_is_text(tmp_path):
    preds = tmp_path / "p.csv"
    preds.write_text("audio_filepath,text,pred_text\nc0,a;b,a\n", encoding="utf-8")
    assert load_prediction_file(preds)["c0"].reference == "a;b"
