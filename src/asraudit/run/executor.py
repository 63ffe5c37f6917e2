"""Executors: turn a grid of models x clips x conditions into stored results.

Both executors do the same thing in the same order:

1. ask each model for its identity (model id + config hash) and expand the
   grid into jobs; jobs already in the store are dropped (a rerun is free,
   a killed run resumes where it stopped);
2. walk the clips that still have work in chunks of ``batch_size``; each
   clip's audio is decoded **once** and every condition's audio computed once,
   then every model gets the chunk (decoding is often a large share of the
   cost of a small model, and a grid of ten models would pay it ten times);
3. store each model call's results in one transaction, with its audio and
   compute seconds, so RTFx (audio seconds / compute seconds) is known per
   model and only the call in flight is lost if the run is killed.

Compute seconds are the wall time of the model call alone (not decoding, not
the store), which is what a model's RTFx should measure.

The local executor runs everything in this process.  The Ray executor
(``ray`` extra) loads each model once in its own actor, where its resources
are (a GPU per model, another machine), ships each decoded chunk once
through Ray's object store, and lets the models work in parallel; the driver
alone writes the store, so the rows are the same as a local run's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from asraudit.data.corpus import Clip
from asraudit.errors import InputError
from asraudit.models.base import SAMPLE_RATE, ASRModel
from asraudit.run.chunk_audio import ChunkAudio, replay_seconds
from asraudit.run.progress import Progress
from asraudit.run.sharing import claim_units, wait_for_others
from asraudit.run.spec import ORIGINAL, SCORE, TRANSCRIBE, Condition, ConditionGrid, Job, Task, conditions_for, make_job
from asraudit.run.store import Outcome, ResultStore

ModelSource = ASRModel | Callable[[], ASRModel]


def materialize(source: ModelSource) -> ASRModel:
    """A model, from itself or from a zero-argument factory (e.g. a partial of load_model)."""
    return source if hasattr(source, "model_id") else source()


# --- the plan ------------------------------------------------------------------------


@dataclass(frozen=True)
class Identity:
    model_id: str
    config_hash: str
    can_score: bool
    # Answers by clip id, not audio (a replayed prediction file: ClipKeyedModel).
    by_clip_id: bool = False


def identify(model: ASRModel) -> Identity:
    by_clip_id = callable(getattr(model, "transcribe_clips", None))
    return Identity(model.model_id, model.config_hash, callable(getattr(model, "score", None)) and not by_clip_id,
                    by_clip_id)


@dataclass(frozen=True)
class Unit:
    """One model call: one model, one condition, up to ``batch_size`` clips."""

    model_index: int
    condition: Condition
    clips: tuple[Clip, ...]
    jobs: tuple[Job, ...]


@dataclass
class Plan:
    jobs_total: int
    jobs_done_before: int
    chunks: list[list[Unit]]  # per chunk of clips, the units that need its audio
    done_by_model: list[int] = field(default_factory=list)

    @property
    def jobs_pending(self) -> int:
        return self.jobs_total - self.jobs_done_before


def plan_grid(store: ResultStore, identities: Sequence[Identity], clips: Sequence[Clip], task: Task,
              conditions: ConditionGrid, batch_size: int) -> Plan:
    """Every job of the grid, minus those already stored, grouped for execution."""
    if batch_size < 1:
        raise InputError(f"batch size must be at least 1, got {batch_size}")
    if task.name == SCORE:
        for ident in identities:
            if not ident.can_score:
                raise InputError(f"model {ident.model_id} does not expose likelihoods, so it cannot score texts")
    grid: list[tuple[Clip, int, Condition, Job]] = []
    conds: dict[str, Condition] = {}
    for clip in clips:
        params = task.params_for(clip)
        if params is None:
            continue
        clip_conditions = conditions_for(conditions, clip)
        ids = [c.id for c in clip_conditions]
        if len(set(ids)) != len(ids):
            raise InputError(f"conditions of clip {clip.id!r} have repeated ids: {ids}")
        for cond in clip_conditions:
            conds.setdefault(cond.id, cond)
            for m, ident in enumerate(identities):
                if ident.by_clip_id and cond.id != ORIGINAL.id:
                    continue  # it cannot hear: it only knows what it said on the original audio
                grid.append((clip, m, cond, make_job(ident.model_id, ident.config_hash, clip.id, cond.id,
                                                     task.name, params)))
    done = store.done_keys(job.key for *_, job in grid)
    pending = [g for g in grid if g[3].key not in done]
    # Chunks of clips in corpus order; within a chunk, one unit per (model, condition).
    clip_order: list[str] = list(dict.fromkeys(clip.id for clip, *_ in pending))
    chunk_of = {cid: i // batch_size for i, cid in enumerate(clip_order)}
    n_chunks = (len(clip_order) + batch_size - 1) // batch_size
    grouped: list[dict[tuple[int, str], list[tuple[Clip, Job]]]] = [{} for _ in range(n_chunks)]
    for clip, m, cond, job in pending:
        grouped[chunk_of[clip.id]].setdefault((m, cond.id), []).append((clip, job))
    chunks = [
        [Unit(m, conds[cid], tuple(c for c, _ in items), tuple(j for _, j in items)) for (m, cid), items in sorted(g.items())]
        for g in grouped
    ]
    done_by_model = [0] * len(identities)
    for _, m, _, job in grid:
        done_by_model[m] += job.key in done
    return Plan(len(grid), len(grid) - len(pending), chunks, done_by_model)


# --- one model call, shared by both executors ---------------------------------------------


def run_unit(model: ASRModel, task: str, audio: Sequence[np.ndarray] | Sequence[str], params: Sequence[dict],
             *, by_clip_id: bool = False) -> tuple[list, float]:
    """Call the model on one unit; returns its outputs and the seconds the call took.

    ``audio`` holds clip ids instead of arrays for a model that answers by clip id."""
    start = time.perf_counter()
    if task == TRANSCRIBE:
        if by_clip_id:
            outputs: list[Any] = list(model.transcribe_clips(list(audio)))
        else:
            outputs = list(model.transcribe(list(audio)))
        if len(outputs) != len(audio):
            raise RuntimeError(f"{model.model_id} returned {len(outputs)} transcripts for {len(audio)} clips")
    elif task == SCORE:
        outputs = [list(model.score(a, p["candidates"])) for a, p in zip(audio, params)]
    else:
        raise ValueError(f"unknown task {task!r}")
    return outputs, time.perf_counter() - start


def outcomes_of(task: str, jobs: Sequence[Job], audio_seconds: Sequence[float], outputs: Sequence) -> list[Outcome]:
    if task == TRANSCRIBE:
        return [Outcome(j, s, text=str(o)) for j, s, o in zip(jobs, audio_seconds, outputs)]
    return [Outcome(j, s, scores=tuple(o)) for j, s, o in zip(jobs, audio_seconds, outputs)]


# --- results of a run ----------------------------------------------------------------------------


@dataclass
class ModelRunStats:
    model_id: str
    config_hash: str
    jobs_done_before: int = 0
    jobs_run: int = 0
    jobs_by_others: int = 0  # computed meanwhile by a concurrent run into the same store
    audio_seconds: float = 0.0
    compute_seconds: float = 0.0

    @property
    def rtfx(self) -> float:
        return self.audio_seconds / self.compute_seconds if self.compute_seconds > 0 else float("nan")


@dataclass
class RunSummary:
    run_id: int
    jobs_total: int
    jobs_done_before: int
    jobs_run: int = 0
    jobs_by_others: int = 0
    clips_decoded: int = 0
    decode_seconds: float = 0.0
    wall_seconds: float = 0.0
    models: list[ModelRunStats] = field(default_factory=list)
    identities: list[Identity] = field(default_factory=list)


# --- executors -----------------------------------------------------------------------------------


class LocalExecutor:
    """Runs every model in this process, one unit after another."""

    name = "local"

    def __init__(self, batch_size: int = 8, progress: bool = True):
        self.batch_size = batch_size
        self.progress = progress

    def run(self, store: ResultStore, models: Sequence[ModelSource], clips: Sequence[Clip], task: Task,
            conditions: ConditionGrid = (ORIGINAL,), description: str = "") -> RunSummary:
        started = time.perf_counter()
        loaded = [materialize(m) for m in models]
        identities = [identify(m) for m in loaded]
        plan = plan_grid(store, identities, clips, task, conditions, self.batch_size)
        summary = _new_summary(store, self.name, description, plan, identities)
        bar = Progress(plan.jobs_pending, self.progress, f"{task.name} ({len(loaded)} model(s))")

        def run_chunk(units: list[Unit]) -> list[Unit]:
            """Claim and compute the chunk's units; returns the parts another live run holds."""
            mine, theirs = claim_units(store, units)
            audio = ChunkAudio()
            for unit in mine:
                params = [j.params for j in unit.jobs]
                if identities[unit.model_index].by_clip_id:
                    outputs, _ = run_unit(loaded[unit.model_index], task.name, [c.id for c in unit.clips],
                                          params, by_clip_id=True)
                    # A replay's look-up time is no model's speed: 0 compute seconds keeps its RTFx unknown.
                    lengths, seconds = [replay_seconds(c) for c in unit.clips], 0.0
                else:
                    arrays = [audio.get(c, unit.condition) for c in unit.clips]
                    outputs, seconds = run_unit(loaded[unit.model_index], task.name, arrays, params)
                    lengths = _seconds(arrays)
                _record(store, summary, unit, task.name, lengths, outputs, seconds, bar)
            summary.clips_decoded += audio.clips_decoded
            summary.decode_seconds += audio.decode_seconds
            return theirs

        try:
            deferred: list[Unit] = []
            for units in plan.chunks:
                deferred += run_chunk(units)
            wait_for_others(store, summary, deferred, run_chunk)
        finally:
            bar.close()
            store.release_claims()
        summary.wall_seconds = time.perf_counter() - started
        return summary


