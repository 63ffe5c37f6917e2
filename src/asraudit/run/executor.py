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
from contextlib import contextmanager
from typing import Iterator, Sequence

from asraudit.data.corpus import Clip
from asraudit.errors import InputError
from asraudit.run.chunk_audio import ChunkAudio, replay_seconds
from asraudit.run.grid import (
    ModelSource,
    RunSummary,
    Unit,
    identify,
    materialize,
    new_summary,
    plan_grid,
    record,
    run_unit,
    seconds_of,
)
from asraudit.run.progress import Progress
from asraudit.run.ray_executor import RayExecutor
from asraudit.run.sharing import claim_units, wait_for_others
from asraudit.run.spec import ORIGINAL, ConditionGrid, Task
from asraudit.run.store import ResultStore

__all__ = ["LocalExecutor", "RayExecutor", "parse_executor"]


class LocalExecutor:
    """Runs every model in this process, one unit after another."""

    name = "local"

    def __init__(self, batch_size: int = 8, progress: bool = True):
        self.batch_size = batch_size
        self.progress = progress

    @contextmanager
    def session(self) -> Iterator[None]:
        """Several runs as one (``RayExecutor.session``); here nothing to keep: the caller's models are loaded."""
        yield

    def run(self, store: ResultStore, models: Sequence[ModelSource], clips: Sequence[Clip], task: Task,
            conditions: ConditionGrid = (ORIGINAL,), description: str = "") -> RunSummary:
        started = time.perf_counter()
        loaded = [materialize(m) for m in models]
        identities = [identify(m) for m in loaded]
        plan = plan_grid(store, identities, clips, task, conditions, self.batch_size)
        summary = new_summary(store, self.name, description, plan, identities)
        bar = Progress(plan.jobs_pending, self.progress, f"{task.name} ({len(loaded)} model(s))")

        def run_chunk(units: list[Unit]) -> list[Unit]:
            """Claim and compute the chunk's units; returns the parts another live run holds."""
            mine, theirs = claim_units(store, units)
            audio = ChunkAudio()
            try:
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
                        lengths = seconds_of(arrays)
                    record(store, summary, unit, task.name, lengths, outputs, seconds, bar)
            finally:  # the clips decoded before a failure keep their digests with their results
                store.record_clip_audio(audio.clip_audio)
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


def ray_address(spec: str) -> str | None:
    """The Ray address an executor spec names: None for ``local`` and for ``ray`` (a local Ray instance), else what
    follows ``ray:``; anything else is refused.  ``ray:`` alone started a local instance, as ``ray`` does, where an
    address was meant to follow; an address Ray cannot read is its own refusal, when Ray starts."""
    if spec == "local" or spec == "ray":
        return None
    if not spec.startswith("ray:"):
        raise InputError(f"unknown executor {spec!r}: use local, ray or ray:ADDRESS")
    address = spec[4:]
    if not address.strip():
        raise InputError(f"executor {spec!r} names no Ray address: write ray (a local instance) or ray:ADDRESS "
                         "(ray:auto, ray:HOST:PORT, ray:ray://HOST:10001)")
    if address != address.strip():
        raise InputError(f"executor {spec!r}: the Ray address has spaces around it: write ray:{address.strip()}")
    return address


def parse_executor(spec: str, *, batch_size: int = 8, progress: bool = True, actor_options: dict | None = None):
    """``local``, ``ray`` (local Ray instance) or ``ray:ADDRESS`` (e.g. ``ray:auto``)."""
    address = ray_address(spec)
    if spec == "local":
        return LocalExecutor(batch_size=batch_size, progress=progress)
    return RayExecutor(address, batch_size=batch_size, progress=progress, actor_options=actor_options)
