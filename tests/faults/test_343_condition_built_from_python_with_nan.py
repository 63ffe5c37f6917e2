"""Case 343: a battery condition built from Python (``asraudit.audio.conditions``) with a number that is NaN or
infinite: ``Noise(snr_db=float("nan"))`` (a value read from a DataFrame's empty cell), ``Truncate(t0=nan, t1=1.0)``,
``SpanMask(0.1, nan)``, ``DonorSplice(seconds=nan)``, ``Noise(snr_db=float("inf"))``.

The command line and the battery spec refuse such a number; the classes took it: ``Noise(nan)`` turned every sample
into NaN, ``Noise(inf)`` returned the clean clip under the name ``noise(snr_db=inf)``, ``Truncate(t0=nan)`` kept
the whole clip as if truncated, each without a word; ``Reverb(nan)`` and ``SpanMask`` stopped with ``ValueError:
cannot convert float NaN to integer`` once applied.  Each condition now refuses a number that is not finite when it
is built, in one line naming the condition and the field (an ``InputError``, a ``ValueError`` as before for code
that catches that); finite values build as before (control)."""

from __future__ import annotations

import numpy as np
import pytest

from asraudit.audio.conditions.channel import Codec, Noise, Reverb
from asraudit.audio.conditions.other_audio import DonorSplice
from asraudit.audio.conditions.spans import SpanMask, Truncate
from asraudit.errors import InputError

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("build, message", [
    (lambda: Noise(NAN), "noise condition: snr_db must be a finite number, got nan"),
    (lambda: Noise(INF), "noise condition: snr_db must be a finite number, got inf"),
    (lambda: Noise(np.float32(NAN)), "noise condition: snr_db must be a finite number, got nan"),
    (lambda: Reverb(NAN), "reverb condition: rt60 must be a finite number, got nan"),
    (lambda: Reverb(0.3, drr_db=-INF), "reverb condition: drr_db must be a finite number, got -inf"),
    (lambda: Truncate(NAN, 1.0), "truncate condition: t0 must be a finite number, got nan"),
    (lambda: Truncate(0.1, 1.0, after=INF), "truncate condition: after must be a finite number, got inf"),
    (lambda: SpanMask(0.1, NAN), "mask condition: t1 must be a finite number, got nan"),
    (lambda: SpanMask(0.1, 0.5, pad=NAN), "mask condition: pad must be a finite number, got nan"),
    (lambda: DonorSplice(np.zeros(16000), "d", NAN), "splice condition: seconds must be a finite number, got nan"),
    (lambda: DonorSplice(np.zeros(16000), "d", 0.5, gap=NAN), "splice condition: gap must be a finite number, got nan"),
], ids=["noise-nan", "noise-inf", "noise-np-nan", "reverb-nan", "reverb-drr-inf", "truncate-nan", "truncate-inf",
        "mask-nan", "mask-pad-nan", "splice-nan", "splice-gap-nan"])
def test_a_number_that_is_not_finite_is_refused_when_built(build, message):
    with pytest.raises(InputError) as err:
        build()
    assert str(err.value) == message


def test_control_finite_values_build_and_apply_as_before():
    audio = np.sin(np.arange(16000) / 10).astype(np.float32)
    for condition in (Noise(10.0), Reverb(0.3), Truncate(0.2, 0.4, before=1e308), SpanMask(0.1, 0.5),
                      Codec("mp3", 0.5), DonorSplice(np.zeros(16000), "d", 0.5)):
        assert np.isfinite(condition(audio)).all(), condition
