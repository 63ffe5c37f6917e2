"""Case 162: an installed third-party model plug-in (the ``asraudit.models`` entry-point group) that is broken.

Its module fails to import (an ImportError, a SyntaxError, an exception at import), its register function raises,
it registers a name an embedded model or another plug-in holds, a name that is not a plain label, or its
``catalog_entry()`` raises.  Before, the first lookup of any name loaded the plug-ins without a guard: every
command that looks up a model (``asraudit models``, ``transcribe --model whisper-tiny.en``, ``audit --check``)
stopped with the plug-in's traceback.  Now the broken plug-in is one warning in ``asraudit models``, every other
model works, and a spec no model answers names it in its one error line.
"""

from __future__ import annotations

import pytest

from conftest import install_plugin, one_clip_manifest

PLUGINS = {
    "importerror": "import nonexistent_module_of_a_plugin\n",
    "syntaxerror": "def register(:\n",
    "raiseatimport": "raise RuntimeError('plug-in needs a licence key')\n",
    "registerraises": "def register():\n    raise KeyError('config missing')\n",
    "embeddedname": (
        "from asraudit.models.registry import register_model\n"
        "def register():\n    register_model('whisper-tiny.en', lambda **kw: None, catalog_entry=lambda: None)\n"),
    "badlabel": (
        "from asraudit.models.registry import register_model\n"
        "def register():\n    register_model('hf:my-model', lambda **kw: None, catalog_entry=lambda: None)\n"),
}


@pytest.mark.parametrize("kind", sorted(PLUGINS))
def test_a_broken_plugin_is_one_warning_and_other_models_work(kind, plugin_site, tmp_path, cli):
    install_plugin(plugin_site, kind, PLUGINS[kind])
    listed = cli("models")
    assert listed.code == 0, listed.err
    assert "whisper-tiny.en" in listed.out
    warnings = [line for line in listed.err.splitlines() if line.startswith("asraudit: warning:")]
    assert len(warnings) == 1 and f"plug-in '{kind}' (plug_{kind}:register, package {kind})" in warnings[0]
    assert "Traceback" not in listed.err
    # A spec no model answers names the broken plug-in (it may be the one that would have answered it).
    missing = cli("transcribe", "--model", "my-model", "--corpus", one_clip_manifest(tmp_path), "--out", tmp_path / "o")
    assert missing.code == 2 and len(missing.error_lines) == 1, missing.err
    assert f"unknown model 'my-model', and plug-in '{kind}'" in missing.error_lines[0]


def test_a_healthy_model_transcribes_beside_a_broken_plugin(plugin_site, tmp_path, cli):
    install_plugin(plugin_site, "importerror", PLUGINS["importerror"])
    ran = cli("transcribe", "--model", "whisper-tiny.en", "--corpus", one_clip_manifest(tmp_path), "--out", tmp_path / "o")
    assert ran.code == 0, ran.err
    assert (tmp_path / "o" / "whisper-tiny.en.jsonl").is_file()
    whitebox = cli("transcribe", "--model", "whitebox:my-model", "--corpus", tmp_path / "m.jsonl", "--out", tmp_path / "o")
    assert whitebox.code == 2 and len(whitebox.error_lines) == 1, whitebox.err
    assert "unknown white-box model 'my-model', and plug-in 'importerror' (plug_importerror:register" in whitebox.err


def test_two_plugins_under_one_name_and_a_catalog_entry_that_raises(plugin_site, cli):
    first = ("from asraudit.models.registry import register_model, EmbeddedInfo\n"
             "def register():\n    register_model('shared-name', lambda **kw: None,"
             " catalog_entry=lambda: EmbeddedInfo('shared-name', True, 'first', '-'))\n"
             "    register_model('unlistable', lambda **kw: None, catalog_entry=lambda: 1 / 0)\n")
    second = ("from asraudit.models.registry import register_model\n"
              "def register():\n    register_model('shared-name', lambda **kw: 1, catalog_entry=lambda: None)\n")
    install_plugin(plugin_site, "aaafirst", first)
    install_plugin(plugin_site, "zzzsecond", second)
    listed = cli("models")
    assert listed.code == 0, listed.err
    assert "shared-name" in listed.out and "unlistable" in listed.out
    assert "catalog_entry() of plug-in 'aaafirst'" in listed.out and "ZeroDivisionError" in listed.out
    warnings = [line for line in listed.err.splitlines() if line.startswith("asraudit: warning:")]
    assert len(warnings) == 1, listed.err
    # whichever loaded second is the broken one, and the line names the plug-in holding the name
    assert "model name 'shared-name' is already taken by plug-in" in warnings[0]


