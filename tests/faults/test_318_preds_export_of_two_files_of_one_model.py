"""Case 318: ``asraudit preds --preds a/m1.jsonl b/m1.jsonl --export DIR``: two files of one model (a model's
predictions from two runs, kept in two folders).

Without ``--export`` (and in ``wer``, ``refdis``) this is "two prediction files for model 'm1'".  With it, the
export's check came first and named a fault the user had not made: ``DIR/m1.jsonl: --export and --export name the
same file: give each its own`` (the option is given once).  The files are now refused as two of one model where they
are listed (``data.predictions.prediction_files``), before any option's check reads them.
"""

from __future__ import annotations

import pytest

from conftest import write_preds

ROWS = [("c1", "the cat sat", "the cat sat"), ("c2", "on the mat", "on a mat")]


@pytest.mark.parametrize("export", [True, False], ids=["export", "no-export"])
def test_two_files_of_one_model_are_named_as_such(tmp_path, cli, monkeypatch, export):
    monkeypatch.chdir(tmp_path)
    for folder in "ab":
        (tmp_path / folder).mkdir()
        write_preds(tmp_path / folder / "m1.jsonl", ROWS)
    ran = cli("preds", "--preds", "a/m1.jsonl", "b/m1.jsonl", *(["--export", "ex"] if export else []))
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == ["asraudit: error: b/m1.jsonl: two prediction files for model 'm1': a/m1.jsonl and "
                               "b/m1.jsonl"]
    assert not (tmp_path / "ex").exists()
