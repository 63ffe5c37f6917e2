"""summary.json's rows for the mechanism's sweeps and its by-kind readout.

``MechanismRow`` (``report.rows``) is one variant of one experiment.  The
paper's mechanism is read off *curves* of such variants and off the edit
kinds they move, so those get rows of their own:

* ``MechanismCurve``: one sweep (the ablation's rank k, the number of
  learning pairs, or the encoder layer), each point an intervention with its
  random control of equal norm (rank), both as the paired change in
  accept-ref against the same baseline on the same edits, and their WERs, so
  an effect bought by breaking transcription shows next to it.  The rank
  sweep carries the share of the full effect that k = 1 gives.
* ``MechanismKindRow``: one variant's accept-ref on the edits of one kind
  (insert, delete, substitute) and its paired change: where an activation
  patch or an attention mask moves the behaviour, kind by kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from asraudit.report.rows import Bounds

Sweep = Literal["rank", "pairs", "layer"]
SWEEPS = ("rank", "pairs", "layer")


@dataclass
class CurvePoint:
    """One point of a sweep: the intervention and its random control, each against the experiment's baseline."""

    x: int = field(metadata={"schema": {"minimum": None}})  # k (rank), the number of learning pairs, or the layer
    variant: str                        # the intervention's label in summary["mechanism"]
    delta: float | None                 # paired change in accept-ref vs the baseline (a fraction)
    delta_interval: Bounds | None       # clip bootstrap
    delta_n: int | None                 # edits judged under both
    control_delta: float | None         # the same for the random direction of equal norm (rank)
    control_interval: Bounds | None
    wer: float | None                   # the intervention's WER against the references
    control_wer: float | None
    beats_control: bool                 # the intervention's interval clears zero and the control's, the right way


@dataclass
class MechanismCurve:
    """One sweep of one experiment; ``sign`` says which way an effect goes (-1: ablation lowers accept-ref)."""

    experiment: str
    model: str
    sweep: Sweep
    action: str                         # ablate | induce
    sign: int = field(metadata={"schema": {"minimum": -1, "maximum": 1}})
    baseline_value: float | None        # the baseline's accept-ref on the same clips
    baseline_wer: float | None
    points: list[CurvePoint] = field(default_factory=list)
    k1_share: float | None = None       # rank sweep: delta(k = 1) / delta(largest k); None when undefined


@dataclass
class MechanismKindRow:
    """One variant's accept-ref on one edit kind, and its paired change against the baseline on those edits."""

    experiment: str
    model: str
    variant: str
    role: str
    kind: str                           # insert (the record omits spoken words), delete (it adds unspoken ones),
    # substitute
    value: float | None
    value_interval: Bounds | None       # Wilson
    n_ref: int
    n_eligible: int
    delta: float | None
    delta_interval: Bounds | None       # clip bootstrap
    delta_n: int
    to_ref: int
    to_audio: int
