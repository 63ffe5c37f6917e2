"""The model protocol every backend implements.

Probes never call models: the job grid does, through this protocol, and the
store keeps the raw results.  A model only needs to turn audio into raw text;
models that expose likelihoods also score candidate texts under teacher
forcing, which the audio-lift probe needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Mapping, Protocol, Sequence, TypeVar, runtime_checkable

import numpy as np

# The protocol's audio format.  It is defined with the audio readers, which
# fix it before any model exists; importing it here keeps ``models.base``
# the one place a backend looks for what it is handed.
from asraudit.audio.constants import SAMPLE_RATE
from asraudit.errors import InputError

__all__ = ["SAMPLE_RATE", "TokenScores", "ASRModel", "ScoringModel", "ClipKeyedModel", "backend_options"]

O = TypeVar("O")


def backend_options(cls: type[O], options: Mapping[str, Any], model_id: str, also: Sequence[str] = ()) -> O:
    """A backend's options dataclass ``cls`` from a model's ``options``.

    An option the backend does not have (a misspelling, or ``--option`` meant
    for another model of the run) is one ``InputError`` naming the model, the
    option and the options it has, not a ``TypeError`` from inside the
    backend.  ``also`` lists the keyword arguments the backend takes beside
    the dataclass (named in the message, never passed here)."""
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(options) - known)
    if unknown:
        names = ", ".join(repr(k) for k in unknown)
        raise InputError(f"model {model_id!r} has no option {names}; its options: "
                         f"{', '.join(sorted(known | set(also)))}")
    return cls(**options)


@dataclass(frozen=True)
class TokenScores:
    """Teacher-forced log-probabilities of one candidate text.

    ``tokens`` are the model's token strings for the candidate (end-of-text
    included as the last entry), ``logprobs`` the natural-log probability of
    each given everything before it and the audio.
    """

    text: str
    tokens: tuple[str, ...]
    logprobs: tuple[float, ...]
    token_ids: tuple[int, ...] = ()
    # Character offsets of each token in ``text`` (start, end); empty for special tokens.
    offsets: tuple[tuple[int, int], ...] = field(default=())

    @property
    def total(self) -> float:
        return float(sum(self.logprobs))


@runtime_checkable
class ASRModel(Protocol):
    """What the job grid needs from a model.

    ``model_id`` names the model; ``config_hash`` changes whenever a setting
    that changes outputs changes (beam size, precision, an intervention), so
    stored results of one configuration are never reused for another.
    Audio is mono float32 at ``SAMPLE_RATE``.
    """

    model_id: str

    @property
    def config_hash(self) -> str: ...

    def transcribe(self, audio: Sequence[np.ndarray]) -> list[str]: ...


@runtime_checkable
class ScoringModel(ASRModel, Protocol):
    """A model that also exposes teacher-forced likelihoods."""

    def score(self, audio: np.ndarray, candidates: Sequence[str]) -> list[TokenScores]: ...


@runtime_checkable
class ClipKeyedModel(Protocol):
    """A model that answers by clip id instead of audio (a replayed prediction file).

    It cannot hear, so it only answers for the original, unmodified audio:
    the job grid must not ask it about other conditions.
    """

    model_id: str

    @property
    def config_hash(self) -> str: ...

    def transcribe_clips(self, clip_ids: Sequence[str]) -> list[str]: ...
