"""Case 323: ``--batch-size 0`` (or ``-2``) on ``steer learn``, ``steer induce``, ``steer ablate`` and ``patch``.

Case 259 checked the executor options of the model-running commands before anything is read; the mechanism
commands kept theirs for the executor: ``induce``, ``ablate`` and ``patch`` read the corpus and loaded the white-box
model (seconds for tiny.en, minutes to convert a large one) before ``batch size must be at least 1, got 0``, which
named no option, and ``steer learn --batch-size -2`` (learning does not batch) wrote its direction, exit 0, the
option taken without a word.  Now each is refused with the outputs' check, before the corpus is read and the model
loads, as case 259 words it."""

from __future__ import annotations

import pytest

from conftest import mechanism_folder_without_a_model

COMMANDS = {
    "learn": ["steer", "learn", "--negative", "silence", "--layer", "2", "--out", "o.safetensors"],
    "induce": ["steer", "induce", "--direction", "d.safetensors", "--no-progress"],
    "ablate": ["steer", "ablate", "--direction", "d.safetensors", "--no-progress"],
    "patch": ["patch", "--source", "silence", "--no-progress"],
}


@pytest.mark.parametrize("size", ["0", "-2"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_refused_before_the_model_loads(tmp_path, cli, monkeypatch, command, size):
    mechanism_folder_without_a_model(tmp_path, monkeypatch)
    ran = cli(*COMMANDS[command], "--model", "whisper-tiny.en", "--corpus", "m.jsonl", "--batch-size", size)
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: --batch-size must be at least 1, got {size}"])
    assert not (tmp_path / "o.safetensors").exists() and not (tmp_path / "asraudit.sqlite").exists()
