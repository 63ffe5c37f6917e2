"""`run_audit(spec)`: the whole audit, from a checked spec to a report.

Order: check everything (``prepare``), then transcribe, mine and score,
conventions, masked recovery, audio lift, the battery and the white-box
experiments, each only if its section is in the spec.  Every model call goes
through one store (``<out>/asraudit.sqlite``), so a killed audit resumes and
a finished one reruns in seconds.  summary.json is rewritten after every
stage, so a stage that fails late (a broken clip in the battery) never loses
what earlier stages found; the error names the stage.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from asraudit.audit.context import AuditContext
from asraudit.audit.spec import AuditSpec
from asraudit.errors import InputError

STORE_NAME = "asraudit.sqlite"


@dataclass(frozen=True)
class AuditResult:
    summary: dict
    out: Path
    summary_path: Path
    report_path: Path
    tables: list[Path]
    seconds: float


def _stages(spec: AuditSpec) -> list[tuple[str, Callable[[AuditContext], None]]]:
    from asraudit.audit import audio_stages, text_stages

    stages = [("transcribe", text_stages.transcribe), ("mine and score", text_stages.mine_and_score)]
    if spec.conventions is not None:
        stages.append(("conventions", text_stages.conventions))
    if spec.masked is not None:
        stages.append(("masked recovery", audio_stages.masked))
    if spec.lift is not None:
        stages.append(("audio lift", audio_stages.lift))
    if spec.battery is not None:
        stages.append(("battery", audio_stages.battery))
    if spec.mechanism:
        stages.append(("mechanism", _mechanism))
    return stages


def _mechanism(ctx: AuditContext) -> None:
    from asraudit.audit.mechanism import parse_mechanism, run_mechanism

    run_mechanism(ctx, parse_mechanism(ctx.spec.mechanism, ctx.spec.source, Path(ctx.spec.source).parent))


def run_audit(spec: AuditSpec, *, progress: bool = True, title: str | None = None,
              extra: Callable[[AuditContext], None] | None = None) -> AuditResult:
    """Run every stage the spec asks for; ``extra`` runs last (calibrate's truth scoring)."""
    from asraudit.audit import outputs
    from asraudit.audit.prepare import prepare
    from asraudit.run.executor import parse_executor
    from asraudit.run.store import ResultStore
    from asraudit.text.normalize import get_normalizer

    started = time.perf_counter()
    if spec.out.exists() and not spec.out.is_dir():
        raise InputError("the audit's out must be a folder", spec.out)
    ready = prepare(spec)
    spec.out.mkdir(parents=True, exist_ok=True)
    ex = spec.executor
    actor_options = {"num_gpus": 1} if str(ex.device).startswith("cuda") else None
    executor = parse_executor(ex.kind, batch_size=ex.batch_size, progress=progress, actor_options=actor_options)
    stages = _stages(spec)
    with ResultStore(spec.out / STORE_NAME) as store:
        ctx = AuditContext(spec=spec, out=spec.out, corpus=ready.corpus, store=store, executor=executor,
                           normalize=get_normalizer(spec.normalizer), panel=list(ready.panel), models=ready.models,
                           identities=ready.identities, progress=progress)
        ctx.summary["title"] = title or spec.name
        ctx.summary["subtitle"] = (f"{len(ready.corpus)} clips of {ready.corpus.source}; "
                                   f"{len(ready.identities)} models; panel {', '.join(ready.panel)}")
        ctx.log(f"audit {spec.name}: {len(ready.corpus)} clips, models {', '.join(ready.identities)}; "
                f"stages: {', '.join(name for name, _ in stages)}")
        for name, stage in stages + ([("extra", extra)] if extra else []):
            t0 = time.perf_counter()
            try:
                stage(ctx)
            except InputError as exc:
                _finish(ctx, outputs, started)
                raise InputError(f"audit stage {name!r} stopped (results so far are in {spec.out}): {exc}") from None
            ctx.summary.setdefault("stage_seconds", {})[name] = round(time.perf_counter() - t0, 1)
            ctx.log(f"stage {name} done in {time.perf_counter() - t0:.1f} s")
            outputs.write_summary(ctx)
        return _finish(ctx, outputs, started)


def _finish(ctx: AuditContext, outputs, started: float) -> AuditResult:
    outputs.flag_models(ctx)
    ctx.summary["edits"] = outputs.report_edits(ctx)
    seconds = time.perf_counter() - started
    ctx.summary["provenance"] = outputs.provenance(ctx, seconds)
    summary_path = outputs.write_summary(ctx)
    tables = outputs.write_tables(ctx)
    report_path = outputs.write_report(ctx)
    return AuditResult(ctx.summary, ctx.out, summary_path, report_path, tables, seconds)
