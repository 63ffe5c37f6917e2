"""Case 90: a model folder whose config.json transformers cannot read.

A config.json without ``model_type`` (another toolkit's config, or a model
saved before transformers wrote the key), a ``model_type`` the installed
transformers does not know (a model newer than it, or a family that is not in
transformers), a config.json that is a JSON list, or a field of the wrong type
(``"d_model": "abc"``) gave a ValueError or StrictDataclassFieldValidationError
traceback from ``AutoConfig``, and ``whitebox:`` on the list an AttributeError.
Each is now one line naming the folder, before any model runs, and
``audit --check`` says the same naming the spec's model.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("transformers")

CASES = [
    ({"architectures": ["WhisperForConditionalGeneration"]}, "its config.json names no model_type, so it is not a "
                                                            "transformers model folder"),
    ({"model_type": "foo_asr"}, "model_type 'foo_asr' is not known to the installed transformers"),
    ([1, 2], "its config.json names no model_type"),
    ({"model_type": "whisper", "d_model": "abc"}, "config.json: Validation error for field 'd_model': TypeError: "
                                                  "Field 'd_model' expected int, got str (value: 'abc')"),
]
IDS = ["no-model-type", "unknown-model-type", "a-list", "a-field-of-the-wrong-type"]


def _folder(tmp_path, config):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


@pytest.mark.parametrize("config, said", CASES, ids=IDS)
@pytest.mark.parametrize("prefix", ["", "whitebox:"])
def test_transcribe_names_the_folder_and_what_its_config_lacks(tmp_path, cli, config, said, prefix):
    from conftest import one_clip_manifest

    if prefix and (isinstance(config, list) or config.get("model_type") != "foo_asr"):
        # ``whitebox:DIR`` reads a folder of no other family as a CTranslate2 Whisper (``whitebox:hf:DIR`` is a
        # transformers Whisper); the list had been an AttributeError there
        said = "not a CTranslate2 Whisper model directory (missing model.bin)"
    folder = _folder(tmp_path, config)
    ran = cli("transcribe", "--corpus", one_clip_manifest(tmp_path), "--model", f"{prefix}{folder}",
              "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    assert said in ran.error_lines[0] and "model" in ran.error_lines[0], ran.error_lines
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_audit_check_names_the_spec_model(tmp_path, cli):
    from conftest import one_clip_manifest

    folder = _folder(tmp_path, CASES[1][0])
    spec = tmp_path / "audit.toml"
    spec.write_text(f'out = "out"\n[corpus]\nmanifest = "{one_clip_manifest(tmp_path).name}"\n[[model]]\n'
                    f'spec = "{folder}"\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2 and len(ran.error_lines) == 1
    assert ran.error_lines[0].startswith(f"asraudit: error: {spec}: [[model]] #1 ")
    assert CASES[1][1] in ran.error_lines[0]
