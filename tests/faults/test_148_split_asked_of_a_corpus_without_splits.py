"""Case 148: ``--split`` / ``--hf-config`` (``split =`` / ``config =`` in an audit spec) asked of a corpus that
has no splits or configurations.

A manifest, a folder of audio, and a saved dataset written with no split name (``Dataset.from_dict(...)
.save_to_disk``) were read whole whatever ``--split test`` asked, and a saved dataset whatever ``--hf-config``
asked: a user who typed ``--split test`` believed the test split audited (the saved dataset's clips were even
named ``saved-test``), exit 0.  Now the option is refused in one line before any model runs.
"""

from __future__ import annotations

import pytest

from conftest import one_clip_manifest, write_preds


def _transcribe(cli, tmp_path, corpus, *options):
    return cli("transcribe", "--corpus", corpus, *options, "--model", "pocketsphinx", "--out", tmp_path / "out",
               "--no-progress")


def test_a_manifest_or_a_folder_has_no_split(tmp_path, cli):
    manifest = one_clip_manifest(tmp_path)
    ran = _transcribe(cli, tmp_path, manifest, "--split", "test")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {manifest}: split 'test' cannot be chosen: a manifest has no splits (they are a Hugging "
        "Face dataset's): give no split"]
    ran = _transcribe(cli, tmp_path, tmp_path, "--hf-config", "en")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {tmp_path}: configuration 'en' cannot be chosen: a folder of audio has no "
        "configurations (they are a Hugging Face dataset's): give no configuration"]
    assert not (tmp_path / "out").exists()


def test_a_saved_dataset_of_no_split_name_and_no_configurations(tmp_path, cli):
    datasets = pytest.importorskip("datasets")
    one_clip_manifest(tmp_path)
    saved = tmp_path / "saved"
    rows = datasets.Dataset.from_dict({"audio": [str(tmp_path / "a.wav")], "text": ["a tone"]})
    rows.cast_column("audio", datasets.Audio(decode=False)).save_to_disk(str(saved))
    ran = _transcribe(cli, tmp_path, saved, "--split", "test")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {saved}: split 'test' cannot be chosen: the folder holds one dataset saved with no split "
        "name, read whole: give no split"]
    ran = _transcribe(cli, tmp_path, saved, "--hf-config", "en")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {saved}: configuration 'en' cannot be chosen: a saved dataset folder holds one (a "
        "configuration is chosen for a hub dataset, hf:NAME): give no configuration"]
    assert not (tmp_path / "out").exists()
    from asraudit.data.corpus import load_corpus

    assert load_corpus(saved).ids == ["0"]  # with no split asked, it is read as before


def test_an_audit_spec_of_a_predictions_file_with_a_split(tmp_path, cli):
    rows = [(f"c{i}", f"the cat sat number {i}", f"the cat sat number {i}") for i in range(4)]
    models = ""
    for i in range(3):
        write_preds(tmp_path / f"m{i}.jsonl", rows)
        models += f'[[model]]\npredictions = "{tmp_path / f"m{i}.jsonl"}"\npanel = true\n\n'
    spec = tmp_path / "audit.toml"
    spec.write_text(f'name = "x"\nout = "out"\n[corpus]\npredictions = "{tmp_path / "m0.jsonl"}"\n'
                    f'split = "test"\n\n{models}', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {spec}: [corpus]: split = 'test' cannot apply to a predictions file, which has no splits "
        "(a Hugging Face dataset's): remove it"]
