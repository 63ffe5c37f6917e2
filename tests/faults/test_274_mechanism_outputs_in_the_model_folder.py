"""Case 274: an output of ``steer learn|induce|ablate`` or ``patch`` written into the folder of ``--model DIR``, a
transformers Whisper folder: the folder is known by a digest of every file in it (case 266), so ``--json
DIR/readout.json`` gave the model another config hash on each run, and every run computed every variant again
(6 results in the store after two runs of 3 variants), none reused.  Refused before the model loads."""

from __future__ import annotations

import shutil

import pytest

from tests.faults.conftest import MODEL_LOADED, mechanism_folder_without_a_model

pytest.importorskip("transformers")
WHY = ("whose every file is part of the model's identity: a file written there gives the model another config "
       "hash, and the next run would compute every variant again instead of reusing the result store: write it "
       "outside the model's folder")


@pytest.fixture()
def here(tmp_path, monkeypatch):
    mechanism_folder_without_a_model(tmp_path, monkeypatch)
    hf = tmp_path / "hf"
    hf.mkdir()
    (hf / "config.json").write_text('{"model_type": "whisper"}', encoding="utf-8")
    (hf / "model.safetensors").write_bytes(b"weights")
    return tmp_path


@pytest.mark.parametrize("args, path, what, model", [
    (("steer", "induce", "--model", "hf", "--direction", "d.safetensors", "--json", "hf/readout.json"),
     "hf/readout.json", "--json", "hf"),
    (("steer", "ablate", "--model", "whitebox:hf", "--direction", "d.safetensors", "--store", "hf/s.sqlite"),
     "hf/s.sqlite", "--store", "whitebox:hf"),
    (("steer", "learn", "--model", "hf", "--negative", "silence", "--layer", "1", "--out", "hf/d.safetensors"),
     "hf/d.safetensors", "--out", "hf"),
    (("patch", "--model", "hf:hf", "--block-attention", "0-0.5", "--json", "hf/../hf/r.json"),
     "hf/../hf/r.json", "--json", "hf:hf"),
])
def test_an_output_in_the_model_folder_is_refused(here, cli, args, path, what, model):
    ran = cli(*args, "--corpus", "m.jsonl")
    assert ran.code == 2, ran.err
    assert ran.error_lines == [f"asraudit: error: {path}: {what} is in the folder of --model {model}, {WHY}"]
    assert sorted(p.name for p in (here / "hf").iterdir()) == ["config.json", "model.safetensors"]


def test_the_default_store_inside_the_model_folder_is_refused(here, cli, monkeypatch):
    monkeypatch.chdir(here / "hf")
    ran = cli("steer", "induce", "--model", ".", "--corpus", "../m.jsonl", "--direction", "../d.safetensors")
    assert ran.error_lines == [f"asraudit: error: asraudit.sqlite: --store is in the folder of --model ., {WHY}"]


def test_outputs_beside_the_folder_and_a_ctranslate2_folder_pass(here, cli):
    with pytest.raises(AssertionError, match=MODEL_LOADED):
        cli("steer", "induce", "--model", "hf", "--corpus", "m.jsonl", "--direction", "d.safetensors",
            "--json", "readout.json")
    ct2 = here / "ct2"
    shutil.copytree(here / "hf", ct2)
    (ct2 / "model.bin").write_bytes(b"ct2")  # known by its four files, not by the folder's
    with pytest.raises(AssertionError, match=MODEL_LOADED):
        cli("steer", "induce", "--model", "ct2", "--corpus", "m.jsonl", "--direction", "d.safetensors",
            "--json", "ct2/readout.json")
