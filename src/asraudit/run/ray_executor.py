"""The Ray executor: each model in its own actor, the driver decodes audio and writes the store.

Kept apart from the local executor because it is the only code that talks to
Ray (an optional extra): each model is loaded once where its resources are
(a GPU per model, another machine), every decoded chunk is shipped once
through Ray's object store, and the driver alone writes the store, so the
rows are the same as a local run's.
"""

from __future__ import annotations

import socket
import time
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

import numpy as np

from asraudit.data.corpus import Clip
from asraudit.errors import InputError, ServiceError
from asraudit.model_clock import model_call
from asraudit.run.chunk_audio import ChunkAudio, replay_seconds
from asraudit.run.grid import (
    Identity,
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
from asraudit.run.sharing import claim_units, wait_for_others
from asraudit.run.spec import ORIGINAL, ConditionGrid, Task
from asraudit.run.store import ResultStore
from asraudit.terminal_text import one_line

def _with_driver_threads(runtime_env: dict | None) -> dict:
    """The actors' runtime environment with the driver's ``OMP_NUM_THREADS`` (its core count when unset).

    Ray sets ``OMP_NUM_THREADS=1`` in a worker whose environment does not name it, and that alone changes
    CTranslate2's int8 kernels on some CPUs even with the same ``intra_threads`` (measured on an AVX-512
    machine: "ill-disposed" locally, "old-sposed" with the variable at 1), so a Ray run would write other
    transcripts than a local one.  Handing the workers the value a local run sees keeps the rows equal; a
    value the user put in ``runtime_env`` wins."""
    import os

    env = dict(runtime_env or {})
    variables = dict(env.get("env_vars") or {})
    if "OMP_NUM_THREADS" not in variables:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        variables["OMP_NUM_THREADS"] = os.environ.get("OMP_NUM_THREADS") or str(cores)
    env["env_vars"] = variables
    return env


def _get(ray, refs):
    """``ray.get``, re-raising asraudit's own errors from an actor as themselves.  Bad input met in a model call
    (an ``InputError``) or a model server that failed (a ``ServiceError``) reaches the driver wrapped in a
    ``RayTaskError`` whose text is the actor's whole traceback; the user gets the error's one line, as from a
    local run."""
    try:
        return ray.get(refs)
    except ray.exceptions.RayTaskError as exc:
        cause = getattr(exc, "cause", None)
        if isinstance(cause, (InputError, ServiceError)):
            raise cause from None
        raise


class _ModelWorker:
    """Holds one model inside a Ray actor (plain class; wrapped with ray.remote on use)."""

    def __init__(self, source: ModelSource):
        # A model that cannot load (bad input, a server refusing) is raised from identity(), the driver's first
        # call: an actor that dies in __init__ reaches the driver only as Ray's text of the traceback.
        self.model, self.load_error = None, None
        try:
            self.model = materialize(source)
        except (InputError, ServiceError) as exc:
            self.load_error = exc

    def identity(self) -> Identity:
        if self.load_error is not None:
            raise self.load_error
        return identify(self.model)

    def run(self, task: str, params: list[dict], *arrays: np.ndarray) -> tuple[list, float]:
        return run_unit(self.model, task, arrays, params)

    def run_by_clip_id(self, task: str, params: list[dict], clip_ids: list[str]) -> tuple[list, float]:
        outputs, _ = run_unit(self.model, task, clip_ids, params, by_clip_id=True)
        return outputs, 0.0  # a replay's look-up time is no model's speed (see LocalExecutor.run)


def _refuse_silent_address(address: str | None, where: str) -> None:
    """A ``HOST:PORT`` address where nothing answers (case 333): ``ray.init`` waits for a cluster there without
    end, printing Ray's "Failed to get cluster ID from GCS server" warnings (over 3 minutes seen, then killed),
    where ``ray:auto`` with none running is refused at once.  One TCP connection, given ``CONNECT_SECONDS``, says
    whether anything listens; ``auto`` and ``ray://`` addresses are Ray's to find."""
    host, _, port = (address or "").rpartition(":")
    if not host or not port.isdigit() or "/" in host:
        return
    host = host.strip("[]")  # an IPv6 address written [::1]:6379
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_SECONDS).close()
    except (OSError, OverflowError, ValueError) as exc:
        why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise ServiceError(f"executor {where}: cannot reach the Ray cluster (nothing answers at {host}:{port}: "
                           f"{why}): start the cluster (ray start --head), or name its address") from None


CONNECT_SECONDS = 10


