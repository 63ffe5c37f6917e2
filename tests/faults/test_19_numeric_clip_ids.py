"""Case 19: clip ids written as numbers: ``7`` in one file, ``7.0`` in another, NaN or Infinity.

A clip id ``7`` became ``"7"`` but ``7.0`` (a pandas or Parquet column of
whole numbers with a gap is float) became ``"7.0"``: the two files shared no
clip (``0 run by every model``) and ``--common`` scored nothing, exit 0.
JSON's ``NaN`` and ``Infinity`` as an id became clips named ``"nan"`` and
``"inf"``.  Now a whole float is the integer's id, and a non-finite one is
one line naming the row.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest


def test_whole_float_ids_meet_integer_ids(tmp_path, cli):
    (tmp_path / "a.jsonl").write_text("".join(
        json.dumps({"audio_filepath": i, "text": "the cat", "pred_text": "the cat"}) + "\n" for i in (7, 8)))
    pq.write_table(pa.table({"audio_filepath": [7.0, 8.0, None], "text": ["the cat", "the cat", "x"],
                             "pred_text": ["the", "the cat", None]}).slice(0, 2), tmp_path / "b.parquet")
    ran = cli("preds", "--preds", tmp_path / "a.jsonl", tmp_path / "b.parquet")
    assert ran.code == 0, ran.err
    assert "2 prediction file(s), 2 distinct clip(s), 2 run by every model" in ran.out
    scored = cli("wer", "--preds", tmp_path / "a.jsonl", tmp_path / "b.parquet", "--common",
                 "--json", tmp_path / "w.json")
    assert scored.code == 0, scored.err
    models = json.loads((tmp_path / "w.json").read_text(encoding="utf-8"))["models"]
    assert (models["b"]["clips"], models["b"]["deletions"]) == (2, 1)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_a_non_finite_id_is_one_line(tmp_path, cli, literal):
    path = tmp_path / "m.jsonl"
    path.write_text('{"audio_filepath": "c0", "text": "a b", "pred_text": "a b"}\n'
                    f'{{"audio_filepath": {literal}, "text": "a b", "pred_text": "a b"}}\n', encoding="utf-8")
    shown = {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}[literal]
    ran = cli("wer", "--preds", path)
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [f"asraudit: error: {path}, row 2: clip id is {shown} (a number that names no clip): "
                               "give every row its id"]


def test_a_group_manifest_with_float_ids_joins_the_prediction_ids(tmp_path, cli):
    (tmp_path / "p.jsonl").write_text("".join(
        json.dumps({"audio_filepath": str(i), "text": "the cat", "pred_text": "the"}) + "\n" for i in range(3)))
    pq.write_table(pa.table({"audio_filepath": [0.0, 1.0, 2.0], "speaker": ["s0", "s1", "s0"]}), tmp_path / "man.parquet")
    ran = cli("wer", "--preds", tmp_path / "p.jsonl", "--group-field", "speaker", "--manifest", tmp_path / "man.parquet",
              "--json", tmp_path / "w.json")
    assert ran.code == 0, ran.err
    groups = json.loads((tmp_path / "w.json").read_text(encoding="utf-8"))["groups"]
    assert "(none)" not in json.dumps(groups) and "s0" in json.dumps(groups) and "s1" in json.dumps(groups)
