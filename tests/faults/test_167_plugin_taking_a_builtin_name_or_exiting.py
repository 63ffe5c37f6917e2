"""Case 167: a third-party model plug-in that takes the name of asraudit's own demo model, or that calls
``sys.exit()`` (or raises another ``BaseException`` of its own) while it registers or loads.

Before, the plug-ins were loaded in the installed packages' order, asraudit's own demo plug-in included: one listed
first that registered ``whisper-tiny.en-organism`` was the model that name loaded (the demo's plug-in was the one
refused), and a plug-in's ``SystemExit`` passed case 162's guard (``except Exception``) and ended every command
that looks up a model, ``asraudit models`` included.  Now asraudit's own plug-ins register first, the squatter's
entry is refused in case 162's warning, and ``SystemExit`` is a broken plug-in like any exception; Ctrl-C is not.
"""

from __future__ import annotations

import pytest

from asraudit.models import registry

from conftest import install_plugin, one_clip_manifest

SQUATTER = ("from asraudit.models.registry import register_model, EmbeddedInfo\n"
            "def _load(**kw):\n    raise RuntimeError('the squatter was loaded')\n"
            "def register():\n    register_model('whisper-tiny.en-organism', _load,"
            " catalog_entry=lambda: EmbeddedInfo('whisper-tiny.en-organism', True, 'squatter', '-'))\n")




def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("asraudit: warning:")]


def test_a_plugin_cannot_take_the_demo_models_name(plugin_site, cli):
    install_plugin(plugin_site, "squat", SQUATTER)
    listed = cli("models")
    assert listed.code == 0, listed.err
    organism = [line for line in listed.out.splitlines() if line.startswith("whisper-tiny.en-organism ")]
    assert len(organism) == 1 and "squatter" not in organism[0], listed.out
    warnings = _warnings(listed.err)
    assert len(warnings) == 1, listed.err
    assert warnings[0].startswith("asraudit: warning: plug-in 'squat' (plug_squat:register, package squat) could not "
                                  "register its models (ValueError: model name 'whisper-tiny.en-organism' is "
                                  "already taken by asraudit's own plug-in "), warnings[0]
    assert registry.registered_models()["whisper-tiny.en-organism"].load.__module__ != "plug_squat"


def test_a_direct_registration_cannot_take_the_demo_models_name_first(plugin_site):
    """From Python, before any lookup: the first lookup then refused asraudit's own plug-in instead."""
    with pytest.raises(ValueError, match="'whisper-tiny.en-organism' is already taken by asraudit's own plug-in"):
        registry.register_model("whisper-tiny.en-organism", lambda **kw: None, catalog_entry=lambda: None)
    assert not registry.broken_plugins()


EXITING = {
    "exitatimport": "import sys\nsys.exit('no licence key')\n",
    "exitinregister": "import sys\ndef register():\n    sys.exit(3)\n",
    "baseexception": "class Stop(BaseException):\n    pass\ndef register():\n    raise Stop('own stop')\n",
}


@pytest.mark.parametrize("kind", sorted(EXITING))
def test_a_plugin_that_exits_is_a_broken_plugin(kind, plugin_site, tmp_path, cli):
    install_plugin(plugin_site, kind, EXITING[kind])
    listed = cli("models")
    assert listed.code == 0, listed.err
    assert "whisper-tiny.en-organism" in listed.out and "whisper-tiny.en " in listed.out
    warnings = _warnings(listed.err)
    assert len(warnings) == 1 and f"plug-in '{kind}' (plug_{kind}:register, package {kind}) could not register its " \
        "models (" in warnings[0], listed.err
    said = {"exitatimport": "(SystemExit: no licence key)", "exitinregister": "(SystemExit: 3)",
            "baseexception": "(Stop: own stop)"}[kind]
    assert said in warnings[0]
    missing = cli("transcribe", "--model", "my-model", "--corpus", one_clip_manifest(tmp_path), "--out", tmp_path / "o")
    assert missing.code == 2 and len(missing.error_lines) == 1, missing.err
    assert f"unknown model 'my-model', and plug-in '{kind}'" in missing.error_lines[0]


def test_a_load_that_exits_is_one_line_and_ctrl_c_stays_the_users(plugin_site, tmp_path, cli):
    install_plugin(plugin_site, "exitload", "import sys\nfrom asraudit.models.registry import register_model, EmbeddedInfo\n"
             "def _load(**kw):\n    sys.exit(1)\n"
             "def _layers():\n    raise KeyboardInterrupt\n"
             "def register():\n    register_model('exit-model', _load, layer_counts=_layers,"
             " catalog_entry=lambda: EmbeddedInfo('exit-model', True, 'x', '-'))\n")
    ran = cli("transcribe", "--model", "exit-model", "--corpus", one_clip_manifest(tmp_path), "--out", tmp_path / "o")
    assert ran.code == 2 and ran.error_lines == [
        "asraudit: error: model 'exit-model' of plug-in 'exitload' (plug_exitload:register, package exitload): its "
        "load() raised SystemExit: 1: a fault of the plug-in: fix or uninstall it"], ran.err
    from asraudit.models.layer_counts import layer_counts

    with pytest.raises(KeyboardInterrupt):
        layer_counts("exit-model")
