"""What each audit stage returns, and the ``AuditResult`` that holds them.

A stage reads the context (spec, corpus, store, models) and the results of
the stages before it, and returns one dataclass; nothing is passed through
a shared dict.  The flags are computed from these results
(``audit.outputs.flag_models``); summary.json, the report and the terminal
tables read its typed published view, built here (``build_summary``; the
layout itself is ``report.summary.Summary``); the calibration's extra stage
returns a result too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from asraudit.metrics.stats import Interval
from asraudit.probes.lift_run import EditItem
from asraudit.probes.refdis import KINDS, MinerParams
from asraudit.probes.refdis_probe import RefdisResult
from asraudit.probes.wer_ranking import WerRanking
from asraudit.report.mechanism_rows import MechanismCurve, MechanismKindRow
from asraudit.report.rows import (
    BatteryRowSet,
    AudioTruthChanges,
    CalibrationSwitch,
    ConventionsRow,
    EditView,
    GroupBreakdown,
    LiftRow,
    LiftSampling,
    MaskedRow,
    MaskedSampling,
    MechanismRow,
    MiningRow,
    ModelRow,
    Provenance,
    RateRow,
    Sampling,
    SwitchRow,
    TruthRow,
    WerRankingRow,
    WerViewRow,
    bounds,
    finite,
)
from asraudit.audit.timing import audit_timing
from asraudit.report.published_rows import PublishedComparison, PublishedSwitchComparison
from asraudit.report.translation_rows import TranslationSection
from asraudit.report.summary import SCHEMA_VERSION, StageTiming, Summary, plain_summary, write_json


@dataclass(frozen=True)
class ModelInfo:
    spec: str
    panel: bool
    can_score: bool
    rtfx: float | None


@dataclass(frozen=True)
class TranscribeStage:
    models: dict[str, ModelInfo]
    transcripts: dict[str, dict[str, str]]     # model -> clip -> raw transcript, read once from the store
    missing: dict[str, int]                    # model -> clips without a transcript


@dataclass(frozen=True)
class MiningStage:
    refdis: RefdisResult
    params: MinerParams
    panel: tuple[str, ...]
    group_field: str | None
    edit_items: list[EditItem]                 # the whole panel's edits, for lift and the battery
    said: dict[str, str]                       # clip -> what was said (said_field, else the corrected reference)
    tables: dict[str, list[dict]]
    ranking: WerRanking                        # record / leave-one-out corrected / truth WER, and the rankings
    truth_field: str | None                    # the corpus field the truth WER read (None: no truth WER)


@dataclass(frozen=True)
class ModelConventions:
    switch: Interval | None                    # best-measured group's switch rate (None: not measurable)
    note: str
    agreement: Interval | None


@dataclass(frozen=True)
class ConventionsStage:
    shown: ConventionsRow
    per_model: dict[str, ModelConventions]
    table: list[dict]
    rows: tuple[SwitchRow, ...] = ()   # every group's rows, pooled and per family (published switch groups)


@dataclass(frozen=True)
class ModelRecovery:
    recovery: Interval
    n: int
    control: Interval


@dataclass(frozen=True)
class MaskedStage:
    rows: list[MaskedRow]
    per_model: dict[str, ModelRecovery]
    targets_found: int
    targets_used: int
    kind: str
    table: list[dict]


@dataclass(frozen=True)
class LiftStage:
    rows: list[LiftRow]
    per_model: dict[str, tuple[Interval, int]]  # model -> λ(r) over all edits, n
    edits_found: int
    edits_used: int
    table: list[dict]


@dataclass(frozen=True)
class BatteryStage:
    rows: BatteryRowSet


@dataclass(frozen=True)
class TranslationStage:
    section: TranslationSection
    table: list[dict]                          # one row per model and span (probes.translation_probe.SpanOutcome)


@dataclass(frozen=True)
class MechanismStage:
    rows: list[MechanismRow]
    table: list[dict]
    curves: list[MechanismCurve] = field(default_factory=list)
    by_kind: list[MechanismKindRow] = field(default_factory=list)


@dataclass(frozen=True)
class CalibrationStage:
    """The calibration's extra stage: mining against the planted truth, and the mixed-arm switch rate."""

    truth: dict[str, TruthRow]
    switch: CalibrationSwitch
    truth_audio: dict[str, TruthRow] | None = None     # against what the audio contains (demo/audio_truth)
    truth_audio_changes: AudioTruthChanges | None = None
    masked_by_group: dict[str, list[MaskedRow]] | None = None   # group value -> masked recovery per model
    switch_by_voice: CalibrationSwitch | None = None            # against the voice-cue references (demo.mixed_arm)
    accept_ref_by_voice: GroupBreakdown | None = None           # accept-ref per voice (the gate, voice by voice)


