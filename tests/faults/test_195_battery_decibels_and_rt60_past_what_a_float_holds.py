"""Case 195: battery conditions whose numbers the spec took and the audio arithmetic could not.

The reader checked that ``snr_db``, ``drr_db`` and ``rt60`` were finite numbers (``rt60`` in (0, 20]), but the
conditions raise decibels to powers of ten in float64, and scale a room response's tail by its energy: ``snr_db =
1e300`` and ``drr_db = -1e300`` (past 3,080 dB) were ``OverflowError: (34, 'Numerical result out of range')``
tracebacks, and ``rt60 = 1e-6`` (a tail whose energy is 0.0 in float64) a ``ZeroDivisionError``, each once the
battery reached the condition, after the models had run every condition before it. Past 100 dB the weaker part
is below 16-bit audio's resolution, so such a condition is the original; a room response shorter than a
millisecond is no reverberation. The reader now refuses them, naming the condition and why.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import battery_with_condition

from asraudit.audio.conditions import Noise, Reverb
from asraudit.errors import InputError
from asraudit.probes.battery import parse_spec


def _spec(**condition):
    return {"condition": [{"name": "original"}, {"name": "x", **condition}]}


HEARD = ": above 100 dB the noise is below 16-bit audio's resolution (96 dB), so the condition is the original " \
        "(and past 3,080 dB beyond what a float holds)"
DRR = (": past 100 dB either way the weaker part is below 16-bit audio's resolution (96 dB), and past 3,080 dB "
       "beyond what a float holds")
RT60 = ": rt60 is in seconds; a room response shorter than 0.001 s is no reverberation, and one of 20 s an echo chamber"


@pytest.mark.parametrize("condition, message", [
    ({"type": "noise", "snr_db": 1e300}, "snr_db = 1e+300 is out of range [-30, 100]" + HEARD),
    ({"type": "noise", "snr_db": 5000}, "snr_db = 5000 is out of range [-30, 100]" + HEARD),
    ({"type": "reverb", "rt60": 0.5, "drr_db": -1e300}, "drr_db = -1e+300 is out of range [-100, 100]" + DRR),
    ({"type": "reverb", "rt60": 0.5, "drr_db": -5000}, "drr_db = -5000 is out of range [-100, 100]" + DRR),
    ({"type": "reverb", "rt60": 0.5, "drr_db": 400}, "drr_db = 400 is out of range [-100, 100]" + DRR),
    ({"type": "reverb", "rt60": 1e-6}, "rt60 = 1e-06 is out of range [0.001, 20]" + RT60),
    ({"type": "reverb", "rt60": 1e-300}, "rt60 = 1e-300 is out of range [0.001, 20]" + RT60),
])
def test_a_value_the_condition_cannot_compute_is_refused_when_the_spec_is_read(condition, message):
    with pytest.raises(InputError) as err:
        parse_spec(_spec(**condition), "b.toml")
    assert str(err.value) == f"b.toml: [[condition]] #2 (x): {message}"


def test_the_conditions_did_fail_on_those_values():
    """What the refused values did once the battery reached them (why they are refused, not rescaled)."""
    audio = (0.1 * np.sin(np.arange(16_000) / 16_000 * 2 * np.pi * 220)).astype(np.float32)
    with pytest.raises(OverflowError):
        Noise(1e300)(audio)
    with pytest.raises(OverflowError):
        Reverb(0.5, -1e300)(audio)
    with pytest.raises(ZeroDivisionError):
        Reverb(1e-6)(audio)


@pytest.mark.parametrize("condition", [
    {"type": "noise", "snr_db": 100}, {"type": "noise", "snr_db": -30},
    {"type": "reverb", "rt60": 0.001, "drr_db": 100}, {"type": "reverb", "rt60": 20, "drr_db": -100},
])
def test_values_at_the_bounds_are_read_and_compute(condition):
    cond = parse_spec(_spec(**condition), "b.toml").condition("x")
    audio = (0.1 * np.sin(np.arange(16_000) / 16_000 * 2 * np.pi * 220)).astype(np.float32)
    made = (Noise(**{k: v for k, v in cond.params.items() if k in ("snr_db", "kind", "seed")}) if cond.type == "noise"
            else Reverb(cond.params["rt60"], cond.params["drr_db"], cond.params["seed"]))
    out = made(audio)
    assert out.shape == audio.shape and np.isfinite(out).all()


def test_battery_refuses_it_before_any_condition_runs(tmp_path, cli):
    spec, argv = battery_with_condition(tmp_path, 'type = "reverb"\nrt60 = 1e-6\n')
    ran = cli(*argv)
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {spec}: [[condition]] #2 (x): rt60 = 1e-06 is out "
                                               "of range [0.001, 20]" + RT60])
    assert "battery condition original" not in ran.err and not (tmp_path / "out").exists()
