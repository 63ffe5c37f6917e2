"""Jobs: what one model call on one clip is, and its stable key.

A job is (model id + config hash, clip id, condition id, task, task params).
Its key is a SHA-256 of those fields in canonical JSON, so the same job
gets the same key in every process, on every machine, in every run: that is
what makes a rerun free and a killed run resumable.  The key covers the
model's *configuration* hash, not just its name, because a result computed
with beam size 1 must never be reused for beam size 5.

What the grid needs from a condition (audio -> audio with a stable id, see
``asraudit.audio.conditions``) and a task (what to ask the model, with
per-clip parameters) is declared here too, so that the executor can expand
models x clips x conditions into jobs without knowing what any particular
condition or task does.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from asraudit.audio.conditions import Original
from asraudit.data.corpus import Clip

# Part of every key: bump it if the meaning of a stored result changes, so
# old rows are recomputed instead of silently reused.
JOB_KEY_VERSION = 1

TRANSCRIBE = "transcribe"
SCORE = "score"
TASKS = (TRANSCRIBE, SCORE)


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace: one text per value."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


@dataclass(frozen=True)
class Job:
    """One model call's worth of work on one clip (under one condition)."""

    model_id: str
    config_hash: str
    clip_id: str
    condition_id: str
    task: str
    params_json: str = "{}"

    @property
    def params(self) -> dict[str, Any]:
        return json.loads(self.params_json)

    @cached_property  # a grid asks for each key several times; the hash is computed once
    def key(self) -> str:
        payload = canonical_json(
            [JOB_KEY_VERSION, self.model_id, self.config_hash, self.clip_id, self.condition_id, self.task, self.params_json]
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def make_job(model_id: str, config_hash: str, clip_id: str, condition_id: str, task: str,
             params: Mapping[str, Any] | None = None) -> Job:
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; known: {TASKS}")
    return Job(model_id, config_hash, clip_id, condition_id, task, canonical_json(dict(params or {})))


# --- conditions ---------------------------------------------------------------------


@runtime_checkable
class Condition(Protocol):
    """What the grid needs from a condition (see ``asraudit.audio.conditions``):
    a pure function of the audio with an ``id`` that names it and every
    parameter.  It must not modify its input in place, since one decoded
    array is shared by every condition of a clip."""

    @property
    def id(self) -> str: ...

    def __call__(self, audio: np.ndarray) -> np.ndarray: ...


ORIGINAL = Original()

# Either one list applied to every clip, or per clip (a span mask belongs to
# the clip whose word it hides): clip id -> its conditions.
ConditionGrid = Sequence[Condition] | Mapping[str, Sequence[Condition]]


def conditions_for(grid: ConditionGrid, clip: Clip) -> Sequence[Condition]:
    if isinstance(grid, Mapping):
        return grid.get(clip.id, ())
    return grid


# --- tasks -------------------------------------------------------------------------


class Task(Protocol):
    """What to ask each model on each clip.  ``params_for`` returns the job's
    parameters for a clip, or ``None`` when the clip needs no job."""

    name: str

    def params_for(self, clip: Clip) -> dict[str, Any] | None: ...


@dataclass(frozen=True)
class Transcribe:
    """Raw transcript of every clip; decoding settings live in the model's config."""

    name: str = TRANSCRIBE

    def params_for(self, clip: Clip) -> dict[str, Any] | None:
        return {}


@dataclass(frozen=True)
class Score:
    """Teacher-forced log-probabilities of candidate texts, per clip.

    Candidates are part of the job key, so scoring a new candidate list for
    a clip is a new job while rescoring the same list is free."""

    candidates: Mapping[str, Sequence[str]] = field(default_factory=dict)
    name: str = SCORE

    def params_for(self, clip: Clip) -> dict[str, Any] | None:
        texts = self.candidates.get(clip.id)
        if not texts:
            return None
        return {"candidates": list(texts)}