@dataclass(frozen=True)
class Flag:
    reasons: list[str]

    @property
    def flagged(self) -> bool:
        return bool(self.reasons)


@dataclass
class AuditResult:
    """Every stage's result, with the audit's provenance, flags, timings and the files it wrote."""

    title: str
    subtitle: str
    transcribe: TranscribeStage | None = None
    mining: MiningStage | None = None
    conventions: ConventionsStage | None = None
    masked: MaskedStage | None = None
    lift: LiftStage | None = None
    battery: BatteryStage | None = None
    translation: TranslationStage | None = None
    mechanism: MechanismStage | None = None
    calibration: CalibrationStage | None = None
    flags: dict[str, Flag] = field(default_factory=dict)
    edits: list[EditView] = field(default_factory=list)
    provenance: Provenance | None = None
    published: list[PublishedComparison] | None = None  # the paper's sets that match the audit ([published])
    published_switch: list[PublishedSwitchComparison] | None = None  # the paper's switch groups, compared
    stage_seconds: dict[str, float] = field(default_factory=dict)
    timing: dict[str, StageTiming] = field(default_factory=dict)  # stage -> model time vs overhead (audit.timing)
    out: Path | None = None
    summary_path: Path | None = None
    report_path: Path | None = None
    tables: list[Path] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def summary(self) -> dict[str, Any]:
        """summary.json's content (the published layout; see ``asraudit schema``)."""
        return summary_json(self)


# ------------------------------------------------------------------ the published view (summary.json)


def rate_row(a) -> RateRow:
    """An ``AcceptRef`` as a row of the layout."""
    return RateRow(finite(a.rate), bounds(a.interval), a.n_ref, a.n_eligible)


def wer_ranking_row(ranking: WerRanking, truth_field: str | None) -> WerRankingRow:
    """The three-WER ranking as a row of the layout (the corrected scheme is leave-one-out for members)."""
    rows = {}
    for name, w in ranking.models.items():
        row = WerViewRow(
            panel_member=w.panel_member,
            wer_record=finite(w.record.estimate), wer_record_interval=bounds(w.record),
            wer_corrected_loo=finite(w.corrected.estimate), wer_corrected_loo_interval=bounds(w.corrected),
            record_fallback_clips=w.record_fallback_clips,
            rank_record=ranking.rank_of(name, "record"), rank_corrected_loo=ranking.rank_of(name, "corrected"))
        if w.truth is not None:
            row.wer_truth, row.wer_truth_interval = finite(w.truth.estimate), bounds(w.truth)
            row.corrected_minus_truth = finite(w.corrected_minus_truth.estimate)
            row.corrected_minus_truth_interval = bounds(w.corrected_minus_truth)
            row.rank_truth = ranking.rank_of(name, "truth")
        rows[name] = row
    order = {("corrected_loo" if k == "corrected" else k): list(v) for k, v in ranking.ranking.items()}
    return WerRankingRow(ranking.clips, truth_field, order, rows)


def sampling_of(result: AuditResult) -> Sampling | None:
    masked = lift = None
    if result.masked is not None:
        m = result.masked
        masked = MaskedSampling(m.targets_found, m.targets_used, m.kind)
    if result.lift is not None:
        lift = LiftSampling(result.lift.edits_found, result.lift.edits_used)
    return Sampling(masked, lift) if masked or lift else None


