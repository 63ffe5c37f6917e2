"""Case 176: ``demo build-organism --out`` naming a folder, a path through a file, the train manifest or the
adapter the build starts from.

The adapter is written only when training ends (minutes to twenty on two cores): the path was not checked
before, so a folder failed after the whole build, and ``--out`` naming the manifest replaced the benchmark's
train manifest with the adapter.  Each is now one line before any training."""

from __future__ import annotations

import pytest

import asraudit.commands.demo as demo_command
from asraudit.demo.organism_kinds import organism_kind


@pytest.fixture(autouse=True)
def no_training(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("training started: the output path was not checked first")

    monkeypatch.setattr(demo_command, "build_organism", refuse)


def test_a_folder_is_refused_before_training(cli, tmp_path):
    ran = cli("demo", "build-organism", "--out", tmp_path)
    assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {tmp_path}: --out is a folder; give a file name"]


def test_a_path_through_a_file_is_refused(cli, tmp_path):
    (tmp_path / "afile").write_text("x")
    ran = cli("demo", "build-organism", "--out", tmp_path / "afile" / "a.safetensors")
    assert ran.code == 2
    assert ran.error_lines[0].endswith(f"cannot write --out: {tmp_path / 'afile'} is a file, not a folder")


def test_the_train_manifest_is_not_overwritten(cli, tmp_path):
    manifest = tmp_path / "train.jsonl"
    manifest.write_text('{"audio_filepath": "a.wav", "text": "a"}\n')
    ran = cli("demo", "build-organism", "--manifest", manifest, "--out", manifest)
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {manifest}: --out would overwrite --manifest, an input: "
                               "name another adapter file"]
    assert manifest.read_text() == '{"audio_filepath": "a.wav", "text": "a"}\n'


def test_the_adapter_it_starts_from_is_not_overwritten(cli):
    start = organism_kind(organism_kind("contaminated").starts_from).adapter
    ran = cli("demo", "build-organism", "--kind", "contaminated", "--out", start)
    assert ran.code == 2 and ran.error_lines[0].endswith("--out would overwrite the adapter it starts from, an input: "
                                                         "name another adapter file")


def test_a_new_file_goes_on_to_training(cli, tmp_path):
    """The control: a writable new path passes the checks and reaches the build."""
    with pytest.raises(AssertionError, match="training started"):
        cli("demo", "build-organism", "--out", tmp_path / "new" / "a.safetensors")
