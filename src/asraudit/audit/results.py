"""What each audit stage returns, and the ``AuditResult`` that holds them.

A stage reads the context (spec, corpus, store, models) and the results of
the stages before it, and returns one dataclass; nothing is passed through
a shared dict.  The flags are computed from these results
(``audit.outputs.flag_models``); summary.json, the report and the terminal
tables read their typed published view (``audit.summary.build_summary``);
the calibration's extra stage returns one too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from asraudit.audit.rows import (
    BatteryRowSet,
    CalibrationSwitch,
    ConventionsRow,
    EditView,
    LiftRow,
    MaskedRow,
    MechanismRow,
    Provenance,
    TruthRow,
)
from asraudit.audit.summary import summary_json
from asraudit.metrics.stats import Interval
from asraudit.probes.lift_run import EditItem
from asraudit.probes.refdis import MinerParams
from asraudit.probes.refdis_probe import RefdisResult


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
class MechanismStage:
    rows: list[MechanismRow]
    table: list[dict]


@dataclass(frozen=True)
class CalibrationStage:
    """The calibration's extra stage: mining against the planted truth, and the mixed-arm switch rate."""

    truth: dict[str, TruthRow]
    switch: CalibrationSwitch


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
    mechanism: MechanismStage | None = None
    calibration: CalibrationStage | None = None
    flags: dict[str, Flag] = field(default_factory=dict)
    edits: list[EditView] = field(default_factory=list)
    provenance: Provenance | None = None
    stage_seconds: dict[str, float] = field(default_factory=dict)
    out: Path | None = None
    summary_path: Path | None = None
    report_path: Path | None = None
    tables: list[Path] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def summary(self) -> dict[str, Any]:
        """summary.json's content (the published layout; see ``asraudit schema``)."""
        return summary_json(self)