def _new_summary(store: ResultStore, executor: str, description: str, plan: Plan,
                 identities: Sequence[Identity]) -> RunSummary:
    run_id = store.start_run(executor, description)
    summary = RunSummary(run_id, plan.jobs_total, plan.jobs_done_before, identities=list(identities))
    summary.models = [ModelRunStats(i.model_id, i.config_hash, done) for i, done in zip(identities, plan.done_by_model)]
    return summary


def _record(store: ResultStore, summary: RunSummary, unit: Unit, task: str, audio_seconds: Sequence[float],
            outputs: Sequence, seconds: float, bar: Progress) -> None:
    ident = summary.identities[unit.model_index]
    store.write_batch(summary.run_id, ident.model_id, ident.config_hash, task,
                      outcomes_of(task, unit.jobs, audio_seconds, outputs), seconds)
    stats = summary.models[unit.model_index]
    stats.jobs_run += len(unit.jobs)
    stats.audio_seconds += sum(audio_seconds)
    stats.compute_seconds += seconds
    summary.jobs_run += len(unit.jobs)
    bar.advance(len(unit.jobs), sum(audio_seconds), seconds)


def _seconds(arrays: Sequence[np.ndarray]) -> list[float]:
    return [len(a) / SAMPLE_RATE for a in arrays]


