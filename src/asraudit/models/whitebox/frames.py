"""Where an intervention acts and what a paired run compares, without torch.

An intervention on the white-box Whisper (``interventions``) acts on a set
of encoder frames (``Frames``: all, the clip's audio, a span in seconds, or
where a paired source differs) and, for a patch, reads activations computed
on a *source* input (``FixedAudio``, ``SourcesByAudio``, or any condition).
These are plain data: the audit spec and the CLI parse and validate them,
and the mechanism experiments plan with them, all without importing torch;
only ``interventions`` (the hooks) needs it.  ``RunContext`` is what the
hooks learn about the batch in flight.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from asraudit.arguments import STRAY_UNDERSCORE, stray_underscore
from asraudit.audio.constants import SAMPLE_RATE

# Whisper's encoder emits one frame per 20 ms (two 10-ms mel hops, conv stride 2).
FRAME_SECONDS = 0.02
SAMPLES_PER_FRAME = int(SAMPLE_RATE * FRAME_SECONDS)
N_ENCODER_FRAMES = 1500


@dataclass(frozen=True)
class FrameGeometry:
    """How a model's encoder frames map to time: what ``Frames`` needs to turn seconds into indices.

    ``samples_per_frame``: input samples per encoder frame (Whisper 320 = 20 ms;
    Moonshine 384 = 24 ms).  ``max_frames``: the encoder's fixed output length
    (Whisper pads every input to 1500 frames), or None when it follows the
    input (then "all" means every frame the batch has, padding included).
    The model supplies it (``frame_geometry``); Whisper's is the default
    everywhere, so Whisper code paths are unchanged.
    """

    samples_per_frame: int = SAMPLES_PER_FRAME
    max_frames: int | None = N_ENCODER_FRAMES

    @property
    def seconds_per_frame(self) -> float:
        return self.samples_per_frame / SAMPLE_RATE

    def clip(self, index: int) -> int:
        return index if self.max_frames is None else min(index, self.max_frames)


WHISPER_FRAMES = FrameGeometry()
# "Every frame" for an encoder whose length follows its input: slicing stops at the real length.
_UNBOUNDED = 1 << 30


def _fmt(value: float) -> str:
    return repr(round(float(value), 6))


@dataclass(frozen=True)
class Frames:
    """Which encoder frames an intervention touches.

    ``all``: every one of the 1500 frames (padding included, which is what
    "patch the whole layer" means); ``audio``: the frames that hold the
    clip's own audio (each input's length, so padding is left alone);
    ``span``: ``[start_s, end_s)`` in seconds of the input; ``changed``: in a
    paired run, the frames where the source's samples differ from the
    input's (per clip: a source that masks or re-voices the edit's words
    patches exactly there, wherever each clip's edit is).
    """

    kind: str = "audio"
    start_s: float = 0.0
    end_s: float = 0.0

    def __post_init__(self):
        if self.kind not in ("all", "audio", "span", "changed"):
            raise ValueError(f"frames must be 'all', 'audio', 'changed' or a span 'START-END' (seconds), got {self.kind!r}")
        if self.kind == "span" and not (0 <= self.start_s < self.end_s and math.isfinite(self.end_s)):
            raise ValueError(f"frame span needs 0 <= start < end in finite seconds, got {self.start_s}-{self.end_s}")

    @classmethod
    def parse(cls, text: str) -> "Frames":
        """``all``, ``audio``, ``changed`` or ``START-END`` in seconds (``1.2-2.5``)."""
        text = text.strip()
        if text in ("all", "audio", "changed"):
            return cls(text)
        start, sep, end = text.partition("-")
        if stray_underscore(text):  # float() read "0.5-1_0" (a typo) as 0.5-10 s, without a word (case 336)
            raise ValueError(f"frame span {text!r}: {STRAY_UNDERSCORE} (a typo?)")
        try:
            if not sep:
                raise ValueError
            start_s, end_s = float(start), float(end)
        except ValueError:
            raise ValueError(f"frames must be 'all', 'audio', 'changed' or 'START-END' in seconds, got {text!r}") from None
        if end_s == math.inf and 0 <= start_s < end_s:  # "to the end": an infinite frame index stopped the run
            raise ValueError(f"frame span {text!r} ends at infinity: give its end in seconds (a span may run past a "
                             f"clip's end: {start.strip()}-30 reaches the end of any clip up to 30 s)")
        try:
            return cls("span", start_s, end_s)
        except ValueError:
            raise ValueError(f"frames must be 'all', 'audio', 'changed' or 'START-END' in seconds, got {text!r}") from None

    @property
    def id(self) -> str:
        if self.kind == "span":
            return f"{_fmt(self.start_s)}-{_fmt(self.end_s)}s"
        return self.kind

    def bounds(self, audio_frames: int, changed: tuple[int, int] | None = None,
               geometry: FrameGeometry = WHISPER_FRAMES) -> tuple[int, int]:
        """``[first, last)`` frame indices for an input with ``audio_frames`` frames of audio
        (and, for ``changed``, the frames where its paired source differs), in ``geometry``'s frames."""
        if self.kind == "all":
            return 0, geometry.max_frames if geometry.max_frames is not None else _UNBOUNDED
        if self.kind == "changed":
            if changed is None:
                raise ValueError("frames 'changed' need a paired source (an activation patch)")
            return changed
        if self.kind == "audio":
            return 0, max(1, geometry.clip(audio_frames))
        first = int(math.floor(self.start_s / geometry.seconds_per_frame))
        last = int(math.ceil(self.end_s / geometry.seconds_per_frame))
        return geometry.clip(first), geometry.clip(max(last, first + 1))


