"""Interventions on the white-box Whisper, as PyTorch forward hooks.

An intervention turns the white-box model into a *variant*: another model id
in the job grid, with a config hash that covers every parameter of the
intervention (and the content of any direction it uses), so stored results
of one variant are never reused for another.

Three families, each answering one question about where a behaviour lives:

* ``ActivationPatch``: replace one layer's activations (encoder frames, or
  decoder positions) with those computed on another input.  Is the behaviour
  written into the encoder representation, or imposed by the decoder?
* ``CrossAttentionMask``: the decoder may not look at a span of frames.  Does
  the information survive elsewhere?
* ``SteerAdd`` / ``SteerAblate``: add a direction in an encoder layer's
  residual stream with scale alpha (induce), or project a subspace out
  (ablate).  See ``asraudit.mechanism.steering`` for learning directions.

Patched activations come from a *paired run*: the batch holds the inputs in
rows ``[0, n)`` and their sources in rows ``[n, 2n)``, both go through the
encoder together and the decoder is fed the same tokens on both halves
(the source half is teacher-forced with the target's tokens).  A patch hook
copies rows ``n + i`` into row ``i`` at the chosen sites, so a source's
activations are always those of the very computation the target is in.
The source of an input is a function of its audio (any condition, e.g. the
same clip with a span masked or re-voiced), which is what the job grid can
supply: it hands the model audio, never clip ids.  Frames are copied by
index, i.e. by time: a source must keep the target's timing for a
frame-wise patch to mean "the same moment".
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Protocol, Sequence

import numpy as np
import torch

from asraudit.audio.constants import SAMPLE_RATE

# Whisper's encoder emits one frame per 20 ms (two 10-ms mel hops, conv stride 2).
FRAME_SECONDS = 0.02
SAMPLES_PER_FRAME = int(SAMPLE_RATE * FRAME_SECONDS)
N_ENCODER_FRAMES = 1500


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
        if self.kind == "span" and not (0 <= self.start_s < self.end_s):
            raise ValueError(f"frame span needs 0 <= start < end, got {self.start_s}-{self.end_s}")

    @classmethod
    def parse(cls, text: str) -> "Frames":
        """``all``, ``audio``, ``changed`` or ``START-END`` in seconds (``1.2-2.5``)."""
        text = text.strip()
        if text in ("all", "audio", "changed"):
            return cls(text)
        start, sep, end = text.partition("-")
        try:
            if not sep:
                raise ValueError
            return cls("span", float(start), float(end))
        except ValueError:
            raise ValueError(f"frames must be 'all', 'audio', 'changed' or 'START-END' in seconds, got {text!r}") from None

    @property
    def id(self) -> str:
        if self.kind == "span":
            return f"{_fmt(self.start_s)}-{_fmt(self.end_s)}s"
        return self.kind

    def bounds(self, audio_frames: int, changed: tuple[int, int] | None = None) -> tuple[int, int]:
        """``[first, last)`` frame indices for an input with ``audio_frames`` frames of audio
        (and, for ``changed``, the frames where its paired source differs)."""
        if self.kind == "all":
            return 0, N_ENCODER_FRAMES
        if self.kind == "changed":
            if changed is None:
                raise ValueError("frames 'changed' need a paired source (an activation patch)")
            return changed
        if self.kind == "audio":
            return 0, max(1, min(audio_frames, N_ENCODER_FRAMES))
        first = int(math.floor(self.start_s / FRAME_SECONDS))
        last = int(math.ceil(self.end_s / FRAME_SECONDS))
        return min(first, N_ENCODER_FRAMES), min(max(last, first + 1), N_ENCODER_FRAMES)


def audio_frames(n_samples: int) -> int:
    """Encoder frames that hold audio for a clip of ``n_samples`` samples."""
    return int(math.ceil(n_samples / SAMPLES_PER_FRAME))


def changed_frames(audio: np.ndarray, source: np.ndarray) -> tuple[int, int]:
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
    return min(first // SAMPLES_PER_FRAME, N_ENCODER_FRAMES), min(math.ceil(last / SAMPLES_PER_FRAME), N_ENCODER_FRAMES)


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


class Intervention:
    """Base class.  ``params`` must name everything that changes outputs."""

    kind = "intervention"
    # Interventions that read activations of a second input set a source.
    source: AudioSource | None = None

    def params(self) -> dict[str, object]:
        return {}

    @property
    def id(self) -> str:
        p = self.params()
        return f"{self.kind}(" + ",".join(f"{k}={v}" for k, v in sorted(p.items())) + ")"

    def spec(self) -> dict[str, object]:
        """What goes into the model's config hash."""
        return {"kind": self.kind, **{k: str(v) for k, v in self.params().items()}}

    def install(self, model, ctx: RunContext) -> list:
        """Register hooks on ``model`` (a ``WhisperForConditionalGeneration``); return their handles."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.id


def _layer(layers, index: int, what: str):
    n = len(layers)
    if not -n <= index < n:
        raise ValueError(f"{what} layer {index} does not exist (the model has {n}: 0..{n - 1})")
    return layers[index]


def _row_bounds(frames: Frames, ctx: RunContext, row: int) -> tuple[int, int]:
    changed = ctx.changed[row] if row < len(ctx.changed) else None
    return frames.bounds(ctx.audio_frames[row], changed)


@dataclass(frozen=True, repr=False)
class ActivationPatch(Intervention):
    """Replace a layer's output with the source input's, at chosen sites.

    ``site="encoder"``: the output of encoder layer ``layer`` over ``frames``.
    ``site="decoder"``: the output of decoder layer ``layer`` at text
    ``positions`` (0 is the first token after the prompt; empty = every
    position, prompt included).  Later layers then compute from the patched
    values, so patching every frame of any encoder layer hands the decoder
    the source's encoder output exactly.
    """

    source: AudioSource = None  # type: ignore[assignment]
    layer: int = -1
    site: str = "encoder"
    frames: Frames = Frames("all")
    positions: tuple[int, ...] = ()
    kind = "patch"

    def __post_init__(self):
        if self.source is None:
            raise ValueError("an activation patch needs a source (a condition or FixedAudio)")
        if self.site not in ("encoder", "decoder"):
            raise ValueError(f"patch site must be 'encoder' or 'decoder', got {self.site!r}")

    def params(self):
        where = self.frames.id if self.site == "encoder" else (",".join(map(str, self.positions)) or "all")
        return {"site": self.site, "layer": self.layer, "at": where, "source": self.source.id}

    def install(self, model, ctx: RunContext) -> list:
        if not ctx.paired:
            raise RuntimeError("an activation patch runs only in a paired batch")
        n = ctx.n_targets
        if self.site == "encoder":
            layer = _layer(model.model.encoder.layers, self.layer, "encoder")

            def patch_encoder(module, inputs, output):
                patched = output.clone()
                for row in range(n):
                    first, last = _row_bounds(self.frames, ctx, row)
                    patched[row, first:last] = output[n + row, first:last]
                return patched

            return [layer.register_forward_hook(patch_encoder)]

        layer = _layer(model.model.decoder.layers, self.layer, "decoder")
        wanted = set(self.positions)

        def patch_decoder(module, inputs, output):
            hidden = output[0] if isinstance(output, tuple) else output
            patched = hidden.clone()
            for step in range(hidden.shape[1]):
                text_position = ctx.decoder_offset + step - ctx.prompt_length
                if not wanted or text_position in wanted:
                    patched[:n, step] = hidden[n:, step]
            return (patched, *output[1:]) if isinstance(output, tuple) else patched

        return [layer.register_forward_hook(patch_decoder)]


@dataclass(frozen=True, repr=False)
class CrossAttentionMask(Intervention):
    """Block the decoder's cross-attention to ``frames`` in ``layers`` (empty = every layer).

    Implemented as an additive mask of the dtype's minimum on the blocked
    keys: the softmax gives them zero weight and renormalises over the rest,
    which is what "the decoder cannot see this span" means.  The encoder
    itself is untouched, so information about the span that the encoder
    already spread to other frames stays visible: the question the mask asks.
    """

    frames: Frames = Frames("span", 0.0, 1.0)
    layers: tuple[int, ...] = ()
    kind = "attnmask"

    def params(self):
        return {"frames": self.frames.id, "layers": ",".join(map(str, self.layers)) or "all"}

    def install(self, model, ctx: RunContext) -> list:
        decoder_layers = model.model.decoder.layers
        chosen = [_layer(decoder_layers, i, "decoder") for i in self.layers] if self.layers else list(decoder_layers)
        n_rows = ctx.n_targets * (2 if ctx.paired else 1)
        cache: dict[str, torch.Tensor] = {}

        def additive_mask(reference: torch.Tensor) -> torch.Tensor:
            if "mask" not in cache:
                mask = torch.zeros(n_rows, 1, 1, N_ENCODER_FRAMES, dtype=reference.dtype, device=reference.device)
                # Only the inputs are masked; a paired source stays the untouched reference.
                for row in range(ctx.n_targets):
                    first, last = _row_bounds(self.frames, ctx, row)
                    mask[row, ..., first:last] = torch.finfo(reference.dtype).min
                cache["mask"] = mask
            return cache["mask"]

        def block(module, args, kwargs):
            hidden = args[0] if args else kwargs["hidden_states"]
            if kwargs.get("key_value_states") is None:
                return None
            kwargs = dict(kwargs)
            mask = additive_mask(hidden)[: hidden.shape[0]]
            if kwargs.get("attention_mask") is not None:
                mask = mask + kwargs["attention_mask"]
            kwargs["attention_mask"] = mask
            return args, kwargs

        return [layer.encoder_attn.register_forward_pre_hook(block, with_kwargs=True) for layer in chosen]


class _Steering(Intervention):
    """Shared by add and ablate: a direction applied to one encoder layer's output."""

    direction = None
    layer: int | None = None
    frames: Frames = Frames("audio")

    def _layer_index(self) -> int:
        return self.direction.layer if self.layer is None else self.layer

    def _edit(self, hidden: torch.Tensor) -> torch.Tensor:  # pragma: no cover - abstract
        raise NotImplementedError

    def install(self, model, ctx: RunContext) -> list:
        layer = _layer(model.model.encoder.layers, self._layer_index(), "encoder")

        def steer(module, inputs, output):
            steered = output.clone()
            for row in range(ctx.n_targets):
                first, last = _row_bounds(self.frames, ctx, row)
                steered[row, first:last] = self._edit(output[row, first:last])
            return steered

        return [layer.register_forward_hook(steer)]


