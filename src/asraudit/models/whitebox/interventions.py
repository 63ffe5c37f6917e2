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

The frames an intervention acts on and the paired-run sources are plain
data in ``frames`` (no torch); this module holds the hooks.
"""


from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np
import torch

from asraudit.models.whitebox.frames import (
    AudioSource,
    FixedAudio,
    Frames,
    RunContext,
    SourcesByAudio,
    _fmt,
    audio_frames,
    changed_frames,
)
from asraudit.models.whitebox.sites import InterventionSites, layer_index
from asraudit.models.whitebox.steer_limits import scale_problem

# The torch-free names (frames, paired-run sources) live in ``frames``; they
# are listed here too because importers of this module predate the split.
__all__ = [
    "ActivationPatch", "AudioSource", "CrossAttentionMask", "FixedAudio", "Frames", "Intervention", "RunContext",
    "SourcesByAudio", "SteerAblate", "SteerAdd", "audio_frames", "changed_frames", "needs_pairing",
]


class Intervention:
    """Base class.  ``params`` must name everything that changes outputs."""

    kind = "intervention"
    # Interventions that read activations of a second input set a source.
    source: AudioSource | None = None
    # The site (``InterventionSites.require``) it hooks, so a model can refuse it before running.
    site: str | None = None

    def params(self) -> dict[str, object]:
        return {}

    @property
    def id(self) -> str:
        p = self.params()
        return f"{self.kind}(" + ",".join(f"{k}={v}" for k, v in sorted(p.items())) + ")"

    def spec(self) -> dict[str, object]:
        """What goes into the model's config hash."""
        return {"kind": self.kind, **{k: str(v) for k, v in self.params().items()}}

    def install(self, sites: InterventionSites, ctx: RunContext) -> list:
        """Register hooks on the modules of ``sites``; return their handles."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.id


def _layer(layers, index: int, what: str):
    return layers[layer_index(index, len(layers), what)]


def _row_bounds(frames: Frames, ctx: RunContext, row: int) -> tuple[int, int]:
    changed = ctx.changed[row] if row < len(ctx.changed) else None
    return frames.bounds(ctx.audio_frames[row], changed, ctx.geometry)


@dataclass(frozen=True, repr=False)
class ActivationPatch(Intervention):
    """Replace a layer's output with the source input's, at chosen sites.

    ``site="encoder"``: the output of encoder layer ``layer`` over ``frames``.
    ``site="decoder"``: the output of decoder layer ``layer`` at text
    ``positions`` (0 is the first token after the prompt; empty = every
    position, prompt included).  Later layers then compute from the patched
    values, so patching every frame of any encoder layer hands the decoder
    the source's encoder output exactly.

    Speech LLMs, whose language model reads the audio as tokens of its
    prompt, add two sites, both over the audio tokens ``frames`` names
    (``RunContext.audio_tokens``: the k-th token of the input takes the
    k-th of its source, so a source must keep the input's timing):
    ``site="projector"``: the audio-to-LM projector's output (what replaces
    the audio placeholders; ``layer`` is unused); ``site="decoder-audio"``:
    the output of LM layer ``layer`` at the prompt's audio positions.
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
        if self.site not in PATCH_SITES:
            raise ValueError(f"patch site must be one of {', '.join(PATCH_SITES)}, got {self.site!r}")

    def params(self):
        where = (",".join(map(str, self.positions)) or "all") if self.site == "decoder" else self.frames.id
        return {"site": self.site, "layer": self.layer, "at": where, "source": self.source.id}

    def install(self, sites: InterventionSites, ctx: RunContext) -> list:
        if not ctx.paired:
            raise RuntimeError("an activation patch runs only in a paired batch")
        if self.site == "encoder":
            layer = _layer(sites.require("encoder"), self.layer, "encoder")

            def patch_encoder(module, inputs, output):
                n = ctx.n_targets
                patched = output.clone()
                for row in range(n):
                    first, last = _row_bounds(self.frames, ctx, row)
                    patched[row, first:last] = output[n + row, first:last]
                return patched

            return [layer.register_forward_hook(patch_encoder)]
        if self.site in ("projector", "decoder-audio"):
            return self._install_audio_tokens(sites, ctx)

        layer = _layer(sites.require("decoder"), self.layer, "decoder")
        wanted = set(self.positions)

        def patch_decoder(module, inputs, output):
            # Read per call: a scorer sets ctx.n_targets per chunk of candidates, after the hooks are installed.
            n = ctx.n_targets
            hidden = output[0] if isinstance(output, tuple) else output
            patched = hidden.clone()
            for step in range(hidden.shape[1]):
                text_position = ctx.decoder_offset + step - ctx.prompt_length
                if not wanted or text_position in wanted:
                    patched[:n, step] = hidden[n:, step]
            return (patched, *output[1:]) if isinstance(output, tuple) else patched

        return [layer.register_forward_hook(patch_decoder)]


    def _install_audio_tokens(self, sites: InterventionSites, ctx: RunContext) -> list:
        """The projector's output, or an LM layer's output at the audio positions, copied token by token."""
        if ctx.audio_tokens is None:
            raise RuntimeError(f"a {self.site} patch needs the run's audio tokens (a speech LLM sets them)")
        tokens = ctx.audio_tokens

        def spans():
            n = ctx.n_targets
            for row in range(n):
                first, last = tokens.bounds(self.frames, row)
                count = min(len(tokens.positions[row]), len(tokens.positions[n + row]))
                if min(last, count) > first:
                    yield row, first, min(last, count)

        if self.site == "projector":
            def patch_projector(module, inputs, output):
                n = ctx.n_targets
                patched = output.clone()
                for row, first, last in spans():
                    patched[row, first:last] = output[n + row, first:last]
                return patched

            return [sites.require("projector")[0].register_forward_hook(patch_projector)]

        layer = _layer(sites.require("decoder-audio"), self.layer, "decoder")

        def patch_audio_positions(module, inputs, output):
            if ctx.decoder_offset != 0:  # a later call holds generated or forced text only
                return None
            n = ctx.n_targets
            hidden = output[0] if isinstance(output, tuple) else output
            patched = hidden.clone()
            for row, first, last in spans():
                into = torch.as_tensor(tokens.positions[row][first:last], device=hidden.device)
                fro = torch.as_tensor(tokens.positions[n + row][first:last], device=hidden.device)
                patched[row, into] = hidden[n + row, fro]
            return (patched, *output[1:]) if isinstance(output, tuple) else patched

        return [layer.register_forward_hook(patch_audio_positions)]


