"""summary.json: built once from an ``AuditResult``, written by one serializer, versioned.

``Summary`` is the whole file as a dataclass; ``asraudit schema`` prints
the JSON Schema generated from its annotations (``audit.schema``).  The
serializer (``to_plain``) is the only place where NaN and infinities become
null (JSON has no NaN, and a reader must not mistake one for a number) and
where tuples become lists; a section of a stage that did not run is left
out of the file.

``Summary`` is also what the report and the terminal tables read: the
published view of an ``AuditResult`` (whose stages also hold what the file
does not carry, such as every mined edit and the transcripts).  A live audit
hands them ``build_summary(result)``; a summary.json file is read back into
the same ``Summary`` by ``audit.schema.from_json`` / ``read_summary``, so a
page rendered from the file is the audit's own page.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from asraudit.audit.rows import (
    BatteryRowSet,
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
    bounds,
    finite,
)
from asraudit.probes.refdis import KINDS

if TYPE_CHECKING:  # only for annotations: results imports this module
    from asraudit.audit.results import AuditResult

SCHEMA_VERSION = "2.0"  # 2.0: every interval a Bounds object under <field>_interval (was *_ci pairs, lo/hi)


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
    conventions: ConventionsRow | None = None
    masked: list[MaskedRow] | None = None
    lift: list[LiftRow] | None = None
    battery: BatteryRowSet | None = None
    mechanism: list[MechanismRow] | None = None
    calibration_switch: CalibrationSwitch | None = None
    sampling: Sampling | None = None
    stage_seconds: dict[str, float] = field(default_factory=dict)
    edits: list[EditView] = field(default_factory=list)
    provenance: Provenance | None = None


def rate_row(a) -> RateRow:
    """An ``AcceptRef`` as a row of the layout."""
    return RateRow(finite(a.rate), bounds(a.interval), a.n_ref, a.n_eligible)


def sampling_of(result: "AuditResult") -> Sampling | None:
    masked = lift = None
    if result.masked is not None:
        m = result.masked
        masked = MaskedSampling(m.targets_found, m.targets_used, m.kind)
    if result.lift is not None:
        lift = LiftSampling(result.lift.edits_found, result.lift.edits_used)
    return Sampling(masked, lift) if masked or lift else None


def _model_row(result: "AuditResult", name: str, info) -> ModelRow:
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


def build_summary(result: "AuditResult") -> Summary:
    """The typed summary of everything the audit has measured so far."""
    models = {}
    if result.transcribe is not None:
        models = {name: _model_row(result, name, info) for name, info in result.transcribe.models.items()}
    s = Summary(SCHEMA_VERSION, result.title, result.subtitle, models, stage_seconds=dict(result.stage_seconds),
                edits=list(result.edits), provenance=result.provenance, sampling=sampling_of(result))
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
            truth=result.calibration.truth if result.calibration is not None else None)
    if result.conventions is not None:
        s.conventions = result.conventions.shown
    if result.masked is not None:
        s.masked = list(result.masked.rows)
    if result.lift is not None:
        s.lift = list(result.lift.rows)
    if result.battery is not None:
        s.battery = result.battery.rows
    if result.mechanism is not None:
        s.mechanism = list(result.mechanism.rows)
    if result.calibration is not None:
        s.calibration_switch = result.calibration.switch
    return s


def to_plain(value):
    """JSON-ready: dataclasses as objects, NaN as null.

    Where a row says so (``OMIT_NONE``), a None field it may lack (one with a
    default: optional in the schema) is left out; a field without a default
    is required by the schema and always written, null included."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        omit = getattr(value, "OMIT_NONE", False)
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)
                if not (omit and getattr(value, f.name) is None and _optional(f))}
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def plain_summary(summary: Summary) -> dict[str, Any]:
    """summary.json's content of a typed ``Summary`` (the sections of stages that did not run left out)."""
    return {k: v for k, v in to_plain(summary).items() if v is not None}


def _optional(f: dataclasses.Field) -> bool:
    return f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING


def summary_json(result: "AuditResult") -> dict[str, Any]:
    return plain_summary(build_summary(result))


def write_json(payload: dict, path: Path) -> Path:
    """Write atomically (a reader never sees half a file)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(to_plain(payload), indent=1, ensure_ascii=False, allow_nan=False) + "\n",
                   encoding="utf-8")
    tmp.replace(path)
    return path


def write_summary(result: "AuditResult", out: Path) -> Path:
    return write_json(summary_json(result), out / "summary.json")
