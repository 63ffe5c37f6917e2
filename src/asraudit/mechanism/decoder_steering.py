"""Steering in the white-box Whisper's *decoder*: a direction that separates two models.

An encoder direction can only move what the encoder writes; a behaviour a
fine-tune put into the decoder's weights (the model organism's adapter is
decoder-only) is invisible to it in a clean model whose decoder never learned
to act on it.  The decoder-side question is different: on the same audio and
the same tokens, what does the fine-tuned decoder's residual stream carry that
the clean one's does not?

* ``learn_model_contrast``: for each clip, both models read the same audio and
  are teacher-forced with the same tokens; the output of decoder layer L is
  taken at the chosen positions (averaged per clip) and the difference
  (model minus contrast) is turned into a ``Direction`` exactly as paired
  input differences are (diff-in-means + principal directions).  The two
  models must share their architecture (the organism and the tiny.en it was
  fine-tuned from do).
* ``DecoderSteerAdd`` / ``DecoderSteerAblate``: add the direction with scale
  alpha, or project its subspace out, at the output of decoder layer L, at the
  same positions.

Positions are text positions as in ``ActivationPatch``: -1 is the last
prompt token (whose output predicts the first word), 0 the first text token.
``first`` steers only position -1 (where a benchmark-optimized model decides
to open with "Madam President,"), and learns from it with nothing forced but
the prompt; ``first:N`` steers positions -1 .. N-2 and ``all`` every position
from -1 on, both learned teacher-forced with the clip's reference text and
averaged over those positions.  One vector for every position is a blunt
tool: measured on the organism, ``first`` moved its opener and ``first:3``
or ``all`` (averaging positions that do different jobs) moved nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch

from asraudit.mechanism.steering import Direction, direction_from_differences
from asraudit.models.whitebox.interventions import Intervention, RunContext, _fmt, _layer

def parse_positions(positions: str) -> int | None:
    """How many decision positions, from -1 on, ``positions`` steers: ``first`` 1, ``first:N`` N, ``all`` None."""
    if positions == "first":
        return 1
    if positions == "all":
        return None
    head, _, count = positions.partition(":")
    if head == "first" and count.isdigit() and int(count) >= 1:
        return int(count)
    raise ValueError(f"decoder positions must be first, first:N (N >= 1) or all, got {positions!r}")


def _check_positions(positions: str) -> None:
    parse_positions(positions)


def _steered(text_position: int, count: int | None) -> bool:
    return text_position >= -1 and (count is None or text_position < count - 1)


def decoder_states(model, audio: np.ndarray, layer: int, positions: str, text: str | None = None) -> np.ndarray:
    """Decoder layer ``layer``'s output for one clip, averaged over ``positions`` (``[d_model]``, float64).

    Runs the model's own teacher-forced pass (``next_token_logprobs``), so its
    front end, prompt and interventions are the ones transcription uses.  The
    output is read where the next module takes it in (the next layer, or the
    final layer norm), so a variant's own steering of that layer is included.
    """
    count = parse_positions(positions)
    layers = model.hf.model.decoder.layers
    index = layer % len(layers)
    _layer(layers, layer, "decoder")
    consumer = layers[index + 1] if index + 1 < len(layers) else model.hf.model.decoder.layer_norm
    prefix = list(model.tokenizer.encode(text).ids) if count != 1 and text else []
    if count is not None:
        prefix = prefix[: count - 1]
    captured: list[torch.Tensor] = []

    def keep(module, args, kwargs):
        hidden = args[0] if args else kwargs["hidden_states"]
        captured.append(hidden[0].detach().float().cpu())

    handle = consumer.register_forward_pre_hook(keep, with_kwargs=True)
    try:
        model.next_token_logprobs(audio, prefix)
    finally:
        handle.remove()
    hidden = captured[-1].numpy().astype(np.float64)  # [prompt + prefix, d]
    first = len(model.prompt()) - 1
    return hidden[first:].mean(axis=0)


def learn_model_contrast(model, contrast, clips: Sequence[tuple[str, np.ndarray, str | None]], layer: int, *,
                         positions: str = "first", rank: int = 1, description: str = "") -> Direction:
    """A direction at decoder ``layer``: ``model`` minus ``contrast`` on the same clips and tokens.

    ``clips`` holds ``(label, audio, reference text)``; the text is forced
    only for ``positions = "all"``.
    """
    _check_positions(positions)
    if model.hf.config.d_model != contrast.hf.config.d_model or \
            len(model.hf.model.decoder.layers) != len(contrast.hf.model.decoder.layers):
        raise ValueError(f"{model.name} and {contrast.name} differ in shape; a model contrast needs one architecture")
    if not clips:
        raise ValueError("learning a model contrast needs at least one clip")
    n_layers = len(model.hf.model.decoder.layers)
    layer = layer % n_layers
    diffs = np.stack([decoder_states(model, audio, layer, positions, text)
                      - decoder_states(contrast, audio, layer, positions, text) for _, audio, text in clips])
    vector, basis, spread = direction_from_differences(diffs, rank)
    provenance = {
        "method": "model-contrast diff-in-means" + ("" if rank == 1 else f"+pca(rank={rank})"),
        "site": "decoder",
        "model": model.model_id,
        "model_config": model.config_hash,
        "contrast": contrast.model_id,
        "contrast_config": contrast.config_hash,
        "layer": layer,
        "positions": positions,
        "n_pairs": len(clips),
        "pairs": [label for label, _, _ in clips],
        "description": description,
    }
    return Direction(vector, basis, spread, layer, provenance)


class _DecoderSteering(Intervention):
    direction = None
    layer: int | None = None
    positions: str = "first"

    def _layer_index(self) -> int:
        return self.direction.layer if self.layer is None else self.layer

    def _edit(self, hidden: torch.Tensor) -> torch.Tensor:  # pragma: no cover - abstract
        raise NotImplementedError

    def install(self, model, ctx: RunContext) -> list:
        block = _layer(model.model.decoder.layers, self._layer_index(), "decoder")
        count = parse_positions(self.positions)

        def steer(module, inputs, output):
            hidden = output[0] if isinstance(output, tuple) else output
            steps = [s for s in range(hidden.shape[1]) if _steered(ctx.decoder_offset + s - ctx.prompt_length, count)]
            if not steps:
                return None
            steered = hidden.clone()
            rows = ctx.n_targets  # a paired source, if any, is left alone
            steered[:rows, steps] = self._edit(hidden[:rows, steps])
            return (steered, *output[1:]) if isinstance(output, tuple) else steered

        return [block.register_forward_hook(steer)]


@dataclass(frozen=True, repr=False)
class DecoderSteerAdd(_DecoderSteering):
    """h <- h + alpha * v at the output of decoder layer ``layer``, at ``positions``."""

    direction: object = None
    alpha: float = 1.0
    layer: int | None = None
    positions: str = "first"
    kind = "dec-steer-add"

    def __post_init__(self):
        _check_positions(self.positions)

    def params(self):
        return {"direction": self.direction.id, "alpha": _fmt(self.alpha), "layer": self._layer_index(),
                "positions": self.positions}

    def _edit(self, hidden):
        vector = torch.as_tensor(self.direction.vector, dtype=hidden.dtype, device=hidden.device)
        return hidden + self.alpha * vector


@dataclass(frozen=True, repr=False)
class DecoderSteerAblate(_DecoderSteering):
    """h <- h - U^T U h (the direction's first ``rank`` basis vectors) at decoder layer ``layer``, at ``positions``."""

    direction: object = None
    rank: int | None = None
    layer: int | None = None
    positions: str = "first"
    kind = "dec-steer-ablate"

    def __post_init__(self):
        _check_positions(self.positions)
        available = self.direction.basis.shape[0]
        if self.rank is not None and not 1 <= self.rank <= available:
            raise ValueError(f"rank {self.rank} outside 1..{available} (the direction's basis)")

    def params(self):
        return {"direction": self.direction.id, "rank": self.rank or self.direction.basis.shape[0],
                "layer": self._layer_index(), "positions": self.positions}

    def _edit(self, hidden):
        k = self.rank or self.direction.basis.shape[0]
        basis = torch.as_tensor(self.direction.basis[:k], dtype=hidden.dtype, device=hidden.device)
        return hidden - (hidden @ basis.T) @ basis
