"""Case 203: `steer induce --alpha` finite but so large that the added vector overflows float32 activations
(`--alpha 1e36`, `1e30`, `-1e25` on a direction of norm 9): case 45 refused `nan` and `inf`, not these.

The run went through: the layers after the steered one overflowed float32, the transcripts were decoded from NaN
('!!!!!!!!...' stored as the steered transcript), and the table reported 100% WER for the intervention and its
random control, as it had for `--alpha inf`, exit 0.  Now the scale is checked against the direction's norm when
the file is read, before the model loads: the added vector's norm may be at most the square root of float32's
largest number (1.84e19; `--alpha 2e18` on the norm-9 direction decodes words), and `SteerAdd` refuses it from
Python.  An audit's `alphas` are checked once its direction is learned, before any variant of the entry runs.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

WIDTH = 384


def _direction(norm: float = 9.0):
    from asraudit.mechanism.steering import Direction

    v = np.random.default_rng(0).standard_normal(WIDTH)
    v *= norm / np.linalg.norm(v)
    return Direction(v, (v / np.linalg.norm(v))[None, :], np.ones(1), 2, {"model": "whitebox:whisper-tiny.en"})


@pytest.mark.parametrize("alpha", ["1e36", "1e30", "-1e25"])
def test_a_scale_past_float32_is_refused_before_the_model_loads(tmp_path, cli, monkeypatch, alpha):
    from conftest import one_clip_manifest

    from asraudit.commands import steer

    monkeypatch.chdir(tmp_path)
    corpus = one_clip_manifest(tmp_path)
    _direction().save("d.safetensors")
    monkeypatch.setattr(steer, "load_whitebox", lambda args: pytest.fail("the model loaded"))
    ran = cli("steer", "induce", "--corpus", corpus, "--direction", "d.safetensors", "--no-progress",
              "--alpha", "1", f"--alpha={alpha}")
    assert ran.code == 2
    a = float(alpha)
    assert ran.error_lines == [
        f"asraudit: error: --alpha {a:g}: alpha {a:g} times the direction's norm 9 adds a vector of norm "
        f"{abs(a) * 9:.3g}, past what float32 activations hold (1.84e+19, the square root of float32's largest "
        "number): the layers after it would overflow and the transcripts be decoded from NaN; give |alpha| at most "
        "2.05e+18"]
    assert not (tmp_path / "asraudit.sqlite").exists()


def test_the_python_api_refuses_it_and_takes_a_scale_below_the_bound():
    from asraudit.models.whitebox.steer_limits import MAX_ADDED_NORM, scale_problem
    from asraudit.models.whitebox.interventions import SteerAdd

    direction = _direction()
    with pytest.raises(ValueError, match="past what float32 activations hold"):
        SteerAdd(direction=direction, alpha=1e36)
    assert scale_problem(2e18, 9.0) is None
    assert SteerAdd(direction=direction, alpha=-2e18).alpha == -2e18
    assert MAX_ADDED_NORM == pytest.approx(float(np.sqrt(np.finfo(np.float32).max)))
