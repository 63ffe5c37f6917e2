"""The model protocol every backend implements.

Probes never call models: the job grid does, through this protocol, and the
store keeps the raw results.  A model only needs to turn audio into raw text;
models that expose likelihoods also score candidate texts under teacher
forcing, which the audio-lift probe needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Iterable, Mapping, Protocol, Sequence, TypeVar, runtime_checkable

import numpy as np

# The protocol's audio format.  It is defined with the audio readers, which
# fix it before any model exists; importing it here keeps ``models.base``
# the one place a backend looks for what it is handed.
from asraudit.audio.constants import SAMPLE_RATE
from asraudit.arguments import texts
from asraudit.errors import InputError

__all__ = ["SAMPLE_RATE", "TokenScores", "ASRModel", "ScoringModel", "ClipKeyedModel", "audio_batch",
           "backend_options", "check_option_values", "model_options", "score_arguments"]

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
    return cls(**model_options(options))


def model_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """A model's options with its ``language`` in the case asraudit keeps every language code (lower case, as
    ``text.basic_language_codes.language_code`` keeps the corpus's and the conventions'): ``language=FR`` is the
    ``fr`` it means, for every family (Whisper's ``<|fr|>``, Canary's and Cohere's prompt tokens, SeamlessM4T's
    ``fra``, a speech LLM's prompt), and one configuration with it, normalized before the model's config hash
    sees it.  Any other value is left for the options' own check."""
    language = options.get("language")
    if isinstance(language, str) and language != language.lower():
        return {**options, "language": language.lower()}
    return dict(options)


# The most beams asraudit decodes with.  Real decoding runs 1 to about 10 (Whisper's default is 5, NeMo's transducer
# beams 4 to 16); every backend's cost and memory grow with the beam (CTranslate2 and transformers' generate keep
# every beam of every clip in memory at once), so a beam_size of 100000 (a slip, or a misread option) ran for
# minutes with no output, CTranslate2 allocating that many beams, and could not even be stopped with Ctrl-C.
MAX_BEAM_SIZE = 128


def check_beam_size(value: object) -> None:
    """An InputError for a beam size no real decoding uses, before any clip is decoded (see ``MAX_BEAM_SIZE``);
    the value is otherwise checked by the caller as an integer of at least 1."""
    if isinstance(value, int) and not isinstance(value, bool) and value > MAX_BEAM_SIZE:
        raise InputError(f"option beam_size {value} is past {MAX_BEAM_SIZE}, the most asraudit decodes with (real "
                         "decoding uses 1 to about 10 beams, and time and memory grow with each): give a smaller one")


def check_option_values(options: object, *, counts: Sequence[str] = (), texts_or_none: Sequence[str] = (),
                        switches_or_none: Sequence[str] = (), positive_or_none: Sequence[str] = ()) -> None:
    """An InputError naming the option whose value an options dataclass cannot take, checked when the model
    loads: ``counts`` are integers of at least 1 (``beam_size=0`` was a ZeroDivisionError, ``max_new_tokens=0``
    transformers' ValueError and ``beam_size="2"`` a TypeError, each at the first clip, after every model
    before it had run), the others a str, a bool or a positive finite number, or None."""
    import math

    for name in counts:
        value = getattr(options, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError(f"option {name} must be an integer of at least 1, got {value!r}")
        if name == "beam_size":
            check_beam_size(value)
    for name in texts_or_none:
        value = getattr(options, name)
        if value is not None and not isinstance(value, str):
            raise InputError(f"option {name} must be a text, got {value!r}")
    for name in switches_or_none:
        value = getattr(options, name)
        if value is not None and not isinstance(value, bool):
            raise InputError(f"option {name} must be true or false, got {value!r}")
    for name in positive_or_none:
        value = getattr(options, name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not math.isfinite(value) or value <= 0):
            raise InputError(f"option {name} must be a number above 0, got {value!r}")


def audio_batch(audio: object) -> list[np.ndarray]:
    """``transcribe``'s argument as a list of clips, each a 1-D array of finite samples (16 kHz mono).

    From Python a batch is easily one clip: a 1-D array iterated is its samples, so pocketsphinx returned
    one empty transcript per sample (16,000 for a second) and Whisper an ``IndexError``; a generator was
    read twice by the window cutter and lost; a NaN sample made Whisper write ``))))...``.  Each is one line
    naming the clip, before any decoding (a few microseconds a clip, against a model's milliseconds)."""
    if isinstance(audio, np.ndarray) and audio.ndim < 2:
        raise InputError(f"audio is a batch of clips, a list of 1-D sample arrays, got one array of "
                         f"{audio.size} sample(s): pass [clip] for one clip")
    if isinstance(audio, (str, bytes)) or hasattr(audio, "__fspath__"):
        raise InputError(f"audio is a batch of clips (arrays of {SAMPLE_RATE} Hz samples), got the path "
                         f"{audio!r}: decode it first (Clip.decode(), or asraudit.audio.io.load_audio)")
    if isinstance(audio, Mapping):
        raise InputError(f"audio is a batch of clips, a list of 1-D sample arrays, got a {type(audio).__name__} "
                         "(iterated, it gives its keys, not its samples): pass list(d.values())")
    if not isinstance(audio, Iterable):
        raise InputError(f"audio is a batch of clips, a list of 1-D sample arrays, got {repr(audio)[:60]}")
    clips = list(audio)
    for i, clip in enumerate(clips):
        _refuse_what_is_no_samples(clip, f"audio[{i}]")
        arr = np.asarray(clip)
        if arr.ndim != 1 or arr.dtype.kind not in "fiu":
            what = f"{arr.ndim}-D array of shape {arr.shape}" if arr.ndim != 1 else f"array of {arr.dtype}"
            raise InputError(f"audio[{i}] is a {what}: a clip is a 1-D array of mono samples (float, 16 kHz)")
        _check_samples(arr, f"audio[{i}]")
    return clips


def _refuse_what_is_no_samples(clip: object, name: str) -> None:
    """A clip of a batch that is not samples at all, named for what it is: a file's path, a ``Clip`` (a ``Corpus``
    iterated gives them), an encoded file's bytes or None each read as a 0-D array (``audio[0] is a 0-D array of
    shape ()``), which told a user who passed ``["a.wav"]`` or a corpus nothing of what to do."""
    if isinstance(clip, str) or hasattr(clip, "__fspath__"):
        raise InputError(f"{name} is the path {str(clip)[:60]!r}, not samples: decode the file first "
                         "(Clip(id, path).decode(), or asraudit.audio.io.load_audio)")
    if isinstance(clip, (bytes, bytearray)):
        raise InputError(f"{name} is {len(clip)} bytes (an encoded file?), not samples: decode them first "
                         "(Clip(id, data).decode())")
    if type(clip).__name__ == "Clip" and hasattr(clip, "decode"):
        raise InputError(f"{name} is the Clip {repr(getattr(clip, 'id', None))[:60]}, not its samples: pass "
                         "clip.decode() ([c.decode() for c in corpus] for a corpus)")
    if clip is None:
        raise InputError(f"{name} is None, not a clip's samples")


# Float samples reach far beyond the readers' FLOAT_PEAK_LIMIT (2) only as integer values: int16 speech stored as
# float peaks in the thousands.  The limit a model's input is held to is looser than the readers', so a condition
# of the pipeline that adds loud noise to a loud clip (past 2, but by no means 16x) is never refused here.
MODEL_PEAK_LIMIT = 32.0


def _check_samples(arr: np.ndarray, name: str) -> None:
    """Float samples, finite and within the float scale: integer samples (scipy's int16) were read as floats
    in the thousands, and a model wrote nonsense for them, silently."""
    if arr.dtype.kind in "iu":
        raise InputError(f"{name} holds {arr.dtype} samples: a model takes float samples in [-1, 1]: "
                         f"Clip(id, samples).decode() scales integer PCM, or divide by its full scale")
    if not np.isfinite(arr).all():
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise InputError(f"{name} holds {arr[bad]} at sample {bad}: a clip's samples are finite numbers")
    peak = float(np.max(np.abs(arr))) if arr.size else 0.0
    if peak > MODEL_PEAK_LIMIT:
        raise InputError(f"{name}'s samples reach {peak:g}, far outside [-1, 1] (integer values stored as "
                         "float?): divide them by the integer full scale (32768 for 16-bit)")


def score_arguments(audio: object, candidates: object) -> tuple[np.ndarray, list[str]]:
    """``score``'s arguments checked: one clip (a 1-D array of finite samples) and a list of texts.

    ``score(clip, "the cat")`` scored seven one-character candidates, silently; a NaN sample gave NaN
    log-probs; a candidate that is None an ``AttributeError`` from the tokenizer."""
    arr = np.asarray(audio) if not isinstance(audio, (str, bytes)) else np.asarray(0.0)
    if arr.ndim != 1 or arr.dtype.kind not in "fiu":
        what = f"a {arr.ndim}-D array of shape {arr.shape}" if arr.dtype.kind in "fiu" else f"{audio!r:.60}"
        raise InputError(f"audio is one clip, a 1-D array of mono samples (float, 16 kHz), got {what}"
                         + (": score one clip at a time" if arr.ndim == 2 else ""))
    _check_samples(arr, "audio")
    return audio, texts(candidates, "candidates", "each scored against the clip")


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
    """A model that also exposes teacher-forced likelihoods.

    It may also say ``score_seconds``: the longest clip one ``score`` call takes (a Whisper: one 30-s window;
    absent or None: any length).  Transcription can window a long clip, teacher forcing cannot, so the probes
    that score leave longer clips out of their likelihood readouts (``models.candidate_check.shortest_window``)
    instead of stopping when one comes up."""

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
