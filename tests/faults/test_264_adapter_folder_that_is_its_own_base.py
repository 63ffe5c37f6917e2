"""Case 264: a PEFT adapter folder whose config names, as its base model, the adapter's own folder
(``"base_model_name_or_path": "."``, or its own path) or another adapter folder that names it back.

An adapter folder's base is loaded as a user's folder is, and a base that is itself an adapter folder is
loaded the same way, its base first: a chain that came back to a folder on it never reached a model, and
``load_model`` (``--model DIR``, a spec's ``[[model]] spec``) stopped with ``RecursionError: maximum
recursion depth exceeded``, a traceback.  Now it is one line naming the adapter config and the loop.
"""

from __future__ import annotations

import json

import pytest

from asraudit import InputError, load_model

from conftest import one_clip_manifest

pytest.importorskip("peft")


def adapter(folder, base):
    folder.mkdir()
    (folder / "adapter_config.json").write_text(json.dumps({"peft_type": "LORA", "base_model_name_or_path": base}))
    return folder


@pytest.mark.parametrize("base", [".", "SELF"])
def test_an_adapter_that_names_its_own_folder_as_base_is_one_line(tmp_path, base):
    folder = tmp_path / "adapter"
    adapter(folder, str(folder) if base == "SELF" else base)
    with pytest.raises(InputError) as err:
        load_model(str(folder))
    assert str(err.value).endswith(
        "adapter_config.json: the adapter's base model is an adapter folder whose chain of bases comes back to a "
        f"folder on it ({folder} -> {folder}), so no model is ever reached: set base_model_name_or_path to the base "
        "model's folder or hub id")


def test_two_adapters_naming_each_other_are_one_line(tmp_path, cli):
    a, b = tmp_path / "a", tmp_path / "b"
    adapter(a, "../b")
    adapter(b, str(a))
    with pytest.raises(InputError) as err:
        load_model(str(a))
    assert f"({a} -> {b} -> {a})" in str(err.value)
    manifest = one_clip_manifest(tmp_path)
    ran = cli("transcribe", "--model", a, "--corpus", manifest, "--out", tmp_path / "out.jsonl", "--no-progress")
    assert ran.code == 2 and len(ran.error_lines) == 1 and f"({a} -> {b} -> {a})" in ran.error_lines[0]
