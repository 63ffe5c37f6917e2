"""Case 91: a saved Hugging Face dataset (``save_to_disk``) whose id column holds numbers, with a gap or a null.

An id column of whole numbers with a missing value is float: the clips were
named ``"1.0"`` and ``"nan"`` (and a null id ``"None"``), so they met no
prediction file that names clip ``1`` (case 19's rule for prediction files
and manifests was not applied to datasets), and a row without an id became a
clip.  Now a dataset's ids follow the same rule: ``1.0`` is clip ``1``, and a
NaN or null id is refused naming the row, before any model runs.
"""

from __future__ import annotations

import pytest
from conftest import saved_tone_dataset


def test_whole_float_ids_are_the_integers_clips(tmp_path):
    from asraudit.data.corpus import load_corpus

    assert load_corpus(saved_tone_dataset(tmp_path, [1.0, 2.0, 30.0], "float64")).ids == ["1", "2", "30"]


@pytest.mark.parametrize("ids, dtype, said", [
    ([1.0, float("nan")], "float64", "row 2: clip id is nan (a number that names no clip): give every row its id"),
    (["a", None], "string", "row 2: clip id is null: give every row its id"),
], ids=["nan", "null"])
def test_an_id_that_names_no_clip_is_refused_before_any_model_runs(tmp_path, cli, ids, dtype, said):
    saved = saved_tone_dataset(tmp_path, ids, dtype)
    ran = cli("transcribe", "--corpus", saved, "--model", "pocketsphinx", "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {saved}, {said}"]
    assert not (tmp_path / "out" / "pocketsphinx.jsonl").exists()
