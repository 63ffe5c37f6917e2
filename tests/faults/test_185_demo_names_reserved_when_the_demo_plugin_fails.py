"""Case 185: asraudit's own demo plug-in cannot be imported (a missing dependency, a broken install), and a
third-party plug-in registers one of its names (``whisper-tiny.en-organism``).

Case 167 made asraudit's own plug-ins register first, so a squatter was refused because the name was taken; when
the demo plug-in failed to import, nothing had taken it, and the squatter's model was the one
``whisper-tiny.en-organism`` loaded (``asraudit models`` listed it as ``squatter``; the audit specs and the
calibration that name the demo's models ran it).  Now those names are reserved whether or not the demo registers
(``registry.BUILT_IN_NAMES``): the squatter is case 162's warning, and the name is an unknown model that names
both broken plug-ins.  A plug-in's model answering under one of them is refused as case 168's.
"""

from __future__ import annotations

import sys

import pytest

from asraudit.models import registry

from conftest import install_plugin, one_clip_manifest

from test_167_plugin_taking_a_builtin_name_or_exiting import SQUATTER, _warnings


@pytest.fixture()
def demo_broken(monkeypatch, plugin_site):
    """The registry as in a new process whose demo plug-in cannot be imported, with a site folder for plug-ins."""
    monkeypatch.setitem(sys.modules, "asraudit.demo.organism_kinds", None)  # its import fails
    return plugin_site


def test_the_reserved_names_are_the_demos_own():
    from asraudit.demo.organism_kinds import KINDS

    assert sorted(registry.BUILT_IN_NAMES) == sorted(k.model_id for k in KINDS.values())


def test_a_plugin_cannot_take_a_demo_name_the_demo_could_not_register(demo_broken, cli, tmp_path):
    install_plugin(demo_broken, "squat", SQUATTER)
    listed = cli("models")
    assert listed.code == 0, listed.err
    assert not [line for line in listed.out.splitlines() if line.startswith("whisper-tiny.en-organism ")], listed.out
    warnings = _warnings(listed.err)
    assert len(warnings) == 2, listed.err
    assert warnings[1] == (
        "asraudit: warning: plug-in 'squat' (plug_squat:register, package squat) could not register its models "
        "(ValueError: model name 'whisper-tiny.en-organism' is reserved for asraudit's own plug-in "
        "(asraudit.demo.organism_kinds), which could not register it): its models are not listed; every other "
        "model works")
    ran = cli("transcribe", "--model", "whisper-tiny.en-organism", "--corpus", one_clip_manifest(tmp_path),
              "--out", tmp_path / "o", "--no-progress")
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    assert ran.error_lines[0].startswith("asraudit: error: unknown model 'whisper-tiny.en-organism', and plug-in ")
    assert "the squatter was loaded" not in ran.err


def test_a_direct_registration_of_a_demo_name_is_refused_too(demo_broken):
    with pytest.raises(ValueError, match="'whisper-base-organism' is reserved for asraudit's own plug-in"):
        registry.register_model("whisper-base-organism", lambda **kw: None, catalog_entry=lambda: None)
    assert "whisper-base-organism" not in registry.registered_models()


def test_a_plugins_model_answering_as_a_demo_model_is_refused(demo_broken):
    registry.register_model("my-model", lambda **kw: type("M", (), {"model_id": "whisper-tiny.en-gated",
                                                                    "config_hash": "x"})(),
                            catalog_entry=lambda: None)
    registry._third_party.add("my-model")
    with pytest.raises(Exception, match="model_id is 'whisper-tiny.en-gated', the name of a model of asraudit's own "
                                        "plug-in"):
        registry.load_model("my-model")
