"""Whether torch can run a model on the device asked for, checked before any weights load.

``--device tpu`` (``[executor] device``) reached ``model.to("tpu")`` and stopped with torch's ``RuntimeError:
Expected one of cpu, cuda, ipu, ...``; ``--device cuda`` with a torch built without CUDA (the CPU wheel) with
``AssertionError: Torch not compiled with CUDA enabled``: tracebacks, after a white-box Whisper's conversion
had run. CTranslate2's own refusal is worded in ``ct2_whisper``.
"""

from __future__ import annotations

from asraudit.errors import InputError


def check_torch_device(device: object) -> None:
    """Refuse a device torch does not know, or one this machine lacks (CUDA, MPS), in one line naming it."""
    import torch

    text = str(device)
    try:
        parsed = torch.device(text)
    except (RuntimeError, TypeError, ValueError):
        raise InputError(f"torch cannot use device {text!r}: not a device torch knows (cpu, cuda, cuda:N, mps, "
                         "xpu, ...)") from None
    if parsed.type == "cuda":
        if not torch.cuda.is_available():
            why = ("this torch is built without CUDA (a CPU-only wheel)" if torch.version.cuda is None
                   else "torch finds no CUDA device or driver")
            raise InputError(f"torch cannot use device {text!r}: {why}: use cpu")
        if parsed.index is not None and parsed.index >= torch.cuda.device_count():
            raise InputError(f"torch cannot use device {text!r}: this machine has {torch.cuda.device_count()} CUDA "
                             f"device(s), cuda:0..cuda:{torch.cuda.device_count() - 1}")
    elif parsed.type == "mps" and not torch.backends.mps.is_available():
        raise InputError(f"torch cannot use device {text!r}: MPS (Apple silicon) is not available here: use cpu")
    elif parsed.type == "meta":  # shapes without values: the weights' copy onto it was NotImplementedError
        raise InputError(f"torch cannot use device {text!r}: a meta tensor holds no values, so no model runs on it: "
                         "use cpu")
    elif parsed.type not in ("cpu", "cuda", "mps"):
        # Every other type torch names (xpu, hpu, ipu, xla, mtia, vulkan, ...) reached model.to() and stopped there
        # with AssertionError ("Torch not compiled with XPU enabled"), RuntimeError or ModuleNotFoundError: a
        # tensor of one value made there says whether this torch and machine have it.
        try:
            torch.zeros(1, device=parsed)
        except Exception as exc:  # noqa: BLE001 - each backend fails in its own way; all mean "not here"
            why = str(exc).strip().splitlines()[0].split(". ")[0] if str(exc).strip() else type(exc).__name__
            raise InputError(f"torch cannot use device {text!r}: {why}: use cpu") from None
