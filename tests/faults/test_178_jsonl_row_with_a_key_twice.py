"""Case 178: a JSONL (or JSON array) row that gives one key twice: ``{"text": "a", "text": "b"}`` (a row edited
by hand, or by a tool that appended a corrected field under the old name).

Every JSON reader keeps the last value without a word: the row's other reference (or hypothesis, or clip id)
was scored, exit 0.  Now the row is refused, naming it and the key.  The check costs one count of ":" per block
of lines (the prediction loader) or per line (the per-line reader): a line whose ":" equal its object's keys
holds no key twice; only the others (a ":" in a string, a nested object) are parsed again with their pairs.
"""

from __future__ import annotations

import json

import pytest

from conftest import one_clip_manifest

DUP = ('{"audio_filepath": "c1", "text": "the record", "pred_text": "the record", '
       '"text" : "a corrected reference"}\n')
GOOD = '{"audio_filepath": "c0", "text": "at 10:30 a.m.", "pred_text": "at ten thirty"}\n'


def _good(n):
    return "".join(GOOD.replace('"c0"', f'"g{i}"') for i in range(n))


def _message(name, row, key="text"):
    return (f"{name}, row {row}: key {key!r} is given twice in one object of the row, and a JSON reader keeps only "
            "the last value, without a word: rename or remove one")


def test_a_prediction_row_with_a_key_twice_is_refused(tmp_path, cli):
    preds = tmp_path / "m0.jsonl"
    preds.write_text(GOOD + DUP, encoding="utf-8")
    ran = cli("wer", "--preds", preds)
    assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {_message(preds, 2)}"]
    assert ran.out == ""


def test_every_jsonl_reader_refuses_it(tmp_path):
    from asraudit.data.prediction_blocks import jsonl_predictions
    from asraudit.data.rows import jsonl_rows
    from asraudit.errors import InputError
    from asraudit.metrics.stream_rows import _score_range_plain, score_file_parallel
    from asraudit.metrics.wer import clip_counts

    preds = tmp_path / "m0.jsonl"
    preds.write_text(_good(50) + DUP + GOOD, encoding="utf-8")
    size = preds.stat().st_size
    for read in (lambda: jsonl_predictions(preds), lambda: jsonl_predictions(preds, block_bytes=64),
                 lambda: list(jsonl_rows(preds)), lambda: _score_range_plain(preds, 0, size, 1, str.lower, clip_counts),
                 lambda: score_file_parallel(preds, str.lower, workers=2, chunk_bytes=1000)):
        with pytest.raises(InputError) as err:
            read()
        assert str(err.value) == _message(preds, 51)
    nested = tmp_path / "n.jsonl"
    nested.write_text('{"audio_filepath": "c0", "text": "a", "pred_text": "a", "meta": {"spk": 1, "spk": 2}}\n',
                      encoding="utf-8")
    with pytest.raises(InputError) as err:
        jsonl_predictions(nested)
    assert str(err.value) == _message(nested, 1, "spk")


def test_a_manifest_and_a_json_array(tmp_path, cli):
    manifest = one_clip_manifest(tmp_path)
    row = json.loads(manifest.read_text(encoding="utf-8"))
    manifest.write_text(json.dumps(row)[:-1] + ', "text": "another"}\n', encoding="utf-8")
    ran = cli("transcribe", "--corpus", manifest, "--model", "pocketsphinx", "--out", tmp_path / "out",
              "--no-progress")
    assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {_message(manifest, 1)}"]
    assert not (tmp_path / "out").exists()
    array = tmp_path / "m1.json"
    array.write_text("[" + GOOD + ",\n" + DUP + "]", encoding="utf-8")
    ran = cli("wer", "--preds", array)
    assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {_message(array, 2)}"]


def test_colons_in_strings_and_nested_objects_are_still_read(tmp_path, cli):
    from asraudit.data.prediction_blocks import jsonl_predictions

    preds = tmp_path / "m0.jsonl"
    preds.write_text(GOOD + '{"audio_filepath": "s3://b/c1", "text": "a: b", "pred_text": "a b", '
                     '"meta": {"x": {"y": 1}}}\n', encoding="utf-8")
    rows, _ = jsonl_predictions(preds)
    assert sorted(rows) == ["c0", "s3://b/c1"] and rows["c0"].reference == "at 10:30 a.m."
    array = tmp_path / "m1.json"
    array.write_text("[" + GOOD + "]", encoding="utf-8")
    assert cli("wer", "--preds", array).code == 0
