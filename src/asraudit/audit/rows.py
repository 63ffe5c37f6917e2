"""The rows of summary.json, typed: what the report, the flags and any reader of an audit may rely on.

Each dataclass here is one object of the published layout (``asraudit
schema`` prints its JSON Schema, generated from these annotations, so the
schema and the writer cannot drift).  Intervals are computed as
``metrics.stats.Interval`` and written in the layout's two spellings: a
``[low, high]`` pair beside a value (``accept_ref_ci``) or ``lo``/``hi``
beside it in a table row; NaN is written as null by the one serializer
(``audit.summary``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Optional

from asraudit.metrics.stats import Interval

Pair = tuple[Optional[float], Optional[float]]


def finite(x) -> float | None:
    """A float, or None for what is missing or not a number (NaN, infinities)."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def pair(iv: Interval | None) -> Pair | None:
    """An interval's bounds as the layout's ``[low, high]``."""
    return None if iv is None else (finite(iv.low), finite(iv.high))


@dataclass
class ModelRow:
    """One audited model: what it is, its headline numbers with their intervals, and its flag.

    A number of a stage that did not run (or did not measure this model) is left out of the file."""

    OMIT_NONE: ClassVar[bool] = True

    spec: str
    panel: bool
    can_score: bool
    rtfx: float | None = None
    accept_ref: float | None = None
    accept_ref_ci: Pair | None = None
    n_ref: int | None = None
    n_eligible: int | None = None
    wer: float | None = None
    wer_ci: Pair | None = None
    wer_corrected: float | None = None
    wer_corrected_ci: Pair | None = None
    wer_gained: float | None = None
    wer_gained_ci: Pair | None = None
    n_echoed: int | None = None
    switch_rate: float | None = None
    switch_rate_ci: Pair | None = None
    switch_note: str | None = None
    convention_agreement: float | None = None
    convention_agreement_ci: Pair | None = None
    recovery: float | None = None
    recovery_ci: Pair | None = None
    recovery_n: int | None = None
    control_recovery: float | None = None
    control_recovery_ci: Pair | None = None
    lift: float | None = None
    lift_ci: Pair | None = None
    lift_n: int | None = None
    flagged: bool = False
    flag_reasons: list[str] = field(default_factory=list)


@dataclass
class RateRow:
    """accept-ref over a group of edits: the rate, its Wilson interval and counts."""

    rate: float | None
    lo: float | None
    hi: float | None
    n_ref: int
    n_eligible: int


@dataclass
class GroupBreakdown:
    field: str
    groups: dict[str, dict[str, RateRow]]   # group value -> model -> accept-ref


@dataclass
class TruthRow:
    """Mining scored against planted errors (calibration only)."""

    planted: int
    mined: int
    matched: int
    precision: float | None
    precision_ci: Pair
    recall: float | None
    recall_ci: Pair


@dataclass
class MiningRow:
    edits: int                      # edits the whole panel mined
    edits_leave_one_out: int        # more, mined by the panel without one member (scored for that member)
    clips: int
    clips_with_edits: int
    status: dict[str, int]
    by_kind: dict[str, int]
    panel: list[str]
    params: dict[str, Any]
    truth: dict[str, TruthRow] | None = None


@dataclass
class ArmCount:
    follow: int
    n: int


@dataclass
class SwitchRow:
    model: str
    group: str
    pooled: bool
    s: float | None
    lo: float | None
    hi: float | None
    measurable: bool
    note: str
    arms: dict[str, ArmCount]


@dataclass
class AgreementRow:
    model: str
    group: str
    rate: float | None
    lo: float | None
    hi: float | None
    agree: int
    rendered: int


@dataclass
class ConventionsRow:
    switch: list[SwitchRow]         # the pooled groups (per-family rows are in the Parquet table)
    agreement: list[AgreementRow]


@dataclass
class MaskedRow:
    model: str
    targets: int
    clean: float | None
    masked: float | None
    masked_lo: float | None
    masked_hi: float | None
    masked_k: int
    masked_n: int
    control: float | None
    control_lo: float | None
    control_hi: float | None
    control_n: int
    lift_masked: float | None
    lift_masked_lo: float | None
    lift_masked_hi: float | None
    lift_clean: float | None


@dataclass
class LiftRow:
    model: str
    kind: str                       # "all" or a kind of edit
    side: str                       # r (the reference) or a (the audio rendering)
    mean: float | None
    lo: float | None
    hi: float | None
    n: int
    share_positive: float | None


@dataclass
class BatteryRow:
    model: str
    condition: str
    readout: str
    kind: str                       # rate (a share) or value (a mean λ)
    value: float | None
    lo: float | None
    hi: float | None
    n: int
    delta: float | None
    delta_lo: float | None
    delta_hi: float | None


@dataclass
class ContrastRow:
    model: str
    readout: str
    contrast: str
    kind: str
    did: float | None
    lo: float | None
    hi: float | None
    n: int


@dataclass
class BatteryRowSet:
    name: str
    conditions: list[str]
    rows: list[BatteryRow]
    contrasts: list[ContrastRow]
    notes: list[str]
    edits: int
    targets: int


@dataclass
class MechanismRow:
    """One variant of a white-box experiment: accept-ref on the panel's edits, and the paired change."""

    experiment: str
    model: str
    intervention: str
    role: str
    control_of: str | None
    metric: str
    value: float | None
    lo: float | None
    hi: float | None
    n_ref: int | None
    n_eligible: int | None
    changed: int
    clips: int
    wer: float | None
    delta: float | None
    delta_lo: float | None
    delta_hi: float | None
    delta_n: int | None
    to_ref: int | None
    to_audio: int | None
    direction: str
    layer: int
    action: str


@dataclass
class EditModelView:
    verdict: str
    text: str
    tokens: list[str]
    span: list[int]
    words: str
    raw: str


@dataclass
class EditView:
    """One mined edit as the report's browser shows it."""

    edit_id: str
    clip: str
    kind: str
    position: str
    r: str
    a: str
    ref_tokens: list[str]
    span: list[int]
    models: dict[str, EditModelView]


@dataclass
class MaskedSampling:
    targets_found: int
    targets_used: int
    kind: str


@dataclass
class LiftSampling:
    edits_found: int
    edits_used: int


@dataclass
class Sampling:
    masked: MaskedSampling | None = None
    lift: LiftSampling | None = None


@dataclass
class CalibrationSwitch:
    clips_rewritten: int
    rates: list[SwitchRow]


@dataclass
class ModelIdentity:
    model_id: str
    config_hash: str
    can_score: bool


@dataclass
class CorpusInfo:
    source: str
    clips: int


@dataclass
class Provenance:
    asraudit: str
    created: str
    spec_file: str
    spec: dict[str, Any]
    corpus: CorpusInfo
    models: dict[str, ModelIdentity]
    panel: list[str]
    seed: int
    normalizer: str
    bootstrap: int
    python: str
    platform: str
    packages: dict[str, str]
    store: str | None
    runtime_s: float
    notes: list[str]
    sampling: Sampling
