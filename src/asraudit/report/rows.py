"""The rows of summary.json, typed: what the report, the flags and any reader of an audit may rely on.

Each dataclass here is one object of the published layout (``asraudit
schema`` prints its JSON Schema, generated from these annotations, so the
schema and the writer cannot drift; ``report.schema.from_json`` rebuilds
these rows from a file, so the report reads the same types either way).

One interval, spelled once (layout 2.0): every interval is a ``Bounds``
object ``{"low", "high", "level", "method"}`` (a ``metrics.stats.Interval``
without its estimate) under the key ``<field>_interval`` beside the field it
bounds: ``accept_ref`` / ``accept_ref_interval``, ``rate`` /
``rate_interval``, ``delta`` / ``delta_interval``.  ``method`` says how it was
drawn (``wilson``: a binomial proportion; ``bootstrap``: a percentile
bootstrap over clips or items), ``level`` its coverage.  The interval is
null (or, in a model's row, absent) when its field was not measured; a bound
that could not be estimated (NaN) is null, written so by the one serializer
(``report.summary``).
"""

from __future__ import annotations

import math
import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from asraudit.metrics.stats import Interval

METHODS = ("wilson", "bootstrap")
Method = Literal["wilson", "bootstrap"]

# A field's range in the generated schema (``report.schema``), as the field's metadata: on a number it bounds the
# number, on an interval (``Bounds``) its two bounds.  Every integer of the layout is a count, a rank, a word
# position or a setting, at least 0, unless its field says otherwise (``MechanismCurve.sign``, ``MechanismRow.layer``).
SHARE = {"schema": {"minimum": 0, "maximum": 1}}   # a share of edits, clips or words: accept-ref
NOT_NEGATIVE = {"schema": {"minimum": 0}}          # a WER (above 1 when a model inserts many words)


def finite(x) -> float | None:
    """A float, or None for what is missing or not a number (NaN, infinities)."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


@dataclass
class Bounds:
    """An interval as the layout writes it: its bounds, coverage and method (the estimate is the field beside it)."""

    low: float | None
    high: float | None
    level: float = field(metadata={"schema": {"exclusiveMinimum": 0, "exclusiveMaximum": 1}})
    method: Method


def bounds(iv: Interval | None) -> Bounds | None:
    """The layout's spelling of a ``metrics.stats.Interval`` (None stays None: not measured)."""
    if iv is None:
        return None
    if iv.method not in METHODS:
        raise ValueError(f"interval method {iv.method!r} is not one of the layout's {METHODS}")
    return Bounds(finite(iv.low), finite(iv.high), float(iv.level), iv.method)


@dataclass
class ModelRow:
    """One audited model: what it is, its headline numbers with their intervals, and its flag.

    A number of a stage that did not run (or did not measure this model) is left out of the file."""

    OMIT_NONE: ClassVar[bool] = True

    spec: str
    panel: bool
    can_score: bool
    # always written: null says the speed is unknown (no durations, no audio)
    rtfx: float | None = field(metadata=NOT_NEGATIVE)
    accept_ref: float | None = field(default=None, metadata=SHARE)
    accept_ref_interval: Bounds | None = field(default=None, metadata=SHARE)
    n_ref: int | None = None
    n_eligible: int | None = None
    wer: float | None = field(default=None, metadata=NOT_NEGATIVE)
    wer_interval: Bounds | None = field(default=None, metadata=NOT_NEGATIVE)
    wer_corrected: float | None = field(default=None, metadata=NOT_NEGATIVE)
    wer_corrected_interval: Bounds | None = field(default=None, metadata=NOT_NEGATIVE)
    wer_gained: float | None = None
    wer_gained_interval: Bounds | None = None
    n_echoed: int | None = None
    switch_rate: float | None = None
    switch_rate_interval: Bounds | None = None
    switch_note: str | None = None
    convention_agreement: float | None = None
    convention_agreement_interval: Bounds | None = None
    recovery: float | None = None
    recovery_interval: Bounds | None = None
    recovery_n: int | None = None
    control_recovery: float | None = None
    control_recovery_interval: Bounds | None = None
    lift: float | None = None
    lift_interval: Bounds | None = None
    lift_n: int | None = None
    flagged: bool = False
    flag_reasons: list[str] = field(default_factory=list)


@dataclass
class RateRow:
    """accept-ref over a group of edits: the rate, its Wilson interval and counts."""

    rate: float | None = field(metadata=SHARE)
    rate_interval: Bounds = field(metadata=SHARE)
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
    precision_interval: Bounds
    recall: float | None
    recall_interval: Bounds


@dataclass
class AudioTruthChanges:
    """How the audio check changed the planted truth (calibration only)."""

    words_checked: int
    words_unsaid: int      # words of the spoken text the voice did not say (mispronounced or skipped)
    errors_added: int      # record words the voice did not say, outside any planted error
    planted_dropped: int   # planted insertions whose spoken words the voice did not say


@dataclass
class MiningRow:
    # the calibration-only audio columns are left out when absent (older summaries and plain audits lack them)
    OMIT_NONE: ClassVar[tuple[str, ...]] = ("truth_audio", "truth_audio_changes")

    edits: int                      # edits the whole panel mined
    edits_leave_one_out: int        # more, mined by the panel without one member (scored for that member)
    clips: int
    clips_with_edits: int
    status: dict[str, int]
    by_kind: dict[str, int]
    panel: list[str]
    params: dict[str, Any]
    truth: dict[str, TruthRow] | None = None
    # the same scoring against what the audio contains (calibration with a per-word audio check only)
    truth_audio: dict[str, TruthRow] | None = None
    truth_audio_changes: AudioTruthChanges | None = None