class _Session:
    """What a :meth:`RayExecutor.session` keeps between runs: each model source's actor (keyed by the source
    object, which the session holds so that its id stays its own), and whether the session started Ray."""

    def __init__(self):
        self.actors: dict[int, tuple[ModelSource, Any]] = {}
        self.started_ray = False

    def actor(self, worker_cls, source: ModelSource):
        if id(source) not in self.actors:
            self.actors[id(source)] = (source, worker_cls.remote(source))
        return self.actors[id(source)][1]

    def identities(self, ray, worker_cls, sources, actors) -> tuple[list, list[Identity]]:
        """Each actor's identity; an actor kept from an earlier run that has since died for good (restarted once
        already, or its node gone) is replaced by a new one, which loads the model again."""
        ready, found = [], []
        for source, actor in zip(sources, actors):
            try:
                found.append(_get(ray, actor.identity.remote()))
            except ray.exceptions.RayActorError:
                actor = worker_cls.remote(source)
                self.actors[id(source)] = (source, actor)
                found.append(_get(ray, actor.identity.remote()))
            ready.append(actor)
        return ready, found

    def close(self) -> None:
        try:
            import ray
        except ImportError:
            return
        if not ray.is_initialized():
            return
        for _, actor in self.actors.values():
            ray.kill(actor)
        self.actors.clear()
        if self.started_ray:
            ray.shutdown()


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
        self._session: _Session | None = None

    @contextmanager
    def session(self) -> Iterator[None]:
        """Keep Ray and each model's actor from one ``run`` to the next until the block ends.

        Outside a session every run starts Ray (unless it is running), loads each model in a new actor, and stops
        both when it ends.  An audit's stages are several runs over the same models: in a session each model is
        loaded once for all of them, as the local executor loads it once, not once per stage (a large model on a
        GPU takes a minute to load), and Ray starts once."""
        if self._session is not None:  # nested: the outer session keeps everything
            yield
            return
        self._session = _Session()
        try:
            yield
        finally:
            session, self._session = self._session, None
            session.close()

    def run(self, store: ResultStore, models: Sequence[ModelSource], clips: Sequence[Clip], task: Task,
            conditions: ConditionGrid = (ORIGINAL,), description: str = "") -> RunSummary:
        try:
            import ray
        except ImportError:
            raise InputError("the Ray executor needs Ray: pip install 'asraudit[ray]'") from None
        started_here = not ray.is_initialized()
        if started_here:
            self._connect(ray)
            if self._session is not None:
                self._session.started_ray = True
        try:
            return self._run(ray, store, models, clips, task, conditions, description)
        finally:
            if started_here and self._session is None:
                ray.shutdown()

    def _connect(self, ray) -> None:
        """``ray.init``, its failures as one line: an address Ray cannot read (``ray:nonsense``), a ``ray://``
        address without the client package, or no cluster where one was named (``ray:auto`` with none running) each
        ended the command with Ray's traceback, after the models had loaded.  Nothing has run yet, so nothing is
        lost."""
        where = f"ray:{self.address}" if self.address else "ray"
        _refuse_silent_address(self.address, where)
        try:
            ray.init(address=self.address, include_dashboard=False, log_to_driver=False)
        except ValueError as exc:  # the address's form, or a package the address needs
            raise InputError(f"executor {where}: {one_line(' '.join(str(exc).split()))}") from None
        except (ConnectionError, TimeoutError, RuntimeError) as exc:  # no cluster there, or it did not answer
            raise ServiceError(f"executor {where}: cannot reach the Ray cluster ({type(exc).__name__}: "
                               f"{one_line(' '.join(str(exc).split()))})") from None

    def _run(self, ray, store, models, clips, task, conditions, description) -> RunSummary:
        started = time.perf_counter()
        # A worker process that dies (killed, out of memory) is restarted once and its call retried, so
        # the run loses only the batch in flight, which is recomputed; every stored batch stays stored.
        options = {"max_restarts": 1, "max_task_retries": 1, **self.actor_options}
        options["runtime_env"] = _with_driver_threads(options.get("runtime_env"))
        worker_cls = ray.remote(**options)(_ModelWorker)
        session = self._session
        actors = [session.actor(worker_cls, m) if session else worker_cls.remote(m) for m in models]
        with model_call():  # the actors load their models now: the driver's wait is model time
            if session:
                actors, identities = session.identities(ray, worker_cls, models, actors)
            else:
                identities = _get(ray, [a.identity.remote() for a in actors])
        plan = plan_grid(store, identities, clips, task, conditions, self.batch_size)
        summary = new_summary(store, self.name, description, plan, identities)
        bar = Progress(plan.jobs_pending, self.progress, f"{task.name} ({len(actors)} model(s), ray)")
        limit = max(1, self.max_units_in_flight or 2 * len(actors))
        in_flight: dict[Any, tuple[Unit, list[float]]] = {}

        def drain(keep: int) -> None:
            """Record finished units until at most ``keep`` are in flight."""
            while len(in_flight) > keep:
                with model_call():  # waiting for the actors' model calls
                    ready, _ = ray.wait(list(in_flight), num_returns=1)
                    outputs, seconds = _get(ray, ready[0])
                unit, seconds_of_audio = in_flight.pop(ready[0])
                record(store, summary, unit, task.name, seconds_of_audio, outputs, seconds, bar)

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
                in_flight[ref] = (unit, seconds_of([audio.get(c, unit.condition) for c in unit.clips]))
            store.record_clip_audio(audio.clip_audio)
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
            if session is None:
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
            record(store, summary, unit, task.name, seconds_of_audio, outputs, seconds, bar)
