"""`run_audit(spec)`: the whole audit, from a checked spec to an ``AuditResult`` and its files.

Order: check everything (``prepare``), then transcribe, mine and score,
conventions, masked recovery, audio lift, the battery and the white-box
experiments, each only if its section is in the spec.  Each stage returns
its own result (``audit.results``); the ``AuditResult`` collects them.
Every model call goes through one store (``<out>/asraudit.sqlite``), so a
killed audit resumes and a finished one reruns in seconds.  summary.json is
rewritten after every stage, so a stage that fails late (a broken clip in
the battery) never loses what earlier stages found; the error names the
stage.  A stop in the first stage (transcription) writes nothing: there is
no stage done to write, and the outputs an earlier audit left in ``out``
stay as they were.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Mapping

from asraudit.arguments import flag
from asraudit.audit import audio_stages, outputs, text_stages, translation_stage
from asraudit.audit.context import AuditContext
from asraudit.audit.mechanism import run_mechanism
from asraudit.audit.published import compare_published
from asraudit.audit.published_switch import compare_published_switches
from asraudit.audit.prepare import prepare
from asraudit.audit.results import AuditResult
from asraudit.audit.spec import AuditSpec, as_audit_spec
from asraudit.audit.timing import StageClock
from asraudit.audit.results import write_summary
from asraudit.display_paths import display_model_spec, display_path
from asraudit.errors import InputError, ServiceError
from asraudit.run.executor import parse_executor
from asraudit.run.store import STORE_NAME, ResultStore
from asraudit.text.normalize import get_normalizer


# A stage: (name, the AuditResult field it fills, the function (ctx, result so far) -> its result or None).
Stage = tuple[str, str, Callable[[AuditContext, AuditResult], object]]


def _stages(spec: AuditSpec) -> list[Stage]:
    planner = audio_stages.MaskPlanner()
    stages: list[Stage] = [("transcribe", "transcribe", text_stages.transcribe),
                           ("mine and score", "mining", text_stages.mine_and_score)]
    if spec.conventions is not None:
        stages.append(("conventions", "conventions", text_stages.conventions))
    if spec.masked is not None:
        stages.append(("masked recovery", "masked", lambda ctx, done: audio_stages.masked(ctx, done, planner)))
    if spec.lift is not None:
        stages.append(("audio lift", "lift", audio_stages.lift))
    if spec.battery is not None:
        stages.append(("battery", "battery", lambda ctx, done: audio_stages.battery(ctx, done, planner)))
    if spec.translation is not None:
        stages.append(("translation", "translation", translation_stage.translation))
    if spec.mechanism:
        stages.append(("mechanism", "mechanism",
                       lambda ctx, done: run_mechanism(ctx, ctx.spec.mechanism, done.transcribe.transcripts)))
    return stages


def run_audit(spec: AuditSpec | Mapping[str, Any] | str | Path, *, out: str | Path | None = None,
              progress: bool = True, title: str | None = None,
              extra: Callable[[AuditContext, AuditResult], object] | None = None) -> AuditResult:
    """Run every stage the spec asks for and write summary.json, the tables and report.html under its out folder.

    ``spec`` is a spec file (TOML), a dict of the same shape (paths relative to
    the working directory) or a parsed ``AuditSpec``; ``out`` overrides its
    output folder.  Everything is checked before any model runs.  ``extra``
    runs last and fills ``calibration`` (calibrate's truth)."""
    started = time.perf_counter()
    clock = StageClock()
    # Before any work: a title that is not a str was written into summary.json, which `asraudit report` then
    # refused as not of its layout; an extra that is not a function failed after every model had run.
    if title is not None and not isinstance(title, str):
        raise InputError(f"title is the report's title, a str, got {repr(title)[:60]}")
    if extra is not None and not callable(extra):
        raise InputError(f"extra is a function of (context, result) run as the last stage, got {repr(extra)[:60]}")
    progress = flag(progress, "progress")  # "no" and 0.0 are true or false to Python, not to the caller
    spec = as_audit_spec(spec, out=out)
    if spec.out.exists() and not spec.out.is_dir():
        raise InputError("the audit's out must be a folder", spec.out)
    ready = prepare(spec)
    made = [p for p in (spec.out, *spec.out.parents) if not p.exists()]  # deepest first
    spec.out.mkdir(parents=True, exist_ok=True)
    ex = spec.executor
    actor_options = {"num_gpus": 1} if str(ex.device).startswith("cuda") else None
    executor = parse_executor(ex.kind, batch_size=ex.batch_size, progress=progress, actor_options=actor_options)
    stages = _stages(spec) + ([("extra", "calibration", extra)] if extra else [])
    # One executor session for every stage: under Ray, each model is loaded once for the whole audit.
    with ResultStore(spec.out / STORE_NAME) as store, executor.session():
        ctx = AuditContext(spec=spec, out=spec.out, corpus=ready.corpus, store=store, executor=executor,
                           normalize=get_normalizer(spec.normalizer), panel=list(ready.panel), models=ready.models,
                           identities=ready.identities, progress=progress, score_seconds=ready.score_seconds)
        result = AuditResult(title=title or spec.name,
                             subtitle=(f"{len(ready.corpus)} clips of "
                                       f"{display_model_spec(str(ready.corpus.source), spec.spec_folder, Path.cwd())}; "
                                       f"{len(ready.identities)} models; panel {', '.join(ready.panel)}"),
                             out=spec.out)
        result.timing["prepare"] = clock.stop()
        ctx.log(f"audit {spec.name}: {len(ready.corpus)} clips, models {', '.join(ready.identities)}; "
                f"stages: {', '.join(name for name, _, _ in stages if name != 'extra')}")
        for done, (name, attr, stage) in enumerate(stages):
            t0 = time.perf_counter()
            clock = StageClock()
            try:
                setattr(result, attr, stage(ctx, result))
            except (InputError, ServiceError) as exc:
                if done:
                    _finish(ctx, result, started)
                where = ("nothing was written" if not done and _remove_if_empty(made) else
                         f"results so far are in {display_path(spec.out, Path.cwd())}")
                raise type(exc)(f"audit stage {name!r} stopped ({where}): {exc}") from None
            except KeyboardInterrupt:  # Ctrl-C, SIGTERM: the outputs of the stages done, not the last run's beside them
                if done:
                    _finish(ctx, result, started)
                raise
            result.stage_seconds[name] = round(time.perf_counter() - t0, 1)
            result.timing[name] = clock.stop()
            ctx.log(f"stage {name} done in {time.perf_counter() - t0:.1f} s")
            write_summary(result, spec.out)
        return _finish(ctx, result, started)


def _remove_if_empty(made: list[Path]) -> bool:
    """Remove the folders this run made for ``out`` when no file was written under them (a stop in the first stage
    before anything was stored: a new store that could not be made on a full disk left an empty ``out`` and the
    line "results so far are in out", case 315); True when ``out`` is gone."""
    if not made or any(not p.is_dir() for p in made[0].rglob("*")):
        return False
    try:
        for folder in sorted(made[0].rglob("*"), key=lambda p: len(p.parts), reverse=True):
            folder.rmdir()
        made[0].rmdir()
    except OSError:  # something written there meanwhile: it stays
        return False
    for folder in made[1:]:
        try:
            folder.rmdir()
        except OSError:
            break
    return True


def _finish(ctx: AuditContext, result: AuditResult, started: float) -> AuditResult:
    """Flags, edits, provenance, summary.json, tables and report; then summary.json once more with the
    ``outputs`` stage's own timing (the report renders no timing, so it stays the summary's page)."""
    clock = StageClock()
    result.flags = outputs.flag_models(ctx, result)
    result.edits = outputs.report_edits(ctx, result)
    if ctx.spec.published is not None:
        result.published, notes = compare_published(ctx.spec.published, ctx.panel, ctx.spec.refdis,
                                                    ctx.spec.spec_folder)
        for note in notes:
            ctx.note(note)
        stage = result.conventions
        result.published_switch, notes = compare_published_switches(
            ctx.spec.published.dir, ctx.spec.published.corpus, ctx.spec.conventions,
            stage.rows if stage is not None else (), ctx.spec.spec_folder)
        for note in notes:
            ctx.note(note)
    result.seconds = time.perf_counter() - started
    result.provenance = outputs.provenance(ctx, result, result.seconds)
    result.summary_path = write_summary(result, ctx.out)
    result.tables = outputs.write_tables(ctx.out, result)
    result.report_path = outputs.write_report(ctx.out, result, ctx)
    result.timing["outputs"] = clock.stop()
    write_summary(result, ctx.out)
    return result