class _ModelWorker:
    """Holds one model inside a Ray actor (plain class; wrapped with ray.remote on use)."""

    def __init__(self, source: ModelSource):
        self.model = materialize(source)

    def identity(self) -> Identity:
        return identify(self.model)

    def run(self, task: str, params: list[dict], *arrays: np.ndarray) -> tuple[list, float]:
        return run_unit(self.model, task, arrays, params)

    def run_by_clip_id(self, task: str, params: list[dict], clip_ids: list[str]) -> tuple[list, float]:
        outputs, _ = run_unit(self.model, task, clip_ids, params, by_clip_id=True)
        return outputs, 0.0  # a replay's look-up time is no model's speed (see LocalExecutor.run)


class RayExecutor:
    """Runs each model in its own Ray actor; the driver decodes audio and writes the store.

    ``address`` is passed to ``ray.init`` (``None`` starts a local instance,
    ``"auto"`` joins a running cluster).  If Ray is already initialised in
    this process, that instance is used and left running."""

    name = "ray"

    def __init__(self, address: str | None = None, batch_size: int = 8, progress: bool = True,
                 actor_options: dict | None = None, max_units_in_flight: int | None = None):
        self.address = address
        self.batch_size = batch_size
        self.progress = progress
        self.actor_options = dict(actor_options or {})
        self.max_units_in_flight = max_units_in_flight

    def run(self, store: ResultStore, models: Sequence[ModelSource], clips: Sequence[Clip], task: Task,
            conditions: ConditionGrid = (ORIGINAL,), description: str = "") -> RunSummary:
        try:
            import ray
        except ImportError:
            raise InputError("the Ray executor needs Ray: pip install 'asraudit[ray]'") from None
        started_here = not ray.is_initialized()
        if started_here:
            ray.init(address=self.address, include_dashboard=False, log_to_driver=False)
        try:
            return self._run(ray, store, models, clips, task, conditions, description)
        finally:
            if started_here:
                ray.shutdown()

    def _run(self, ray, store, models, clips, task, conditions, description) -> RunSummary:
        started = time.perf_counter()
        # A worker process that dies (killed, out of memory) is restarted once and its call retried, so
        # the run loses only the batch in flight, which is recomputed; every stored batch stays stored.
        options = {"max_restarts": 1, "max_task_retries": 1, **self.actor_options}
        worker_cls = ray.remote(**options)(_ModelWorker)
        actors = [worker_cls.remote(m) for m in models]
        identities = ray.get([a.identity.remote() for a in actors])
        plan = plan_grid(store, identities, clips, task, conditions, self.batch_size)
        summary = _new_summary(store, self.name, description, plan, identities)
        bar = Progress(plan.jobs_pending, self.progress, f"{task.name} ({len(actors)} model(s), ray)")
        limit = max(1, self.max_units_in_flight or 2 * len(actors))
        in_flight: dict[Any, tuple[Unit, list[float]]] = {}

        def drain(keep: int) -> None:
            """Record finished units until at most ``keep`` are in flight."""
            while len(in_flight) > keep:
                ready, _ = ray.wait(list(in_flight), num_returns=1)
                unit, seconds_of_audio = in_flight.pop(ready[0])
                outputs, seconds = ray.get(ready[0])
                _record(store, summary, unit, task.name, seconds_of_audio, outputs, seconds, bar)

        def dispatch(units: list[Unit]) -> list[Unit]:
            """Claim the chunk's units and send this run's part to the actors; returns others' parts."""
            mine, theirs = claim_units(store, units)
            audio = ChunkAudio()
            refs: dict[tuple[str, str], Any] = {}
            for unit in mine:
                actor = actors[unit.model_index]
                params = [j.params for j in unit.jobs]
                if identities[unit.model_index].by_clip_id:
                    drain(limit - 1)
                    ref = actor.run_by_clip_id.remote(task.name, params, [c.id for c in unit.clips])
                    in_flight[ref] = (unit, [replay_seconds(c) for c in unit.clips])
                    continue
                args = []
                for c in unit.clips:
                    key = (c.id, unit.condition.id)
                    if key not in refs:  # shipped to the object store once, shared by every model
                        refs[key] = ray.put(audio.get(c, unit.condition))
                    args.append(refs[key])
                drain(limit - 1)
                ref = actor.run.remote(task.name, params, *args)
                in_flight[ref] = (unit, _seconds([audio.get(c, unit.condition) for c in unit.clips]))
            summary.clips_decoded += audio.clips_decoded
            summary.decode_seconds += audio.decode_seconds
            return theirs

        def dispatch_and_wait(units: list[Unit]) -> list[Unit]:
            theirs = dispatch(units)
            drain(0)
            return theirs

        try:
            deferred: list[Unit] = []
            for units in plan.chunks:
                deferred += dispatch(units)
            drain(0)
            wait_for_others(store, summary, deferred, dispatch_and_wait)
        except BaseException:
            self._keep_finished(ray, store, summary, task, in_flight, bar)
            raise
        finally:
            bar.close()
            store.release_claims()
            for a in actors:
                ray.kill(a)
        summary.wall_seconds = time.perf_counter() - started
        return summary


    @staticmethod
    def _keep_finished(ray, store, summary, task, in_flight, bar) -> None:
        """On failure, still store every unit that had already finished: never lose finished work."""
        if not in_flight:
            return
        ready, _ = ray.wait(list(in_flight), num_returns=len(in_flight), timeout=0)
        for ref in ready:
            unit, seconds_of_audio = in_flight.pop(ref)
            try:
                outputs, seconds = ray.get(ref)
            except Exception:
                continue
            _record(store, summary, unit, task.name, seconds_of_audio, outputs, seconds, bar)


def parse_executor(spec: str, *, batch_size: int = 8, progress: bool = True, actor_options: dict | None = None):
    """``local``, ``ray`` (local Ray instance) or ``ray:ADDRESS`` (e.g. ``ray:auto``)."""
    if spec == "local":
        return LocalExecutor(batch_size=batch_size, progress=progress)
    if spec == "ray" or spec.startswith("ray:"):
        address = (spec[4:] or None) if spec.startswith("ray:") else None
        return RayExecutor(address, batch_size=batch_size, progress=progress, actor_options=actor_options)
    raise InputError(f"unknown executor {spec!r}: use local, ray or ray:ADDRESS")
