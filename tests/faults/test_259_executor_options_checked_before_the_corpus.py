"""Case 259: ``--batch-size 0`` (or a negative one) and ``--executor bogus`` on a model-running command
(``transcribe``, ``score``, ``lift``, ``mask``, ``battery``, ``translate``).

Both were refused only when the executor was built: after the corpus was read (a Hugging Face dataset: minutes),
every model loaded, and the result store created in ``--out`` (an empty ``out/asraudit.sqlite`` left behind),
``asraudit: error: batch size must be at least 1, got 0``.  Now they are checked with the outputs, before
anything is read or written."""

from __future__ import annotations

import pytest

from tests.faults.conftest import one_clip_manifest


@pytest.mark.parametrize("option, said", [
    (["--batch-size", "0"], "--batch-size must be at least 1, got 0"),
    (["--batch-size", "-3"], "--batch-size must be at least 1, got -3"),
    (["--executor", "bogus"], "unknown executor 'bogus': use local, ray or ray:ADDRESS"),
])
@pytest.mark.parametrize("command", ["transcribe", "mask"])
def test_executor_options_are_refused_before_the_corpus_and_the_models(cli, tmp_path, option, said, command):
    one_clip_manifest(tmp_path)
    # the corpus does not exist and the model cannot load: reaching either would be a different line
    ran = cli(command, "--model", "whisper-nonexistent-model", "--corpus", tmp_path / "missing.jsonl", "--out",
              tmp_path / "o", *option, "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {said}"])
    assert not (tmp_path / "o").exists()
