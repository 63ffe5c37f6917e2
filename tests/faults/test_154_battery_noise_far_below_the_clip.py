"""Case 154: a battery noise condition at an SNR far below 0 dB (``snr_db = -100``, meant as "noise only").

The noise is scaled to the clip's power, so at -100 dB its samples reach 10^5 times the clip's level (85,573 on a
1-s tone; 85 at -40 dB): the spec was read, the battery ran every condition before it, and the model then refused
the noisy audio as integer samples stored as float (``audio[0]'s samples reach 85572.8, far outside [-1, 1]
(integer values stored as float?) ...``), a line naming neither spec nor condition. Now the spec refuses an SNR
below -30 dB when it is read, before anything runs; -30 dB and above (the samples within what models take) run
as before.
"""

from __future__ import annotations

import pytest
from conftest import battery_with_condition

from asraudit.errors import InputError
from asraudit.probes.battery import parse_spec


def _spec(snr):
    return {"condition": [{"name": "original"}, {"name": "x", "type": "noise", "snr_db": snr}]}


@pytest.mark.parametrize("snr", [-100, -40, -30.5])
def test_an_snr_below_minus_30_db_is_refused_when_the_spec_is_read(snr):
    with pytest.raises(InputError) as err:
        parse_spec(_spec(snr), "b.toml")
    assert str(err.value) == (
        f"b.toml: [[condition]] #2 (x): snr_db = {snr} is out of range [-30, 100]: below -30 dB the noise, set "
        "against the clip's power, drives its samples tens of times past [-1, 1] (at -100 dB to 10^5 times the "
        "clip's level), audio the models refuse once the battery reaches it")


@pytest.mark.parametrize("snr", [-30, -5, 0, 10, 100])
def test_an_snr_the_models_can_hear_is_read(snr):
    assert parse_spec(_spec(snr), "b.toml").condition("x").params["snr_db"] == snr


def test_battery_refuses_it_before_any_condition_runs(tmp_path, cli):
    spec, argv = battery_with_condition(tmp_path, 'type = "noise"\nsnr_db = -100\n')
    ran = cli(*argv)
    assert ran.code == 2 and len(ran.error_lines) == 1
    assert ran.error_lines[0].startswith(f"asraudit: error: {spec}: [[condition]] #2 (x): snr_db = -100 is out of "
                                         "range [-30, 100]")
    assert "battery condition original" not in ran.err and not (tmp_path / "out").exists()
