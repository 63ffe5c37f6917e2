"""Case 179: a JSON ``true`` (or a Parquet bool column) where a row file holds a number: a prediction file's or a
manifest's ``duration``, a mask recipe's span and word index, a released aggregate's rates and settings.

Python's ``float(True)`` is 1.0 and ``int(True)`` 1, and ``True`` is an ``int``: ``"duration": true`` was one
second in every prediction file and RTFx (the stream reader's test listed it among the odd but valid rows), a
recipe's ``"index": true`` masked word 1 and ``"index": 2.7`` word 2, and a release's ``"majority_pct": true`` was a
majority of 100%, exit 0.  Each is refused now, naming the row and the field.
"""

from __future__ import annotations

import json

import pytest

from conftest import one_clip_manifest


def test_a_boolean_duration_in_a_prediction_file(tmp_path, cli):
    preds = tmp_path / "m0.jsonl"
    preds.write_text(json.dumps({"audio_filepath": "c0", "text": "a b", "pred_text": "a", "duration": True}) + "\n",
                     encoding="utf-8")
    ran = cli("wer", "--preds", preds)
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {preds}, row 1: duration must be a number of seconds, got the boolean true"]


def test_a_boolean_duration_in_a_manifest_jsonl_or_parquet(tmp_path, cli):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    manifest = one_clip_manifest(tmp_path)
    row = json.loads(manifest.read_text(encoding="utf-8"))
    manifest.write_text(json.dumps({**row, "duration": True}) + "\n", encoding="utf-8")
    parquet = tmp_path / "m.parquet"
    pq.write_table(pa.Table.from_pylist([{**row, "duration": True}]), parquet)
    for corpus in (manifest, parquet):
        ran = cli("transcribe", "--corpus", corpus, "--model", "pocketsphinx", "--out", tmp_path / "out",
                  "--no-progress")
        assert ran.code == 2 and ran.error_lines == [
            f"asraudit: error: {corpus}, row 1: duration must be a number of seconds, got the boolean true"]
        assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("fields, said", [
    ({"t0": True, "t1": 2.0, "index": 0}, "t0 must be a number of seconds, got the boolean true"),
    ({"t0": 0.0, "t1": 2.0, "index": True}, "word index must be an integer, got true"),
    ({"t0": 0.0, "t1": 2.0, "index": 2.7}, "word index must be an integer, got 2.7"),
])
def test_a_mask_recipe_span_or_index(tmp_path, fields, said):
    from asraudit.data.mask_recipe import read_recipe
    from asraudit.errors import InputError

    recipe = tmp_path / "r.jsonl"
    recipe.write_text(json.dumps({"clip": "c0", "hidden": "tone", **fields}) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_recipe(recipe)
    assert str(err.value) == f"{recipe}, row 1: {said}"
    recipe.write_text(json.dumps({"clip": "c0", "hidden": "tone", "t0": 0, "t1": 2, "index": 2.0}) + "\n",
                      encoding="utf-8")
    assert read_recipe(recipe)[0].index == 2


def test_a_boolean_in_a_released_aggregate(tmp_path, cli):
    folder = tmp_path / "release"
    folder.mkdir()
    params = {"majority_pct": True, "min_run_len": 1, "include_middle": True, "min_ref_match_pct": 0.5,
              "min_consensus_cer": 0.3}
    row = {"model": "m", "in_whitelist": False, "benchmaxx_score": 0.3986, "accepted_ref": 527,
           "followed_consensus": 795, "eligible_runs": 1322}
    (folder / "tiny_aggregate.json").write_text(json.dumps({
        "dataset": "tiny", "language": "en", "split": "test", "whitelist": ["a"], "params": params,
        "prominence": {"clips_analyzed": 10, "n_runs": 1338}, "benchmaxx_leaderboard": [row]}), encoding="utf-8")
    ran = cli("reference", "--dir", folder, "tiny")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {folder / 'tiny_aggregate.json'}: params: field 'majority_pct' has the wrong type (bool)"]
