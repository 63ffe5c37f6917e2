"""Case 277: an output of a model-running command (``transcribe``, ``score``, ``lift``, ``mask``, ``battery``,
``translate``) or an audit's ``out`` written into the folder of a transformers ``--model DIR`` (``hf:DIR``,
``whitebox:DIR``).  Such a folder is known by a digest of every file in it (case 266), so a store, prediction
file or summary written there gave the model another config hash: two runs of ``transcribe --model hf:hf --out
hf`` each said ``1 job(s) run now, 0 already stored``, nothing reused.  Case 274 refused it for ``steer`` and
``patch`` only; the rule now lives with the digest (``weights_digest.refuse_outputs_in_model_folders``) and every
command checks its outputs against it before a model loads."""

from __future__ import annotations

import pytest

from tests.faults.conftest import MODEL_LOADED, one_clip_manifest

WHY = ("whose every file is part of the model's identity: a file written there gives the model another config "
       "hash, and the next run would compute everything again instead of reusing the result store: write it "
       "outside the model's folder")
FILES = ["config.json", "model.safetensors"]


@pytest.fixture()
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    one_clip_manifest(tmp_path)
    hf = tmp_path / "hf"
    hf.mkdir()
    (hf / "config.json").write_text('{"model_type": "whisper"}', encoding="utf-8")
    (hf / "model.safetensors").write_bytes(b"weights")
    return tmp_path


@pytest.mark.parametrize("args, path, what, model", [
    (("transcribe", "--model", "hf:hf", "--out", "hf"), "hf", "--out", "hf:hf"),
    (("transcribe", "--model", "pocketsphinx", "--model", "hf", "--out", "preds", "--store", "hf/x.sqlite"),
     "hf/x.sqlite", "the result store", "hf"),
    (("transcribe", "--model", "whitebox:hf", "--out", "hf/../hf"), "hf/../hf", "--out", "whitebox:hf"),
    (("score", "--model", "hf:hf", "--with-reference", "--out", "hf/scores.jsonl"),
     "hf/scores.jsonl", "--out", "hf:hf"),
    (("score", "--model", "hf:hf", "--with-reference", "--out", "scores.jsonl", "--store", "hf/s.sqlite"),
     "hf/s.sqlite", "the result store", "hf:hf"),
])
def test_an_output_in_the_model_folder_is_refused_before_any_model_loads(here, cli, args, path, what, model):
    ran = cli(*args, "--corpus", "m.jsonl", "--no-progress")
    assert ran.code == 2, ran.err
    assert ran.error_lines == [f"asraudit: error: {path}: {what} is in the folder of --model {model}, {WHY}"]
    assert sorted(p.name for p in (here / "hf").iterdir()) == FILES
    assert not (here / "preds").exists()


def test_an_audit_out_that_is_the_model_folder_is_refused(here, cli):
    (here / "audit.toml").write_text('out = "hf"\n[corpus]\nmanifest = "m.jsonl"\n[[model]]\nspec = "hf:hf"\n',
                                     encoding="utf-8")
    ran = cli("audit", "--check", "audit.toml")
    assert ran.code == 2, ran.err
    assert ran.error_lines == ["asraudit: error: hf: the audit's out is in the folder of [[model]] #1, "
                               f"{WHY}"]
    assert sorted(p.name for p in (here / "hf").iterdir()) == FILES


def test_a_folder_below_the_model_folder_passes(here, cli, monkeypatch):
    import asraudit.commands.transcribe as transcribe

    def no_model(args):
        raise AssertionError(MODEL_LOADED)

    monkeypatch.setattr(transcribe, "model_factories", no_model)
    with pytest.raises(AssertionError, match=MODEL_LOADED):  # not in the digest: files directly in the folder
        cli("transcribe", "--model", "hf:hf", "--corpus", "m.jsonl", "--out", "hf/preds", "--store", "hf/sub/s.sqlite")
