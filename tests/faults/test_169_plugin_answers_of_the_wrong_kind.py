"""Case 169: a third-party plug-in whose ``layer_counts()``, ``window_seconds()`` or ``hidden_size()`` answers with a
value of the wrong kind.

These answers let ``audit --check`` refuse a ``[[mechanism]]`` layer, time span or ``apply_to`` width before anything
runs (case 162 made a plug-in's raising function one line).  An answer of the wrong kind was used as it came:
``{"encoder": "4", "decoder": 4}`` stopped ``audit --check`` with ``TypeError: bad operand type for unary -: 'str'``,
``{"enc": 4}`` with ``KeyError``, a window of ``"30"`` with a ``TypeError`` from ``round``; a width of ``384.5``
was compared with the other models' widths as it was.  Now each is case 162's one line naming the plug-in; ``None``
("my files do not say") and a right answer pass as before.
"""

from __future__ import annotations

import sys

import pytest

from asraudit.errors import InputError
from asraudit.models import registry
from asraudit.models.layer_counts import hidden_size, layer_counts, window_seconds

from conftest import one_clip_manifest, write_preds

PLUGIN = "plug_answers"


@pytest.fixture()
def install(monkeypatch, tmp_path):
    for name, value in (("_registered", {}), ("_discovered", False), ("_broken", []), ("_owners", {}),
                        ("_third_party", set()), ("_built_in", set())):
        if hasattr(registry, name):
            monkeypatch.setattr(registry, name, value)
    site = tmp_path / "site"
    info = site / "answers-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: answers\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[asraudit.models]\nanswers = {PLUGIN}:register\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    sys.modules.pop(PLUGIN, None)

    def source(value) -> str:
        return "float('nan')" if value != value else repr(value)

    def write(layers, window, width) -> None:
        (site / f"{PLUGIN}.py").write_text(
            "from asraudit.models.registry import register_model, EmbeddedInfo\n"
            "def register():\n    register_model('my-model', lambda **kw: None, load_whitebox=lambda **kw: None,"
            " catalog_entry=lambda: EmbeddedInfo('my-model', True, 'x', '-'),"
            f" layer_counts=lambda: {source(layers)}, window_seconds=lambda: {source(window)},"
            f" hidden_size=lambda: {source(width)})\n",
            encoding="utf-8")

    yield write
    sys.modules.pop(PLUGIN, None)


OWNER = f"model 'my-model' of plug-in 'answers' ({PLUGIN}:register, package answers)"


@pytest.mark.parametrize("layers, said", [
    ({"encoder": "4", "decoder": 4}, "{'encoder': '4', 'decoder': 4} (dict)"),
    ({"enc": 4, "dec": 4}, "{'enc': 4, 'dec': 4} (dict)"),
    ({"encoder": 0, "decoder": 4}, "{'encoder': 0, 'decoder': 4} (dict)"),
    ({"encoder": True, "decoder": 4}, "{'encoder': True, 'decoder': 4} (dict)"),
    ([4, 4], "[4, 4] (list)"),
    (4, "4 (int)"),
])
def test_layer_counts_of_the_wrong_kind_is_one_line(install, layers, said):
    install(layers, 30.0, 384)
    with pytest.raises(InputError) as err:
        layer_counts("my-model")
    assert str(err.value) == (f"{OWNER}: its layer_counts() returned {said}, not None or {{\"encoder\": n, "
                              "\"decoder\": m} of whole numbers of at least 1: a fault of the plug-in: fix or "
                              "uninstall it")


@pytest.mark.parametrize("window, said", [("30", "'30' (str)"), (0, "0 (int)"), (float("nan"), "nan (float)"),
                                          (True, "True (bool)")])
def test_a_window_of_the_wrong_kind_is_one_line(install, window, said):
    install({"encoder": 4, "decoder": 4}, window, 384)
    with pytest.raises(InputError, match=r"its window_seconds\(\) returned " + said.replace("(", r"\(").replace(
            ")", r"\)") + ", not None or a number of seconds above 0: a fault of the plug-in"):
        window_seconds("my-model")


@pytest.mark.parametrize("width, said", [(384.5, "384.5 (float)"), ("384", "'384' (str)"), (-1, "-1 (int)")])
def test_a_width_of_the_wrong_kind_is_one_line(install, width, said):
    install({"encoder": 4, "decoder": 4}, 30.0, width)
    with pytest.raises(InputError, match=r"its hidden_size\(\) returned " + said.replace("(", r"\(").replace(
            ")", r"\)") + ", not None or a whole number of at least 1: a fault of the plug-in"):
        hidden_size("my-model")


def test_none_and_right_answers_pass(install):
    install({"encoder": 4, "decoder": 2, "note": "extra keys are the plug-in's"}, 30, 384)
    assert layer_counts("my-model")["encoder"] == 4
    assert window_seconds("my-model") == 30 and hidden_size("my-model") == 384
    sys.modules.pop(PLUGIN, None)
    registry._discovered, registry._registered = False, {}
    install(None, None, None)
    assert layer_counts("my-model") is None and window_seconds("my-model") is None and hidden_size("my-model") is None


def test_audit_check_names_the_plugin_in_one_line(install, tmp_path, cli):
    install({"encoder": "4", "decoder": 4}, 30.0, 384)
    one_clip_manifest(tmp_path)
    models = ""
    for i in range(3):
        write_preds(tmp_path / f"p{i}.jsonl", [("a.wav", "a tone", "a tone")])
        models += f'[[model]]\npredictions = "p{i}.jsonl"\npanel = true\n'
    spec = tmp_path / "audit.toml"
    spec.write_text(f'out = "ao"\n[corpus]\nmanifest = "m.jsonl"\n{models}[[mechanism]]\ntype = "steer"\n'
                    'model = "my-model"\nlayer = 1\npositive = "all"\nnegative = "silence"\nholdout = 0\n'
                    'ablate = "all"\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {spec}: {OWNER}: its layer_counts() returned {{'encoder': '4', 'decoder': 4}} (dict), not "
        "None or {\"encoder\": n, \"decoder\": m} of whole numbers of at least 1: a fault of the plug-in: fix or "
        "uninstall it"], ran.err
    assert not (tmp_path / "ao").exists()
