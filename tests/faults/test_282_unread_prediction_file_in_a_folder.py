"""Case 282: a folder of prediction files holding a model's rows in a form asraudit does not read: a compressed
file (``m1.jsonl.gz``), or another row layout (``m2.ndjson``, ``m3.tsv``).  A folder's entries were kept by suffix
only, so these were passed over like a README: the model was missing from every table and panel without a word
(``wer --preds DIR`` and ``load_predictions(DIR)`` went on with the others), while the same file named on its own
was refused.  Now the folder is refused naming the file."""

from __future__ import annotations

import gzip

import pytest

from asraudit import InputError, load_predictions
from conftest import write_preds


def _folder(tmp_path):
    folder = tmp_path / "preds"
    folder.mkdir()
    for model in ("m0", "m4"):
        write_preds(folder / f"{model}.jsonl", [("a.wav", "a b", "a b")])
    return folder


def test_a_compressed_file_is_named(tmp_path, cli):
    folder = _folder(tmp_path)
    (folder / "m1.jsonl.gz").write_bytes(gzip.compress((folder / "m0.jsonl").read_bytes()))
    ran = cli("wer", "--preds", folder, "--bootstrap", "0")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {folder / 'm1.jsonl.gz'}: compressed prediction file (.gz), which is not read, in a folder "
        "of prediction files: model m1 would be left out of every table without a word: decompress it, or move it "
        "out of the folder"]


@pytest.mark.parametrize("name", ["m2.ndjson", "m3.TSV", "m5.csv.bz2"])
def test_another_layout_is_refused_from_python(tmp_path, name):
    folder = _folder(tmp_path)
    (folder / name).write_bytes((folder / "m0.jsonl").read_bytes())
    with pytest.raises(InputError, match=f"^{folder / name}: .*would be left out of every table"):
        load_predictions(folder)


def test_other_files_are_still_passed_over(tmp_path, cli):
    folder = _folder(tmp_path)
    (folder / "README.md").write_text("notes\n")
    (folder / "preds.tar.gz").write_bytes(b"\x1f\x8b")
    (folder / "._m1.jsonl.gz").write_bytes(b"\x00\x05\x16\x07")
    assert load_predictions(folder).model_names == ["m0", "m4"]
    ran = cli("wer", "--preds", folder, "--bootstrap", "0")
    assert ran.code == 0 and "m0" in ran.out and "m4" in ran.out
