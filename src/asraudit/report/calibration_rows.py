"""The calibration report's rows: one per detector, with its positive control and its target.

A detector without a positive control cannot be told apart from a blind one:
a silent readout on every model might mean "nothing to find" or "cannot
see".  Each row names the model organism the detector is proven on, reads it
out next to the clean models (with intervals), states issue 17's target and
says whether the readout meets it.  A failed target is reported as failed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from asraudit.report.rows import Bounds

# pass / fail: the target was checked; not run: the readout is missing from the calibration
# (the stage or the experiment was not run); no target: measured, but the issue sets no threshold.
Status = Literal["pass", "fail", "not run", "no target"]
STATUSES = ("pass", "fail", "not run", "no target")


@dataclass
class Readout:
    """One model's number for a detector: its value (a share, or WER, or points), interval and counts."""

    model: str
    label: str                 # what the number is, e.g. "benchmark voices", "record WER"
    value: float | None
    interval: Bounds | None
    count: str = ""            # e.g. "114/159"; empty when the number is not a count


@dataclass
class DetectorRow:
    detector: str              # accept-ref, masked recovery, switch rate, ...
    organism: str | None       # the model the detector is proven on (None: none is named)
    readout: str               # what is read out, in words
    organism_readouts: list[Readout]
    clean_readouts: list[Readout]
    target: str                # issue 17's target, in words
    status: Status
    reason: str                # the comparison that decided the status
