"""Case 168: a third-party plug-in's model that calls itself by another model's name.

A model is known by its ``model_id``: the result store keys its transcripts by it, ``transcribe`` names its
prediction file after it, and every table shows it.  A plug-in that registered ``my-model`` but whose ``load`` returned
a model with ``model_id = "whisper-tiny.en"`` (a wrapper that kept the id of what it wraps, or a copy-paste) had its
transcripts stored, written (``whisper-tiny.en.jsonl``) and scored as the embedded Whisper's, exit 0.  Now the load is
refused in case 162's one line, before any model runs; a model id of its own (its name, or any other label) is kept.
"""

from __future__ import annotations

import json
import sys

import pytest

from conftest import one_clip_manifest, write_preds


@pytest.fixture()
def site(plugin_site):
    sys.modules.pop("plug_impostor", None)  # each test installs its own plug-in under the one module name
    yield plugin_site
    sys.modules.pop("plug_impostor", None)


def _install(site, preds, registrations: str) -> None:
    info = site / "impostor-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: impostor\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[asraudit.models]\nimpostor = plug_impostor:register\n", encoding="utf-8")
    (site / "plug_impostor.py").write_text(
        "from asraudit.models.registry import register_model, EmbeddedInfo\n"
        "from asraudit.models.replay import ReplayModel\n"
        f"PREDS = {str(preds)!r}\n"
        "def _as(model_id):\n    return lambda **kw: ReplayModel(PREDS, model_id=model_id)\n"
        "def register():\n" + registrations, encoding="utf-8")


def _register(name: str, model_id: str) -> str:
    return (f"    register_model({name!r}, _as({model_id!r}),"
            f" catalog_entry=lambda: EmbeddedInfo({name!r}, True, 'x', '-'))\n")


@pytest.mark.parametrize("model_id, holder", [
    ("whisper-tiny.en", "an embedded model"),
    ("pocketsphinx", "a built-in model"),
    ("whisper-tiny.en-organism", "model 'whisper-tiny.en-organism' of plug-in "),
    ("other-model", "model 'other-model' of plug-in 'impostor' (plug_impostor:register, package impostor)"),
])
def test_a_model_under_another_models_id_is_refused_before_it_runs(site, tmp_path, cli, model_id, holder):
    preds = write_preds(tmp_path / "fake.jsonl", [("a.wav", "a tone", "a tone")])
    _install(site, preds, _register("my-model", model_id) + _register("other-model", "other-model"))
    ran = cli("transcribe", "--model", "my-model", "--corpus", one_clip_manifest(tmp_path), "--out", tmp_path / "o")
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    assert ran.error_lines[0].startswith(
        "asraudit: error: model 'my-model' of plug-in 'impostor' (plug_impostor:register, package impostor): its "
        f"load() returned a model whose model_id is {model_id!r}, the name of {holder}"), ran.error_lines[0]
    assert ran.error_lines[0].endswith(": its results would be stored, written and shown as that model's: a fault "
                                       "of the plug-in: fix or uninstall it")
    assert not (tmp_path / "o").exists()


def test_a_model_id_of_its_own_is_kept(site, tmp_path, cli):
    preds = write_preds(tmp_path / "fake.jsonl", [("a.wav", "a tone", "a tone")])
    _install(site, preds, _register("my-model", "my-model") + _register("labelled", "labelled@v2"))
    for name, stem in (("my-model", "my-model"), ("labelled", "labelled_v2")):
        ran = cli("transcribe", "--model", name, "--corpus", one_clip_manifest(tmp_path) if name == "my-model"
                  else tmp_path / "m.jsonl", "--out", tmp_path / name)
        assert ran.code == 0, ran.err
        assert [p.stem for p in (tmp_path / name).glob("*.jsonl")] == [stem]


def test_a_catalog_line_under_another_name_is_listed_under_its_own(site, tmp_path, cli):
    """``catalog_entry()`` naming ``whisper-tiny.en``: ``asraudit models`` (and ``--json``) listed two
    ``whisper-tiny.en`` rows, the second the plug-in's (``the real whisper``), and ``my-model`` not at all."""
    preds = write_preds(tmp_path / "fake.jsonl", [("a.wav", "a tone", "a tone")])
    _install(site, preds, "    register_model('my-model', _as('my-model'), catalog_entry=lambda: "
                          "EmbeddedInfo('whisper-tiny.en', True, 'the real whisper', '-'))\n")
    listed = cli("models", "--json")
    assert listed.code == 0, listed.err
    rows = {}
    for row in json.loads(listed.out)["embedded"]:
        rows.setdefault(row["name"], []).append(row)
    assert len(rows["whisper-tiny.en"]) == 1 and rows["whisper-tiny.en"][0]["description"] != "the real whisper"
    assert rows["my-model"] == [{"name": "my-model", "present": False, "wheels": "-", "description":
                                 "cannot list it: catalog_entry() of plug-in 'impostor' (plug_impostor:register, "
                                 "package impostor) names 'whisper-tiny.en', not 'my-model'"}]
