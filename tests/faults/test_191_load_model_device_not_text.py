"""Case 191: ``load_model(..., device=0)`` (torch's habit of a device number) or a ``compute_type`` that is not a
string, from Python: CTranslate2's constructor raised ``TypeError: __init__(): incompatible constructor
arguments``, a traceback.  Now an ``InputError`` saying what the argument is."""

from __future__ import annotations

import pytest

from asraudit import InputError, load_model


@pytest.mark.parametrize("device", [0, None, ["cpu"]])
def test_a_device_that_is_not_a_string(device):
    with pytest.raises(InputError) as caught:
        load_model("whisper-tiny.en", device=device)
    assert str(caught.value) == f"device is a str ('cpu', 'cuda', 'cuda:1'), got {device!r}"


def test_a_compute_type_that_is_not_a_string():
    with pytest.raises(InputError) as caught:
        load_model("whisper-tiny.en", compute_type=32)
    assert str(caught.value) == "compute_type is a str ('float32', 'int8', 'bfloat16') or None, got 32"


def test_strings_still_load():
    assert load_model("whisper-tiny.en", device="cpu", compute_type="float32").model_id == "whisper-tiny.en"