@dataclass(frozen=True, repr=False)
class SteerAdd(_Steering):
    """h <- h + alpha * v at every chosen frame, v the direction's mean difference.

    alpha = 1 moves the average input of the negative side by exactly the
    average paired difference; alpha < 0 pushes the other way."""

    direction: object = None
    alpha: float = 1.0
    layer: int | None = None
    frames: Frames = Frames("audio")
    kind = "steer-add"

    def params(self):
        return {"direction": self.direction.id, "alpha": _fmt(self.alpha), "layer": self._layer_index(),
                "frames": self.frames.id}

    def _edit(self, hidden):
        vector = torch.as_tensor(self.direction.vector, dtype=hidden.dtype, device=hidden.device)
        return hidden + self.alpha * vector


@dataclass(frozen=True, repr=False)
class SteerAblate(_Steering):
    """h <- h - U^T U h: the direction's rank-k subspace projected out at every chosen frame.

    ``rank`` uses the first ``rank`` basis vectors (default: all of them).
    The basis is orthonormal, so what remains has no component along any of
    them (the tests check this to float precision)."""

    direction: object = None
    rank: int | None = None
    layer: int | None = None
    frames: Frames = Frames("audio")
    kind = "steer-ablate"

    def __post_init__(self):
        available = self.direction.basis.shape[0]
        if self.rank is not None and not 1 <= self.rank <= available:
            raise ValueError(f"rank {self.rank} outside 1..{available} (the direction's basis)")

    def params(self):
        rank = self.rank or self.direction.basis.shape[0]
        return {"direction": self.direction.id, "rank": rank, "layer": self._layer_index(), "frames": self.frames.id}

    def _edit(self, hidden):
        k = self.rank or self.direction.basis.shape[0]
        basis = torch.as_tensor(self.direction.basis[:k], dtype=hidden.dtype, device=hidden.device)
        return hidden - (hidden @ basis.T) @ basis


def needs_pairing(interventions: Sequence[Intervention]) -> AudioSource | None:
    """The one source the interventions share, or None; two different sources cannot share a batch."""
    sources = {i.source.id: i.source for i in interventions if i.source is not None}
    if len(sources) > 1:
        raise ValueError(f"interventions use different sources ({', '.join(sources)}); one paired source per variant")
    return next(iter(sources.values()), None)

