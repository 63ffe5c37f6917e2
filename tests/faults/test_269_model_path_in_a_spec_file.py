"""Case 269: an audit spec file whose ``[[model]] spec`` names a model folder by a relative path (``spec = "ft"``,
``"hf:ft"``, ``"whitebox:ft"``), the folder beside the spec, run from another working directory.

Every other path of a spec file is read against the spec's folder (the corpus, prediction files, the battery,
``[[mechanism]]`` models); a model's ``spec`` was read against the working directory.  Run from a folder holding
another ``ft`` (another checkpoint of the same name), the audit loaded that one, its summary naming ``ft``,
exit 0; from anywhere else it was ``unknown model 'ft'``.  Now a relative path that is there beside the spec is
the spec's folder's; names that are no path there (embedded models, hub ids) read as before.
"""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import one_clip_manifest

pytest.importorskip("transformers")


def _spec(folder, model_spec):
    one_clip_manifest(folder)
    (folder / "p.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "a tone", "pred_text": "a tone"})
                                    + "\n", encoding="utf-8")
    path = folder / "a.toml"
    path.write_text('name = "x"\nout = "o"\nbootstrap = 10\n[refdis]\nmin_panel = 2\n'
                    '[corpus]\nmanifest = "m.jsonl"\n'
                    f'[[model]]\nspec = "{model_spec}"\nname = "one"\npanel = true\n'
                    f'[[model]]\npredictions = "p.jsonl"\npanel = true\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("prefix", ["", "hf:"])
def test_a_model_folder_beside_the_spec_is_the_one_loaded(tmp_path, wav2vec2, cli, monkeypatch, prefix):
    from asraudit import load_spec

    shutil.copytree(wav2vec2, tmp_path / "exp" / "ft")
    spec = _spec(tmp_path / "exp", f"{prefix}ft")
    elsewhere = tmp_path / "elsewhere" / "ft"  # another folder of the same name, not a model asraudit can load
    elsewhere.mkdir(parents=True)
    (elsewhere / "config.json").write_text(json.dumps({"model_type": "not_a_speech_model"}))
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert load_spec(spec).models[0].spec == f"{prefix}{tmp_path / 'exp' / 'ft'}"
    ran = cli("audit", spec, "--check")
    assert ran.code == 0, ran.err


def test_names_that_are_no_path_beside_the_spec_read_as_before(tmp_path):
    from asraudit import load_spec

    (tmp_path / "whisper-tiny.en").mkdir()  # a folder named as an embedded model: the embedded model still
    spec = _spec(tmp_path, "whisper-tiny.en")
    assert load_spec(spec).models[0].spec == "whisper-tiny.en"
    spec = _spec(tmp_path, "hf:org/model")
    assert load_spec(spec).models[0].spec == "hf:org/model"