PATCH_SITES = ("encoder", "decoder", "projector", "decoder-audio")


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
    site = "cross-attention"

    def params(self):
        return {"frames": self.frames.id, "layers": ",".join(map(str, self.layers)) or "all"}

    def install(self, sites: InterventionSites, ctx: RunContext) -> list:
        attention = sites.require("cross-attention")
        chosen = [_layer(attention, i, "decoder") for i in self.layers] if self.layers else list(attention)
        cache: dict[tuple, torch.Tensor] = {}

        def additive_mask(reference: torch.Tensor, n_keys: int) -> torch.Tensor:
            # Built when the batch is known: a scorer sets ctx.n_targets per chunk of candidates,
            # after the hooks are installed, so the mask is made (and cached) per batch shape.
            key = (ctx.n_targets, ctx.paired, n_keys, reference.dtype)
            if key not in cache:
                n_rows = ctx.n_targets * (2 if ctx.paired else 1)
                mask = torch.zeros(n_rows, 1, 1, n_keys, dtype=reference.dtype, device=reference.device)
                # Only the inputs are masked; a paired source stays the untouched reference.
                for row in range(ctx.n_targets):
                    first, last = _row_bounds(self.frames, ctx, row)
                    mask[row, ..., first:last] = torch.finfo(reference.dtype).min
                cache[key] = mask
            return cache[key]

        def block(module, args, kwargs):
            hidden = args[0] if args else kwargs["hidden_states"]
            # The audio frames the module attends to: Whisper-style modules take them as key_value_states
            # (None in self-attention), Canary's and Cohere ASR's cross-attention as encoder_hidden_states.
            keys = kwargs.get("key_value_states")
            if keys is None:
                keys = kwargs.get("encoder_hidden_states")
            if keys is None:
                return None
            kwargs = dict(kwargs)
            # As many keys as the encoder has frames: 1500 for Whisper, the input's length elsewhere.
            mask = additive_mask(hidden, keys.shape[1])[: hidden.shape[0]]
            given = kwargs.get("attention_mask")
            if given is not None:
                if given.dtype == torch.bool:  # some families pass a boolean keep-mask
                    given = torch.where(given, 0.0, torch.finfo(mask.dtype).min).to(mask.dtype)
                mask = mask + given
            kwargs["attention_mask"] = mask
            return args, kwargs

        return [module.register_forward_pre_hook(block, with_kwargs=True) for module in chosen]


class _Steering(Intervention):
    """Shared by add and ablate: a direction applied to one encoder layer's output."""

    direction = None
    layer: int | None = None
    frames: Frames = Frames("audio")
    site = "encoder"

    def _layer_index(self) -> int:
        return self.direction.layer if self.layer is None else self.layer

    def _edit(self, hidden: torch.Tensor) -> torch.Tensor:  # pragma: no cover - abstract
        raise NotImplementedError

    def install(self, sites: InterventionSites, ctx: RunContext) -> list:
        layer = _layer(sites.require("encoder"), self._layer_index(), "encoder")

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

    def __post_init__(self):
        if self.direction is not None and not np.any(self.direction.vector):
            raise ValueError("the direction's vector is zero: adding it changes nothing")
        if self.direction is not None and scale_problem(self.alpha, self.direction.norm):
            raise ValueError(scale_problem(self.alpha, self.direction.norm))

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


@contextlib.contextmanager
def installed(interventions: Sequence[Intervention], sites: InterventionSites, ctx: RunContext) -> Iterator[None]:
    """The interventions' hooks on ``sites`` for the duration of one run; removed however it ends."""
    handles = []
    try:
        for intervention in interventions:
            handles.extend(intervention.install(sites, ctx))
        yield
    finally:
        for handle in handles:
            handle.remove()


def needs_pairing(interventions: Sequence[Intervention]) -> AudioSource | None:
    """The one source the interventions share, or None; two different sources cannot share a batch."""
    sources = {i.source.id: i.source for i in interventions if i.source is not None}
    if len(sources) > 1:
        raise ValueError(f"interventions use different sources ({', '.join(sources)}); one paired source per variant")
    return next(iter(sources.values()), None)

