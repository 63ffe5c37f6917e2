"""Case 273: an output of ``steer learn|induce|ablate`` or ``patch`` named after one of its inputs or another
output: ``steer learn --out m.jsonl`` (the corpus manifest) replaced the manifest with the direction, exit 0;
``--json`` named after ``--store`` replaced the store of every finished variant with the readout, and named after
``--direction`` the direction.  Each is refused before the corpus is decoded and the model loads, the input
untouched."""

from __future__ import annotations

import pytest

from tests.faults.conftest import MODEL_LOADED, mechanism_folder_without_a_model, one_clip_manifest, write_preds



@pytest.fixture()
def here(tmp_path, monkeypatch):
    mechanism_folder_without_a_model(tmp_path, monkeypatch, {"model": "whitebox:whisper-tiny.en"})
    (tmp_path / "o").mkdir()
    one_clip_manifest(tmp_path / "o", tone=False)  # another corpus under the same clip id
    (tmp_path / "p").mkdir()
    write_preds(tmp_path / "p" / "w.jsonl", [("a.wav", "a tone", "a tone")])
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "m.jsonl")
    return tmp_path


INDUCE = ("steer", "induce", "--corpus", "m.jsonl", "--direction", "d.safetensors")
ABLATE = ("steer", "ablate", "--corpus", "m.jsonl", "--direction", "d.safetensors")
LEARN = ("steer", "learn", "--corpus", "m.jsonl", "--layer", "1")
PATCH = ("patch", "--corpus", "m.jsonl")
WRITE = "write it to another file"


@pytest.mark.parametrize("args, path, message", [
    (LEARN + ("--negative", "silence", "--out", "m.jsonl"), "m.jsonl",
     f"--out would overwrite the corpus manifest, an input: {WRITE}"),
    (LEARN + ("--negative", "silence", "--out", "link.jsonl"), "link.jsonl",
     f"--out would overwrite the corpus manifest, an input: {WRITE}"),
    (LEARN + ("--negative-corpus", "o/m.jsonl", "--out", "o/m.jsonl"), "o/m.jsonl",
     f"--out would overwrite the --negative-corpus manifest, an input: {WRITE}"),
    (LEARN + ("--negative", "silence", "--out", "a.wav"), "a.wav",
     f"--out would overwrite the audio of clip 'a.wav', an input: {WRITE}"),
    (INDUCE + ("--json", "d.safetensors"), "d.safetensors", f"--json would overwrite --direction, an input: {WRITE}"),
    (INDUCE + ("--json", "s.sqlite", "--store", "s.sqlite"), "s.sqlite",
     "--store and --json name the same file: give each its own"),
    (ABLATE + ("--json", "m.jsonl"), "m.jsonl", f"--json would overwrite the corpus manifest, an input: {WRITE}"),
    (ABLATE + ("--store", "d.safetensors"), "d.safetensors",
     f"--store would overwrite --direction, an input: {WRITE}"),
    (ABLATE + ("--json", "a.wav"), "a.wav", f"--json would overwrite the audio of clip 'a.wav', an input: {WRITE}"),
    (INDUCE + ("--preds", "p/w.jsonl", "--json", "p/w.jsonl"), "p/w.jsonl",
     f"--json would overwrite the prediction file of model w, an input: {WRITE}"),
    (PATCH + ("--source", "corpus:o/m.jsonl", "--json", "o/m.jsonl"), "o/m.jsonl",
     f"--json would overwrite --source corpus:o/m.jsonl, an input: {WRITE}"),
    (PATCH + ("--source", "audio:o/a.wav", "--store", "o/a.wav"), "o/a.wav",
     f"--store would overwrite --source audio:o/a.wav, an input: {WRITE}"),
    (LEARN + ("--negative-corpus", "o/m.jsonl", "--out", "o/a.wav"), "o/a.wav",
     f"--out would overwrite the audio of clip 'a.wav', an input: {WRITE}"),
    (PATCH + ("--source", "corpus:o/m.jsonl", "--json", "o/a.wav"), "o/a.wav",
     f"--json would overwrite the audio of clip 'a.wav', an input: {WRITE}"),
    (PATCH + ("--block-attention", "0-0.5", "--json", "x.json", "--store", "x.json"), "x.json",
     "--store and --json name the same file: give each its own"),
    (PATCH + ("--block-attention", "0-0.5", "--preds", "p", "--json", "p/readout.json"), "p/readout.json",
     "--json is in the predictions folder p, whose every .json file is read as a model's predictions: the next "
     "run would read it as model 'readout'; write it outside the folder"),
])
def test_an_output_on_an_input_is_refused_before_the_model_loads(here, cli, args, path, message):
    before = {p: p.read_bytes() for p in here.rglob("*") if p.is_file()}
    ran = cli(*args, "--no-progress") if args[:2] != LEARN[:2] else cli(*args)
    assert ran.code == 2, ran.err
    assert ran.error_lines == [f"asraudit: error: {path}: {message}"]
    assert {p: p.read_bytes() for p in here.rglob("*") if p.is_file()} == before


def test_outputs_of_their_own_still_pass_the_check(here, cli):
    with pytest.raises(AssertionError, match=MODEL_LOADED):
        cli(*INDUCE, "--json", "r.json", "--store", "s.sqlite", "--preds", "p")
    with pytest.raises(AssertionError, match=MODEL_LOADED):
        cli(*LEARN, "--negative-corpus", "o/m.jsonl", "--out", "d2.safetensors")
