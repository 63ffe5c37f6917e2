"""Case 324: ``--layer 99`` (or ``-99``) on ``steer learn``, ``steer induce``, ``steer ablate`` and ``patch`` with a
model whose files say how many layers it has (an embedded Whisper: 4 encoder and 4 decoder layers in tiny.en).

The layer was checked against the loaded model: the corpus was read and the white-box model built (7 s for
tiny.en, minutes to convert a large Whisper) before ``encoder layer 99 does not exist``, which named no option,
while an audit's ``[[mechanism]]`` layer is checked from the model's files before anything runs
(``models.layer_counts``).  Now the commands check it from the files too, before the corpus is read."""

from __future__ import annotations

import pytest

from conftest import mechanism_folder_without_a_model

COMMANDS = {
    "learn": (["steer", "learn", "--negative", "silence", "--out", "o.safetensors"], "encoder"),
    "induce": (["steer", "induce", "--direction", "d.safetensors", "--no-progress"], "encoder"),
    "ablate": (["steer", "ablate", "--direction", "d.safetensors", "--no-progress"], "encoder"),
    "patch": (["patch", "--source", "silence", "--no-progress"], "encoder"),
    "patch-decoder": (["patch", "--source", "silence", "--site", "decoder", "--no-progress"], "decoder"),
}


@pytest.mark.parametrize("layer", ["99", "-5"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_refused_from_the_model_files(tmp_path, cli, monkeypatch, command, layer):
    mechanism_folder_without_a_model(tmp_path, monkeypatch)
    args, stack = COMMANDS[command]
    ran = cli(*args, "--model", "whisper-tiny.en", "--corpus", "m.jsonl", "--layer", layer)
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: --layer: whisper-tiny.en {stack} layer {layer} does not exist (the model has 4: 0..3, or "
        "-4..-1 counted from the last)"])
    assert not (tmp_path / "o.safetensors").exists() and not (tmp_path / "asraudit.sqlite").exists()


def test_control_a_layer_the_model_has_reaches_the_load(tmp_path, cli, monkeypatch):
    mechanism_folder_without_a_model(tmp_path, monkeypatch)
    with pytest.raises(AssertionError, match="the model loaded"):
        cli("steer", "induce", "--direction", "d.safetensors", "--no-progress", "--model", "whisper-tiny.en",
            "--corpus", "m.jsonl", "--layer", "-4")