@dataclass
class WerViewRow:
    """One model's WER against the record, the leave-one-out corrected references and the truth, and its ranks."""

    OMIT_NONE: ClassVar[bool] = True

    panel_member: bool
    wer_record: float | None = field(metadata=NOT_NEGATIVE)
    wer_record_interval: Bounds = field(metadata=NOT_NEGATIVE)
    wer_corrected_loo: float | None = field(metadata=NOT_NEGATIVE)  # a member against its leave-one-out panel's
    wer_corrected_loo_interval: Bounds = field(metadata=NOT_NEGATIVE)  # corrections
    record_fallback_clips: int               # member: panel-corrected clips it is scored on uncorrected
    rank_record: int
    rank_corrected_loo: int
    wer_truth: float | None = None           # only with a truth field (what was said)
    wer_truth_interval: Bounds | None = None
    corrected_minus_truth: float | None = None
    corrected_minus_truth_interval: Bounds | None = None
    rank_truth: int | None = None


@dataclass
class WerRankingRow:
    """Three WERs over the clips every ranked model ran, and the ranking (best first) each gives."""

    clips: int
    truth_field: str | None                  # the corpus field holding what was said (None: no truth WER)
    ranking: dict[str, list[str]]            # "record" / "corrected_loo" / "truth" -> models, lowest WER first
    models: dict[str, WerViewRow]


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
    s_interval: Bounds | None
    measurable: bool
    note: str
    arms: dict[str, ArmCount]


@dataclass
class AgreementRow:
    model: str
    group: str
    rate: float | None
    rate_interval: Bounds | None
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
    masked_interval: Bounds
    masked_k: int
    masked_n: int
    control: float | None
    control_interval: Bounds
    control_n: int
    lift_masked: float | None
    lift_masked_interval: Bounds | None
    lift_clean: float | None


@dataclass
class LiftRow:
    model: str
    kind: str                       # "all" or a kind of edit
    side: str                       # r (the reference) or a (the audio rendering)
    mean: float | None
    mean_interval: Bounds
    n: int
    share_positive: float | None


@dataclass
class BatteryRow:
    model: str
    condition: str
    readout: str
    kind: str                       # rate (a share) or value (a mean λ)
    value: float | None
    value_interval: Bounds
    n: int
    delta: float | None
    delta_interval: Bounds | None


@dataclass
class ContrastRow:
    model: str
    readout: str
    contrast: str
    kind: str
    did: float | None
    did_interval: Bounds
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

    OMIT_NONE: ClassVar[tuple[str, ...]] = ("site",)  # summaries written before the site was recorded lack it

    experiment: str
    model: str
    intervention: str
    role: str
    control_of: str | None
    metric: str
    value: float | None
    value_interval: Bounds | None
    n_ref: int | None
    n_eligible: int | None
    changed: int
    clips: int
    wer: float | None
    delta: float | None
    delta_interval: Bounds | None
    delta_n: int | None
    to_ref: int | None
    to_audio: int | None
    direction: str
    layer: int = field(metadata={"schema": {"minimum": None}})  # as the spec gives it: -1 is the last
    action: str
    site: str | None = None   # where the direction lives: "encoder" or "decoder" (older summaries lack it)


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
    """One mined edit as the report's browser shows it.

    ``start_s``/``end_s``: where the disputed span is in the clip (seconds,
    from the audit's forced alignment of the panel's reading; equal for a
    span of no words), or, when they are missing, ``timing_note`` says why;
    ``votes`` of ``n_panel`` panel members made the edit (the review sheet's
    columns)."""

    OMIT_NONE: ClassVar[bool] = True

    edit_id: str
    clip: str
    kind: str
    position: str
    r: str
    a: str
    ref_tokens: list[str]
    span: list[int]
    models: dict[str, EditModelView]
    start_s: float | None = None
    end_s: float | None = None
    timing_note: str | None = None
    votes: int | None = None
    n_panel: int | None = None


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
    language: str = "en"  # ISO 639-1; absent in summaries written before languages other than English


@dataclass
class Provenance:
    OMIT_NONE: ClassVar[bool] = True  # a summary from before the scorer was recorded reads back without one

    asraudit: str
    created: str
    spec_file: str
    spec: dict[str, Any]
    corpus: CorpusInfo
    models: dict[str, ModelIdentity]
    panel: list[str]
    seed: int = field(metadata={"schema": {"maximum": None}})  # the spec's, any whole number of at least 0
    normalizer: str
    bootstrap: int
    python: str
    platform: str
    packages: dict[str, str]
    store: str | None
    runtime_s: float
    notes: list[str]
    sampling: Sampling
    scorer: str | None = None  # how WER counted errors (metrics.scorers); absent in older files: asraudit


def flat_row(row) -> dict[str, Any]:
    """A battery or mechanism row as the flat columns of its Parquet table.

    Parquet has no nested interval, and those tables keep the columns they had
    before layout 2.0: the bounds of ``value`` as ``lo``/``hi``, those of any
    other field ``f`` as ``f_lo``/``f_hi``."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(row):
        value = getattr(row, f.name)
        if f.name.endswith("_interval"):
            stem = f.name[: -len("_interval")]
            prefix = "" if stem == "value" else stem + "_"
            out[prefix + "lo"] = None if value is None else value.low
            out[prefix + "hi"] = None if value is None else value.high
        else:
            out[f.name] = value
    return out
