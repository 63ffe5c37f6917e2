"""Case 67: a device or compute type CTranslate2 cannot use is one line naming the model.

``--compute-type int3`` was ``ValueError: Invalid compute type: int3``,
``--device tpu`` ``ValueError: unsupported device tpu`` and ``--device cuda``
on a machine without a CUDA driver ``RuntimeError: CUDA failed with error
CUDA driver version is insufficient``, each as a traceback; in an audit
(``[executor] device``) the same from ``--check``.
"""

from __future__ import annotations

import pytest

from conftest import one_clip_manifest


@pytest.fixture()
def manifest(tmp_path):
    return one_clip_manifest(tmp_path, tone=False, text="nothing")


@pytest.mark.parametrize("option, said", [
    (("--compute-type", "int3"), "device 'cpu' and compute type 'int3': Invalid compute type: int3"),
    (("--device", "tpu"), "device 'tpu' and compute type 'float32': unsupported device tpu"),
])
def test_transcribe_names_the_model_and_the_setting(tmp_path, cli, manifest, option, said):
    ran = cli("transcribe", "--model", "whisper-tiny.en", "--corpus", manifest, "--out", tmp_path / "out",
              "--no-progress", *option)
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: --model whisper-tiny.en: CTranslate2 cannot load the model with {said}"])


def test_audit_check_names_the_entry(tmp_path, cli, manifest):
    spec = tmp_path / "audit.toml"
    spec.write_text('out = "o"\n[corpus]\nmanifest = "m.jsonl"\n[executor]\ndevice = "tpu"\n'
                    '[[model]]\nspec = "whisper-tiny.en"\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {spec}: [[model]] #1 (whisper-tiny.en): CTranslate2 cannot load the model with device "
        "'tpu' and compute type 'float32': unsupported device tpu"])