def audio_frames(n_samples: int, geometry: FrameGeometry = WHISPER_FRAMES) -> int:
    """Encoder frames that hold audio for a clip of ``n_samples`` samples."""
    return int(math.ceil(n_samples / geometry.samples_per_frame))


def changed_frames(audio: np.ndarray, source: np.ndarray, geometry: FrameGeometry = WHISPER_FRAMES) -> tuple[int, int]:
    """``[first, last)`` encoder frames covering every sample where ``source`` differs from ``audio``.

    Samples past the shorter clip count as different (a longer or shorter
    source changed them).  Identical clips give an empty range."""
    n = min(len(audio), len(source))
    differs = np.flatnonzero(np.asarray(audio[:n], dtype=np.float32) != np.asarray(source[:n], dtype=np.float32))
    first = int(differs[0]) if differs.size else n
    last = int(differs[-1]) + 1 if differs.size else n
    if len(audio) != len(source):
        first, last = min(first, n), max(len(audio), len(source))
    if last <= first:
        return 0, 0
    step = geometry.samples_per_frame
    return geometry.clip(first // step), geometry.clip(math.ceil(last / step))


@dataclass
class AudioTokens:
    """Where a speech LLM's prompt holds the audio, for hooks on its projector and language model.

    ``positions``: per batch row, the prompt positions of its audio tokens, in
    order (the k-th is the projector's k-th output); ``geometry``: how those
    tokens map to time (Qwen2-Audio: one per 40 ms); ``changed``: per target
    row of a paired run, the tokens where its source's samples differ.
    """

    positions: list[list[int]]
    geometry: FrameGeometry
    changed: list[tuple[int, int]] = field(default_factory=list)

    def bounds(self, frames: "Frames", row: int) -> tuple[int, int]:
        """``[first, last)`` audio-token indices of ``row`` that ``frames`` names."""
        changed = self.changed[row] if row < len(self.changed) else None
        return frames.bounds(len(self.positions[row]), changed, self.geometry)


@dataclass
class RunContext:
    """What hooks need to know about the batch in flight.

    ``n_targets`` rows are the inputs; when ``paired``, rows
    ``[n_targets, 2 * n_targets)`` are their sources.  ``decoder_offset`` is
    the absolute decoder position of the first token of the current decoder
    call (the decode loop advances it; with a KV cache each call sees only
    new positions).  ``prompt_length`` converts it to text positions.
    """

    n_targets: int
    audio_frames: list[int]
    paired: bool = False
    # Per target row, the frames where its source differs (paired runs only).
    changed: list[tuple[int, int]] = field(default_factory=list)
    prompt_length: int = 0
    decoder_offset: int = 0
    # The model's frame geometry (``Frames`` in seconds -> encoder frame indices).
    geometry: FrameGeometry = WHISPER_FRAMES
    # A speech LLM's audio tokens in its prompt (None for models whose decoder reads the audio by cross-attention).
    audio_tokens: AudioTokens | None = None


class AudioSource(Protocol):
    """Where a paired run's second input comes from: any condition (``id`` + audio -> audio)."""

    @property
    def id(self) -> str: ...

    def __call__(self, audio: np.ndarray) -> np.ndarray: ...


@dataclass(frozen=True)
class FixedAudio:
    """One fixed waveform as the source of every input (a clip B patched into clip A).

    Its id carries a digest of the samples, so two different clips never
    share a config hash."""

    audio: np.ndarray = field(repr=False)
    label: str = "audio"

    @property
    def id(self) -> str:
        digest = hashlib.sha1(np.ascontiguousarray(self.audio, dtype=np.float32).tobytes()).hexdigest()[:10]
        return f"{self.label}@{digest}"

    def __call__(self, audio: np.ndarray) -> np.ndarray:
        return np.asarray(self.audio, dtype=np.float32)


def audio_digest(audio: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(audio, dtype=np.float32).tobytes()).hexdigest()


@dataclass(frozen=True)
class SourcesByAudio:
    """A different source for each input, found by the input's samples.

    The job grid hands a model audio, never clip ids, so per-clip sources
    (each clip truncated or re-voiced around *its* edit) are looked up by a
    digest of the input audio.  The id covers every (input, source) pair."""

    table: dict = field(repr=False)
    label: str = "per-clip"

    @classmethod
    def from_pairs(cls, pairs, label: str = "per-clip") -> "SourcesByAudio":
        """From (input audio, its source audio) pairs."""
        return cls({audio_digest(a): np.asarray(b, dtype=np.float32) for a, b in pairs}, label)

    @property
    def id(self) -> str:
        digest = hashlib.sha1()
        for key in sorted(self.table):
            digest.update(key.encode())
            digest.update(audio_digest(self.table[key]).encode())
        return f"{self.label}@{digest.hexdigest()[:10]}"

    def __call__(self, audio: np.ndarray) -> np.ndarray:
        key = audio_digest(audio)
        if key not in self.table:
            raise KeyError(f"no source for this input (audio digest {key[:10]}); sources cover {len(self.table)} clips")
        return self.table[key]
