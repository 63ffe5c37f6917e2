"""Case 46: a layer number the model does not have (`steer learn --layer 99` on a 4-layer encoder).

Every mechanism step resolved a layer as ``layer % n_layers``, which wraps
any number onto a layer: ``steer learn --layer 99`` learned its direction at
encoder layer 3 of tiny.en and said so only in its last line; ``patch
--layer 42`` raised a ``ValueError`` traceback when the first variant ran.
Now one function resolves every layer number (0-based, negative from the
last) and refuses one out of range in one line naming the layer and the
model's count.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from asraudit.errors import InputError
from asraudit.models.whitebox.sites import layer_index


def test_layer_numbers_resolve_from_either_end_and_nothing_wraps():
    assert [layer_index(k, 4, "encoder") for k in (0, 3, -1, -4)] == [0, 3, 3, 0]
    for bad in (4, 99, -5):
        with pytest.raises(InputError, match=f"^encoder layer {bad} does not exist \\(the model has 4: 0..3, "
                                             "or -4..-1 counted from the last\\)$"):
            layer_index(bad, 4, "encoder")


def test_steer_learn_at_a_layer_the_model_lacks_is_one_line_and_writes_nothing(tmp_path, monkeypatch, cli):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from asraudit.models import embedded

    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("needs the embedded whisper-tiny.en (the models extra)")
    import soundfile

    monkeypatch.setenv("ASRAUDIT_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(0)
    rows = []
    for i in range(2):
        soundfile.write(tmp_path / f"n{i}.wav", (rng.standard_normal(8000) * 0.1).astype(np.float32), 16000)
        rows.append(json.dumps({"audio_filepath": str(tmp_path / f"n{i}.wav"), "text": "x"}))
    (tmp_path / "c.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "d.safetensors"
    ran = cli("steer", "learn", "--model", "whisper-tiny.en", "--corpus", tmp_path / "c.jsonl", "--negative",
              "silence", "--layer", "99", "--out", out)
    assert ran.code == 2 and not out.exists()
    # checked from the model's files before it loads, the option named (case 324)
    assert ran.error_lines == ["asraudit: error: --layer: whisper-tiny.en encoder layer 99 does not exist (the model "
                               "has 4: 0..3, or -4..-1 counted from the last)"]


def test_the_layer_counts_come_from_a_models_files(tmp_path):
    from asraudit.models.layer_counts import layer_counts

    whisper = tmp_path / "hf-whisper"
    whisper.mkdir()
    (whisper / "config.json").write_text(json.dumps({"model_type": "whisper", "encoder_layers": 6,
                                                     "decoder_layers": 2}), encoding="utf-8")
    assert layer_counts(str(whisper)) == {"encoder": 6, "decoder": 2}
    other = tmp_path / "other-family"  # a family that keeps its counts elsewhere: the stage checks on load
    other.mkdir()
    (other / "config.json").write_text(json.dumps({"audio_config": {"num_hidden_layers": 12}}), encoding="utf-8")
    assert layer_counts(str(other)) is None
    assert layer_counts(str(tmp_path / "missing")) is None


def test_an_audit_sweep_layer_the_model_lacks_is_refused_not_wrapped():
    from types import SimpleNamespace

    from asraudit.audit.mechanism_sweeps import _layers

    spec = SimpleNamespace(name="enc", layer=-1, layers=(0, 2, 9))
    with pytest.raises(InputError, match=r"^\[\[mechanism\]\] 'enc': encoder layer 9 does not exist \(the model has "
                                         r"4: 0\.\.3"):
        _layers(spec, 4)
    assert _layers(SimpleNamespace(name="enc", layer=-1, layers=(0, -2)), 4) == [0, 2, 3]


def test_audit_check_refuses_a_mechanism_layer_the_model_lacks(tmp_path, cli):
    """The mechanism stage runs last: ``--check`` reads the layer counts from the models' files instead."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from asraudit.models import embedded

    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("needs the embedded whisper-tiny.en (the models extra)")
    printed = cli("demo", "--print-spec")
    assert printed.code == 0
    spec = tmp_path / "demo.toml"
    assert "\nlayer = 3\n" in printed.out
    spec.write_text(printed.out.replace("\nlayer = 3\n", "\nlayer = 7\n", 1), encoding="utf-8")
    ran = cli("audit", "--check", spec)
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {spec}: [[mechanism]] #2 ('organism opener (decoder L3, per "
                               "position)'): whisper-tiny.en-organism decoder layer 7 does not exist (the model has "
                               "4: 0..3, or -4..-1 counted from the last)"]
