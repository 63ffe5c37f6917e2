"""summary.json's layout, ``Summary``, and the one serializer that writes it, versioned.

``Summary`` is the whole file as a dataclass; ``asraudit schema`` prints the
JSON Schema generated from its annotations (``report.schema``).  The
serializer (``to_plain``) is the only place where NaN and infinities become
null (JSON has no NaN, and a reader must not mistake one for a number) and
where tuples become lists; a section of a stage that did not run is left
out of the file.

The layout lives with the report, below the audit: the report and the
terminal tables read a ``Summary``, whether the audit built it from its
typed result (``audit.results.build_summary``) or it was read back from a
file (``report.schema.from_json``), so a page rendered from the file is the
audit's own page, and the report never needs to know how an audit runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from asraudit.data.paths import write_text_whole
from asraudit.plain_json import to_plain  # the serializer lives in a light module; imported from here too
from asraudit.report.calibration_rows import DetectorRow
from asraudit.report.mechanism_rows import MechanismCurve, MechanismKindRow
from asraudit.report.published_rows import PublishedComparison, PublishedSwitchComparison
from asraudit.report.translation_rows import TranslationSection
from asraudit.report.rows import (
    BatteryRowSet,
    CalibrationSwitch,
    ConventionsRow,
    EditView,
    GroupBreakdown,
    LiftRow,
    MaskedRow,
    MechanismRow,
    MiningRow,
    ModelRow,
    NOT_NEGATIVE,
    Provenance,
    RateRow,
    SHARE,
    Sampling,
    WerRankingRow,
)

SCHEMA_VERSION = "2.4"  # 2.4: calibration_accept_ref_by_voice (optional); 2.3: translation, calibration_switch_by_voice, calibration_masked_by_group, mechanism_curves, mechanism_by_kind (optional); 2.2: published_switch (optional); 2.1: timing (per stage, model time vs overhead), wer_ranking, published, the scorer, the
# corpus language and edit times (all optional); 2.0: every interval a Bounds object
# under <field>_interval (was *_ci pairs, lo/hi)
# Earlier layouts a reader still accepts: every minor layout of this major up to this one, since each adds only
# optional keys (derived from SCHEMA_VERSION, so a bump cannot drop the layout it replaces, as 2.4 once dropped 2.3).
_MAJOR, _MINOR = (int(part) for part in SCHEMA_VERSION.split("."))
READABLE_VERSIONS = tuple(f"{_MAJOR}.{minor}" for minor in range(_MINOR + 1))


@dataclass
class StageTiming:
    """Where one audit stage's time went: inside model calls, or the audit's own work (its overhead).

    Model time is loading models, transcribing, scoring, forced alignment and
    learning steering directions; the overhead is everything else (the store,
    planning the grid, decoding and conditioning audio, normalizing, readouts,
    statistics, the report).  CPU seconds are this process's only (models in
    Ray actors are not seen; the driver's wait for them is model wall time).
    Measured, so they differ from run to run."""

    # Durations, at least 0 (``audit.timing`` caps the model time at the wall time): a hand-edited -1 was read
    # back by ``report`` as a time measured (case 330).
    wall_s: float = field(metadata=NOT_NEGATIVE)
    model_s: float = field(metadata=NOT_NEGATIVE)
    overhead_s: float = field(metadata=NOT_NEGATIVE)              # wall_s - model_s
    overhead_share: float | None = field(metadata=SHARE)  # overhead_s / wall_s (None: no measurable time)
    cpu_s: float = field(metadata=NOT_NEGATIVE)
    model_cpu_s: float = field(metadata=NOT_NEGATIVE)


@dataclass
class AuditTiming:
    """Each stage's timing in the order they ran (``prepare`` first: checks and loading the models;
    ``outputs`` last: flags, tables and report, written before this file's last rewrite), and their sum."""

    stages: dict[str, StageTiming]
    total: StageTiming


@dataclass
class Summary:
    """The whole of summary.json (``schema_version`` says which layout a file has)."""

    schema_version: str
    title: str
    subtitle: str
    models: dict[str, ModelRow]
    accept_ref_by_kind: dict[str, dict[str, RateRow]] = field(default_factory=dict)   # model -> kind -> rate
    accept_ref_by_group: GroupBreakdown | None = None
    mining: MiningRow | None = None
    wer_ranking: WerRankingRow | None = None
    conventions: ConventionsRow | None = None
    masked: list[MaskedRow] | None = None
    lift: list[LiftRow] | None = None
    battery: BatteryRowSet | None = None
    mechanism: list[MechanismRow] | None = None
    translation: TranslationSection | None = None   # the translation probe ([translation] in the spec)
    mechanism_curves: list[MechanismCurve] | None = None     # sweeps: rank k, learning pairs, layer
    mechanism_by_kind: list[MechanismKindRow] | None = None  # patching and masking, edit kind by edit kind
    calibration_switch: CalibrationSwitch | None = None
    # calibration only: switch rate against references whose arm the voice decides (the switching organism's cue)
    calibration_switch_by_voice: CalibrationSwitch | None = None
    # calibration only: masked recovery per value of the corpus group field (benchmark vs fresh voices)
    calibration_masked_by_group: dict[str, list[MaskedRow]] | None = None
    # calibration only: accept-ref per voice (the voice gate read voice by voice; the corpus field "speaker")
    calibration_accept_ref_by_voice: GroupBreakdown | None = None
    detectors: list[DetectorRow] | None = None   # calibration only: one row per detector, its target, pass/fail
    sampling: Sampling | None = None
    stage_seconds: dict[str, float] = field(default_factory=dict, metadata=NOT_NEGATIVE)  # each stage's wall time
    timing: AuditTiming | None = None
    edits: list[EditView] = field(default_factory=list)
    provenance: Provenance | None = None
    published: list[PublishedComparison] | None = None  # the paper's matching sets ([published] in the spec)
    published_switch: list[PublishedSwitchComparison] | None = None  # the paper's switch groups ([published])


def plain_summary(summary: Summary) -> dict[str, Any]:
    """summary.json's content of a typed ``Summary`` (the sections of stages that did not run left out)."""
    return {k: v for k, v in to_plain(summary).items() if v is not None}


def write_json(payload: dict, path: Path) -> Path:
    """Write atomically (a reader never sees half a file)."""
    write_text_whole(path, json.dumps(to_plain(payload), indent=1, ensure_ascii=False, allow_nan=False) + "\n")
    return path
