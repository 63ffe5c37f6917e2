"""Case 182: a row holding what Python cannot read (a damaged file, a run of digits or brackets): a ``duration``
integer of 400 digits (beyond any float), any JSON integer of more than 4,300 digits (Python's limit on converting
an integer's digits), arrays nested 100,000 deep, in a prediction file, a manifest, a JSON array, a conventions
families file; such nesting in a TOML audit spec, battery spec or families file.

Each was a traceback: ``OverflowError: int too large to convert to float`` from the reader of seconds,
``ValueError: Exceeds the limit (4300 digits) for integer string conversion`` and ``RecursionError`` from the JSON
and TOML parsers, which the readers did not catch (they caught ``JSONDecodeError`` and ``TOMLDecodeError`` only).
Each is one line naming the file (and row) now.
"""

from __future__ import annotations

import json

import pytest

from conftest import one_clip_manifest

ROW = '{"audio_filepath": "x", "text": "a b", "pred_text": "a", "duration": %s}'
LONG = "broken JSON row: a number of more than 4300 digits, more than any field holds (a damaged row?)"


def test_a_duration_beyond_any_float(tmp_path, cli):
    preds = tmp_path / "m0.jsonl"
    preds.write_text(ROW % ("1" + "0" * 400) + "\n", encoding="utf-8")
    ran = cli("wer", "--preds", preds)
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {preds}, row 1: duration must be a non-negative, finite number of seconds, got an "
        "integer beyond any float (over 308 digits)"]


def test_a_number_of_more_digits_than_python_reads(tmp_path, cli):
    preds = tmp_path / "m0.jsonl"
    preds.write_text(ROW % "1.5" + "\n" + ROW.replace('"x"', '"y"') % ("1" + "0" * 5000) + "\n", encoding="utf-8")
    ran = cli("wer", "--preds", preds)
    assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {preds}, row 2: {LONG}"]
    array = tmp_path / "m1.json"
    array.write_text("[" + ROW % ("1" + "0" * 5000) + "]", encoding="utf-8")
    ran = cli("wer", "--preds", array)
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {array}: broken JSON: a number of more than 4300 digits, more than any field holds "
        "(a damaged row?)"]


def test_a_manifest_row_and_a_families_file(tmp_path, cli):
    manifest = one_clip_manifest(tmp_path)
    row = json.loads(manifest.read_text(encoding="utf-8"))
    manifest.write_text(json.dumps(row)[:-1] + ', "n": ' + "9" * 5000 + "}\n", encoding="utf-8")
    ran = cli("transcribe", "--corpus", manifest, "--model", "pocketsphinx", "--out", tmp_path / "out",
              "--no-progress")
    assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {manifest}, row 1: {LONG}"]
    assert not (tmp_path / "out").exists()
    from asraudit.errors import InputError
    from asraudit.probes.families import load_catalogue

    families = tmp_path / "families.json"
    families.write_text('{"x": ' + "9" * 5000 + "}", encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_catalogue(families)
    assert str(err.value) == f"{families}: broken JSON: a number of more digits than Python reads"


DEEP = "[" * 100_000 + "]" * 100_000


def test_nesting_deeper_than_python_reads(tmp_path, cli):
    preds = tmp_path / "m0.jsonl"
    preds.write_text(ROW % "1.5" + "\n" + ROW.replace('"x"', '"y"') % DEEP + "\n", encoding="utf-8")
    ran = cli("wer", "--preds", preds)
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {preds}, row 2: broken JSON row: arrays or objects nested deeper than Python reads "
        "(a damaged row?)"]
    spec = tmp_path / "a.toml"
    spec.write_text("x = " + DEEP + "\n", encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {spec}: not valid TOML: arrays or tables nested deeper than Python reads"]
    from asraudit.errors import InputError
    from asraudit.probes.families import load_catalogue

    with pytest.raises(InputError) as err:
        load_catalogue(spec)
    assert str(err.value) == f"{spec}: broken TOML: arrays or tables nested deeper than Python reads"
