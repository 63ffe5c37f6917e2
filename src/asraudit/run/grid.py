"""The job grid shared by every executor: identities, the plan, one model call, and recording it.

An executor decides *where* models run (this process, Ray actors); what a
job is, which jobs are still to do, how a unit of work calls a model and how
its outcomes reach the store is the same for all of them and lives here, so
the local and Ray executors cannot drift apart in what they store.
"""

from __future__ import annotations

import time
from pathlib import Path
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from asraudit.data.corpus import Clip, samples_digest
from asraudit.errors import InputError
from asraudit.model_clock import model_call
from asraudit.models.base import SAMPLE_RATE, ASRModel
from asraudit.run.progress import Progress
from asraudit.run.spec import ORIGINAL, SCORE, TRANSCRIBE, Condition, ConditionGrid, Job, Task, conditions_for, make_job
from asraudit.run.store import Outcome, ResultStore

ModelSource = ASRModel | Callable[[], ASRModel]

def materialize(source: ModelSource) -> ASRModel:
    """A model, from itself or from a zero-argument factory (e.g. a partial of load_model)."""
    if hasattr(source, "model_id"):
        return source
    with model_call():
        return source()


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


def _check_clip_audio(store: ResultStore, clips: dict[str, Clip]) -> None:
    """Refuse a clip whose id the store already holds for other audio (results are keyed by clip id), and record
    the digests of a known clip whose file changed but whose samples did not."""
    store.record_clip_audio(_clip_audio_changes(store, clips))


def _clip_audio_changes(store: ResultStore, clips: dict[str, Clip]) -> list[tuple[str, str, str]]:
    """The known clips whose file changed but whose samples are the same, as rows to record; an InputError for a
    clip whose samples differ.

    The executors record each clip's digests when they decode it anyway
    (``ChunkAudio.clip_audio``); here only a known clip whose file changed is
    decoded, and accepted when its samples are the same (a file rewritten
    with another header), so a run still decodes each clip once."""
    known = store.clip_audio(clips) if clips else {}
    record = []
    for cid, seen in known.items():
        clip = clips[cid]
        if seen[0] == clip.file_digest:
            continue
        samples = samples_digest(clip.decode())
        if seen[1] != samples:
            raise InputError(
                f"clip {cid!r}: the store {store.path.name} already holds results for a clip of this id made from "
                "other audio; one store holds one corpus's clip ids: use another store (--store) or output folder",
                clip.source, clip.row)
        record.append((cid, clip.file_digest, samples))
    return record


def check_stored_clip_audio(path: Path, clips: Sequence[Clip]) -> None:
    """``_check_clip_audio`` against the store at ``path`` if there is one, writing nothing: for a check made before
    any model runs (an audit's ``prepare``).  Made only when the grid ran, an audit of another corpus into an
    ``out`` holding an earlier audit's outputs was refused in its transcription stage, which, stopping, replaced
    the earlier audit's summary.json, tables and report with the empty ones of the refused run (fault case 279)."""
    if not Path(path).is_file():
        return
    with ResultStore(path) as store:
        _clip_audio_changes(store, {clip.id: clip for clip in clips})


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
    _check_clip_audio(store, {clip.id: clip for clip, m, _, _ in grid if not identities[m].by_clip_id})
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
    with model_call():
        start = time.perf_counter()
        outputs = _call(model, task, audio, params, by_clip_id)
        return outputs, time.perf_counter() - start


def _call(model: ASRModel, task: str, audio, params: Sequence[dict], by_clip_id: bool) -> list:
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
    return outputs


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


def new_summary(store: ResultStore, executor: str, description: str, plan: Plan,
                 identities: Sequence[Identity]) -> RunSummary:
    run_id = store.start_run(executor, description)
    summary = RunSummary(run_id, plan.jobs_total, plan.jobs_done_before, identities=list(identities))
    summary.models = [ModelRunStats(i.model_id, i.config_hash, done) for i, done in zip(identities, plan.done_by_model)]
    return summary


def record(store: ResultStore, summary: RunSummary, unit: Unit, task: str, audio_seconds: Sequence[float],
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


def seconds_of(arrays: Sequence[np.ndarray]) -> list[float]:
    return [len(a) / SAMPLE_RATE for a in arrays]
