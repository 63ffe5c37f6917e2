"""Case 45: a steering scale given as ``nan`` or ``inf`` (`steer induce --alpha nan`).

argparse's ``float`` takes both: every variant then ran with a NaN (or
infinite) residual stream, and the table printed 100% WER for the
intervention and its random control as if it had measured something.  Now
the scale is checked before anything loads: one line, exit 2.
"""

from __future__ import annotations

import pytest

from asraudit.cli import main


@pytest.mark.parametrize("alpha", ["nan", "inf", "-inf", "NaN"])
def test_a_scale_that_is_not_finite_is_refused_before_anything_runs(tmp_path, monkeypatch, capsys, alpha):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        main(["steer", "induce", "--model", "whisper-tiny.en", "--corpus", "c.jsonl", "--direction", "d.safetensors",
              "--alpha", "1.0", f"--alpha={alpha}"])  # = : argparse reads a bare -inf as an option
    assert stopped.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(
        f"error: argument --alpha: must be a finite number, got {alpha}")
    assert list(tmp_path.iterdir()) == []
