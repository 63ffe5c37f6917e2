"""Case 267: a torch device type torch knows but this torch or machine lacks: ``--device xpu`` (Intel GPUs;
``xpu:0``), ``ipu``, ``hpu``, ``xla``, ``vulkan``; and ``meta``, torch's device of shapes without values
(``transcribe``, ``load_model(..., device=...)``, a spec's ``[executor] device``).

Case 122 checked CUDA and MPS only: each of these passed ``torch.device`` and the load stopped at ``model.to()``
with ``AssertionError: Torch not compiled with XPU enabled``, ``RuntimeError: PyTorch is not linked with support
for ipu devices``, ``ModuleNotFoundError: No module named 'torch.hpu'`` or ``NotImplementedError: Cannot copy out
of meta tensor; no data!``, tracebacks.  Now each is one line before the weights load.
"""

from __future__ import annotations

import pytest

from conftest import one_clip_manifest

torch = pytest.importorskip("torch")


@pytest.mark.skipif(hasattr(torch, "xpu") and torch.xpu.is_available(), reason="this machine has an XPU")
def test_transcribe_on_a_device_this_torch_lacks_is_one_line(tmp_path, wav2vec2, cli):
    ran = cli("transcribe", "--model", wav2vec2, "--device", "xpu", "--corpus", one_clip_manifest(tmp_path),
              "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and len(ran.error_lines) == 1, ran.err
    assert ran.error_lines[0].startswith(f"asraudit: error: --model {wav2vec2}: torch cannot use device 'xpu': ")
    assert ran.error_lines[0].endswith(": use cpu")


@pytest.mark.parametrize("device", ["meta", "ipu", "vulkan"])
def test_load_model_refuses_it_in_one_line(wav2vec2, device):
    from asraudit import InputError, load_model

    with pytest.raises(InputError) as err:
        load_model(str(wav2vec2), device=device)
    assert str(err.value).startswith(f"torch cannot use device {device!r}: ") and str(err.value).endswith(": use cpu")


def test_cpu_loads_as_before(wav2vec2):
    from asraudit import load_model

    assert load_model(str(wav2vec2), device="cpu").model_id == f"hf:{wav2vec2}"
