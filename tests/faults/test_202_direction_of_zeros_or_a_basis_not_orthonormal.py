"""Case 202: a direction file (`steer induce|ablate --direction`) whose numbers are finite but cannot do what the
command says: a vector of zeros (`steer induce`), a basis whose rows are not orthonormal (a probe's raw weights or
the mean difference saved as the basis without dividing by its norm, a basis scaled by 5), built in Python with
`Direction(...)` and saved (its id is then its content's).

The zero vector was added, and its random control, of the same norm, was zero too: the table reported an
intervention and a control that changed 0 of 2 transcripts, exit 0.  The raw basis was "ablated" as
`h - (h . u) u` with |u| = 9.06: the activations along u were multiplied by -81, and the table reported it as the
ablation of the direction (1 of 2 transcripts changed), exit 0.  Now `Direction` refuses a basis that is not
orthonormal (so the file is refused when read, before the model loads), and `steer induce` a zero vector before
the model loads; `SteerAdd` refuses it from Python.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

WIDTH = 384  # whisper-tiny.en's encoder


def _unit(seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(WIDTH)
    return v / np.linalg.norm(v)


def _orthonormal(k: int) -> np.ndarray:
    q, _ = np.linalg.qr(np.random.default_rng(1).standard_normal((WIDTH, k)))
    return q.T


def _save_raw(path, vector, basis):
    """Saved as `Direction.save` writes it, without the constructor (which now refuses the basis)."""
    from asraudit.mechanism.steering import FORMAT, save_tensors

    tensors = {"vector": np.float32(vector), "basis": np.float32(basis), "singular_values": np.ones(len(basis), np.float32)}
    return save_tensors(path, tensors, FORMAT, "", 2, {"model": "whitebox:whisper-tiny.en", "layer": 2})


@pytest.fixture()
def corpus(tmp_path, monkeypatch):
    from conftest import one_clip_manifest

    monkeypatch.chdir(tmp_path)
    return one_clip_manifest(tmp_path)


def test_induce_refuses_a_vector_of_zeros_before_the_model_loads(corpus, cli, monkeypatch):
    from asraudit.commands import steer
    from asraudit.mechanism.steering import Direction

    Direction(np.zeros(WIDTH), _unit()[None, :], np.ones(1), 2).save("zero.safetensors")
    monkeypatch.setattr(steer, "load_whitebox", lambda args: pytest.fail("the model loaded"))
    ran = cli("steer", "induce", "--corpus", corpus, "--direction", "zero.safetensors", "--no-progress")
    assert ran.code == 2
    assert ran.error_lines == [
        "asraudit: error: zero.safetensors: the direction's vector is zero: adding it (and its random control, of "
        "the same norm) changes nothing: the file is damaged or was built by hand; learn it again"]
    assert not (corpus.parent / "asraudit.sqlite").exists()


@pytest.mark.parametrize("basis, norms, deviation", [
    (lambda: 9.06 * _unit()[None, :], "9.06", "81.1"),
    (lambda: 5 * _orthonormal(2), "5, 5", "24"),
], ids=["raw-vector", "scaled"])
@pytest.mark.parametrize("action", ["ablate", "induce"])
def test_a_basis_not_orthonormal_is_refused_when_read(corpus, cli, monkeypatch, action, basis, norms, deviation):
    from asraudit.commands import steer

    _save_raw("d.safetensors", 9.06 * _unit(), basis())
    monkeypatch.setattr(steer, "load_whitebox", lambda args: pytest.fail("the model loaded"))
    ran = cli("steer", action, "--corpus", corpus, "--direction", "d.safetensors", "--no-progress")
    assert ran.code == 2
    assert len(ran.error_lines) == 1
    line = ran.error_lines[0]
    assert line.startswith(f"asraudit: error: d.safetensors: an asraudit direction: its basis is not orthonormal "
                           f"(row norms {norms}; largest deviation of U U^T from the identity ")
    assert line.endswith("), and ablation projects out orthonormal rows: the file is damaged; "
                         "learn it again")
    assert float(line.split("identity ")[1].split(")")[0]) == pytest.approx(float(deviation), rel=0.01)


def test_the_python_api_refuses_them_too():
    from asraudit.mechanism.steering import Direction
    from asraudit.models.whitebox.interventions import SteerAdd

    with pytest.raises(ValueError, match="not orthonormal"):
        Direction(_unit(), 3 * _unit()[None, :], np.ones(1), 2)
    zero = Direction(np.zeros(WIDTH), _unit()[None, :], np.ones(1), 2)
    with pytest.raises(ValueError, match="vector is zero"):
        SteerAdd(direction=zero)


def test_a_learned_and_a_random_direction_pass():
    from asraudit.mechanism.steering import Direction, direction_from_differences

    diffs = np.random.default_rng(3).standard_normal((6, WIDTH))
    learned = Direction(*direction_from_differences(diffs, rank=4), layer=2)
    control = learned.random_control(7)
    assert learned.rank == control.rank == 4