def _model_row(result: AuditResult, name: str, info) -> ModelRow:
    row = ModelRow(spec=info.spec, panel=info.panel, can_score=info.can_score, rtfx=finite(info.rtfx))
    if result.mining is not None and name in result.mining.refdis.accept_ref:
        a, c = result.mining.refdis.accept_ref[name], result.mining.refdis.cost[name]
        row.accept_ref, row.accept_ref_interval = finite(a.rate), bounds(a.interval)
        row.n_ref, row.n_eligible = a.n_ref, a.n_eligible
        row.wer, row.wer_interval = finite(c.original.estimate), bounds(c.original)
        row.wer_corrected, row.wer_corrected_interval = finite(c.corrected.estimate), bounds(c.corrected)
        row.wer_gained, row.wer_gained_interval = finite(c.gained.estimate), bounds(c.gained)
        row.n_echoed = c.n_echoed
    if result.conventions is not None and name in result.conventions.per_model:
        conv = result.conventions.per_model[name]
        if conv.switch is not None:
            row.switch_rate, row.switch_rate_interval = finite(conv.switch.estimate), bounds(conv.switch)
        row.switch_note = conv.note
        if conv.agreement is not None:
            row.convention_agreement = finite(conv.agreement.estimate)
            row.convention_agreement_interval = bounds(conv.agreement)
    if result.masked is not None and name in result.masked.per_model:
        rec = result.masked.per_model[name]
        row.recovery, row.recovery_interval, row.recovery_n = finite(rec.recovery.estimate), bounds(rec.recovery), rec.n
        row.control_recovery, row.control_recovery_interval = finite(rec.control.estimate), bounds(rec.control)
    if result.lift is not None and name in result.lift.per_model:
        lift, n = result.lift.per_model[name]
        row.lift, row.lift_interval, row.lift_n = finite(lift.estimate), bounds(lift), n
    flag = result.flags.get(name)
    if flag is not None:
        row.flagged, row.flag_reasons = flag.flagged, list(flag.reasons)
    return row


def build_summary(result: AuditResult) -> Summary:
    """The typed summary of everything the audit has measured so far."""
    models = {}
    if result.transcribe is not None:
        models = {name: _model_row(result, name, info) for name, info in result.transcribe.models.items()}
    s = Summary(SCHEMA_VERSION, result.title, result.subtitle, models, stage_seconds=dict(result.stage_seconds),
                edits=list(result.edits), provenance=result.provenance, sampling=sampling_of(result),
                published=result.published, published_switch=result.published_switch, timing=audit_timing(result.timing) if result.timing else None)
    if result.mining is not None:
        m = result.mining
        r = m.refdis
        s.accept_ref_by_kind = {name: {k: rate_row(r.by_kind[k][name]) for k in KINDS} for name in r.scored}
        if m.group_field:
            s.accept_ref_by_group = GroupBreakdown(m.group_field, {
                g: {name: rate_row(per[name]) for name in r.scored} for g, per in r.by_group.items()})
        full = r.mining.full_panel_edits()
        p = m.params
        s.mining = MiningRow(
            edits=len(full), edits_leave_one_out=len(r.mining.edits) - len(full), clips=r.mining.n_clips,
            clips_with_edits=len({e.clip_id for e in full}), status=dict(r.mining.status),
            by_kind={k: sum(1 for e in full if e.kind == k) for k in KINDS}, panel=list(m.panel),
            params={"majority": p.majority, "min_panel": p.min_panel, "min_ref_match": p.min_ref_match,
                    "min_consensus_cer": p.min_consensus_cer, "leave_one_out": p.leave_one_out},
            truth=result.calibration.truth if result.calibration is not None else None,
            truth_audio=result.calibration.truth_audio if result.calibration is not None else None,
            truth_audio_changes=result.calibration.truth_audio_changes if result.calibration is not None else None)
        s.wer_ranking = wer_ranking_row(m.ranking, m.truth_field)
    if result.conventions is not None:
        s.conventions = result.conventions.shown
    if result.masked is not None:
        s.masked = list(result.masked.rows)
    if result.lift is not None:
        s.lift = list(result.lift.rows)
    if result.battery is not None:
        s.battery = result.battery.rows
    if result.translation is not None:
        s.translation = result.translation.section
    if result.mechanism is not None:
        s.mechanism = list(result.mechanism.rows)
        s.mechanism_curves = list(result.mechanism.curves) or None
        s.mechanism_by_kind = list(result.mechanism.by_kind) or None
    if result.calibration is not None:
        s.calibration_switch = result.calibration.switch
        s.calibration_switch_by_voice = result.calibration.switch_by_voice
        s.calibration_masked_by_group = result.calibration.masked_by_group
        s.calibration_accept_ref_by_voice = result.calibration.accept_ref_by_voice
    return s


def summary_json(result: AuditResult) -> dict[str, Any]:
    return plain_summary(build_summary(result))


def write_summary(result: AuditResult, out: Path) -> Path:
    return write_json(summary_json(result), out / "summary.json")