FAULTY = ("from asraudit.models.registry import register_model\n"
          "def _load(**kw):\n    raise RuntimeError('weights not downloaded')\n"
          "def _layers():\n    raise OSError('cannot read config')\n"
          "def register():\n    register_model('faulty-model', _load, catalog_entry=lambda: None, load_whitebox=_load,"
          " layer_counts=_layers)\n")


def test_a_registered_model_whose_functions_fail_is_one_line_naming_the_plugin(plugin_site, tmp_path, cli):
    """It registered, but ``catalog_entry()`` returns None (``asraudit models`` stopped with AttributeError) and
    ``load``, ``load_whitebox`` and ``layer_counts`` raise (their tracebacks)."""
    install_plugin(plugin_site, "faulty", FAULTY)
    listed = cli("models")
    assert listed.code == 0, listed.err
    assert ("cannot list it: catalog_entry() of plug-in 'faulty' (plug_faulty:register, package faulty) returned "
            "NoneType, not an EmbeddedInfo") in listed.out
    manifest = one_clip_manifest(tmp_path)
    for spec, what in (("faulty-model", "load"), ("whitebox:faulty-model", "load_whitebox")):
        ran = cli("transcribe", "--model", spec, "--corpus", manifest, "--out", tmp_path / "o")
        assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
        assert (f"model 'faulty-model' of plug-in 'faulty' (plug_faulty:register, package faulty): its {what}() "
                "raised RuntimeError: weights not downloaded: a fault of the plug-in: fix or uninstall it"
                ) in ran.error_lines[0]
    from asraudit.errors import InputError
    from asraudit.models.layer_counts import layer_counts

    with pytest.raises(InputError, match=r"its layer_counts\(\) raised OSError: cannot read config"):
        layer_counts("faulty-model")


def test_a_plugin_load_that_returns_no_model(plugin_site, tmp_path, cli):
    """``load`` returned None: the run stopped with `AttributeError: 'NoneType' object has no attribute 'model_id'`."""
    install_plugin(plugin_site, "nomodel", "from asraudit.models.registry import register_model, EmbeddedInfo\n"
             "def register():\n    register_model('no-model', lambda **kw: None,"
             " catalog_entry=lambda: EmbeddedInfo('no-model', True, 'x', '-'))\n")
    ran = cli("transcribe", "--model", "no-model", "--corpus", one_clip_manifest(tmp_path), "--out", tmp_path / "o")
    assert ran.code == 2 and ran.error_lines == [
        "asraudit: error: model 'no-model' of plug-in 'nomodel' (plug_nomodel:register, package "
        "nomodel): its load() returned NoneType, not a model (it has no model_id and config_hash): a fault of the "
        "plug-in: fix or uninstall it"], ran.err


def test_an_unreadable_entry_points_file_stops_nothing(plugin_site, cli):
    """A package's entry_points.txt with a line importlib.metadata cannot parse: every command that looked up a model
    stopped with `TypeError: Pair.__new__() missing 1 required positional argument: 'value'`."""
    info = plugin_site / "brokenmeta-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: brokenmeta\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[asraudit.models]\nthis line has no equals sign\n", encoding="utf-8")
    listed = cli("models")
    assert listed.code == 0, listed.err
    assert "whisper-tiny.en" in listed.out and "whisper-tiny.en-organism" in listed.out  # the in-tree plug-in still
    warnings = [line for line in listed.err.splitlines() if line.startswith("asraudit: warning:")]
    assert len(warnings) == 1 and "entry_points.txt is malformed" in warnings[0], listed.err
