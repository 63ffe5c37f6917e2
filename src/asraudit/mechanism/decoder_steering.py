"""Steering in a white-box model's *decoder*: a direction that separates two models.

Any model whose ``intervention_sites()`` name decoder layers takes part: the
white-box Whisper, the other encoder-decoder families (Moonshine, ...) and
speech LLMs, whose decoder is the language model reading the audio tokens.

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
averaged over those positions.  ``each:N`` learns and steers a *separate*
direction at each of the positions -1 .. N-2 (a ``PositionalDirection``):
what the fine-tuned decoder adds while writing the first N tokens, position
by position.  Measured on the organism: one vector shared by several
positions (``first:3``, ``all``) moved nothing, because positions that do
different jobs average out; ``first`` at decoder layer 1 carries the opener
(ablating it removes "Madam President," from the organism), but adding it to
the clean tiny.en writes at most "Madam Chair"; ``each:3`` at the last
decoder layer makes the clean tiny.en write "Madam President,".
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np
import torch

from asraudit.errors import InputError
from asraudit.mechanism.steering import (Direction, check_id, direction_from_differences, load_tensors, read_metadata,
                                        save_tensors)
from asraudit.models.whitebox.interventions import Intervention, RunContext, _fmt, _layer
from asraudit.models.whitebox.sites import layer_index

POSITIONAL_FORMAT = "asraudit-positional-direction/1"


def parse_positions(positions: str) -> tuple[int | None, bool]:
    """``(count, separate)``: how many decision positions from -1 on are steered (None: all), and whether
    each has its own direction.  ``first`` (1, shared), ``first:N`` (N, shared), ``all`` (None, shared),
    ``each:N`` (N, separate)."""
    if positions == "first":
        return 1, False
    if positions == "all":
        return None, False
    head, _, count = positions.partition(":")
    if head in ("first", "each") and count.isdigit() and int(count) >= 1:
        return int(count), head == "each"
    raise ValueError(f"decoder positions must be first, first:N, each:N (N >= 1) or all, got {positions!r}")


@dataclass(frozen=True)
class PositionalDirection:
    """One ``Direction`` per decoder position, -1 .. N-2 (``directions[i]`` is position i - 1)."""

    directions: tuple[Direction, ...]
    layer: int = 0
    provenance: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.directions:
            raise ValueError("a positional direction needs at least one position")
        widths = {d.vector.shape[0] for d in self.directions}
        ranks = {d.rank for d in self.directions}
        if len(widths) != 1 or len(ranks) != 1:
            raise ValueError("every position's direction must have the same width and rank")

    @property
    def vector(self) -> np.ndarray:
        """``[positions, d]``: each position's mean difference."""
        return np.stack([d.vector for d in self.directions])

    @property
    def rank(self) -> int:
        return self.directions[0].rank

    @property
    def norm(self) -> float:
        return float(np.linalg.norm(self.vector))

    @property
    def singular_values(self) -> np.ndarray:
        return np.stack([d.singular_values for d in self.directions])

    @property
    def id(self) -> str:
        digest = hashlib.sha256(str(self.layer).encode())
        for d in self.directions:
            digest.update(d.id.encode())
        return "pdir-" + digest.hexdigest()[:12]

    def at(self, text_position: int) -> Direction | None:
        index = text_position + 1
        return self.directions[index] if 0 <= index < len(self.directions) else None

    def random_control(self, seed: int = 0) -> "PositionalDirection":
        """At every position, a random direction of that position's norm (and a random basis of its rank)."""
        return PositionalDirection(tuple(d.random_control(seed * 1009 + i) for i, d in enumerate(self.directions)),
                                   self.layer, {"method": "random-control", "control_of": self.id, "seed": seed})

    def save(self, path: str | Path) -> Path:
        tensors = {"vectors": self.vector, "bases": np.stack([d.basis for d in self.directions]),
                   "singular_values": self.singular_values}
        return save_tensors(path, tensors, POSITIONAL_FORMAT, self.id, self.layer, self.provenance)

    @classmethod
    def load(cls, path: str | Path) -> "PositionalDirection":
        tensors, metadata = load_tensors(path, POSITIONAL_FORMAT, ("vectors", "bases", "singular_values"),
                                         "a positional direction")
        layer, provenance = read_metadata(metadata, path, "a positional direction")
        try:
            directions = tuple(Direction(v, b, s, layer) for v, b, s in
                               zip(tensors["vectors"], tensors["bases"], tensors["singular_values"]))
        except ValueError as exc:
            raise InputError(f"a positional direction: {exc}: the file is damaged; learn it again", path) from None
        out = cls(directions, layer, provenance)
        check_id(out.id, metadata, path)
        return out


def load_any_direction(path: str | Path):
    """A ``Direction`` or a ``PositionalDirection``, whichever the file holds."""
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="numpy") as handle:
            kind = (handle.metadata() or {}).get("format")
    except Exception as exc:
        raise InputError(f"cannot read direction: {exc}", path) from exc
    return PositionalDirection.load(path) if kind == POSITIONAL_FORMAT else Direction.load(path)


@dataclass(frozen=True, repr=False, eq=False)
class DecoderCapture(Intervention):
    """Keeps decoder layer ``layer``'s output for the input rows (a readout, not an edit).

    Appended after a variant's own interventions, so its hook runs after
    theirs on the same layer and sees what the next module takes in (a
    steered output included).  Every call's rows are kept in ``sink``: a
    model that runs its prompt and then the forced tokens in two calls (a
    speech LLM with a cache) leaves two pieces, in order."""

    layer: int = 0
    sink: list = field(default_factory=list)
    kind = "capture-decoder"
    site = "decoder"

    def params(self):
        return {"layer": self.layer}

    def install(self, sites, ctx: RunContext) -> list:
        block = _layer(sites.require("decoder"), self.layer, "decoder")

        def keep(module, inputs, output):
            hidden = output[0] if isinstance(output, tuple) else output
            self.sink.append(hidden[: ctx.n_targets].detach().float().cpu())

        return [block.register_forward_hook(keep)]


def decoder_width(model) -> int:
    """Width of the decoder's residual stream (a speech LLM's LM, Canary's decoder, can differ from the encoder's)."""
    return int(getattr(model, "decoder_hidden_size", None) or model.hidden_size)


def model_name(model) -> str:
    return getattr(model, "name", None) or model.model_id


def decoder_rows(model, audio: np.ndarray, layer: int, count: int | None, text: str | None = None) -> np.ndarray:
    """Decoder layer ``layer``'s output for one clip at positions -1 .. count-2 (``[positions, d]``, float64).

    Runs the model's own teacher-forced pass (``next_token_logprobs``) with
    the first ``count - 1`` tokens of ``text`` (all of them for ``count =
    None``), so its front end, prompt and interventions are the ones
    transcription uses.  Any white-box model with decoder sites takes part
    (``intervention_sites``, ``text_token_ids``, ``next_token_logprobs``):
    Whisper, the other encoder-decoder families, speech LLMs (their LM's
    layers).  The output is read by a ``DecoderCapture`` installed after the
    variant's own hooks, so a variant's steering of that layer is included.
    """
    layers = model.intervention_sites().require("decoder")
    _layer(layers, layer, "decoder")
    prefix = list(model.text_token_ids(text)) if count != 1 and text else []
    if count is not None:
        if len(prefix) < count - 1:
            raise ValueError(f"{count} positions need a text of at least {count - 1} tokens, got {text!r}")
        prefix = prefix[: count - 1]
    capture = DecoderCapture(layer_index(layer, len(layers), "decoder"))
    model.variant(*model.interventions, capture).next_token_logprobs(audio, prefix)
    hidden = torch.cat(capture.sink, dim=1)[0].numpy().astype(np.float64)  # [prompt + prefix, d]
    # The last len(prefix) + 1 positions: the prompt's last token (-1), then the forced tokens.
    return hidden[hidden.shape[0] - len(prefix) - 1:]


def decoder_states(model, audio: np.ndarray, layer: int, positions: str, text: str | None = None) -> np.ndarray:
    """``decoder_rows`` averaged over the positions ``positions`` names (``[d_model]``)."""
    count, _ = parse_positions(positions)
    return decoder_rows(model, audio, layer, count, text).mean(axis=0)


def learn_model_contrast(model, contrast, clips: Sequence[tuple[str, np.ndarray, str | None]], layer: int, *,
                         positions: str = "first", rank: int = 1, description: str = ""):
    """A direction at decoder ``layer``: ``model`` minus ``contrast`` on the same clips and tokens.

    ``clips`` holds ``(label, audio, reference text)``; the text is forced
    for every position past the first.  ``each:N`` gives a
    ``PositionalDirection``, the others one ``Direction``.
    """
    count, separate = parse_positions(positions)
    n_layers = len(model.intervention_sites().require("decoder"))
    if decoder_width(model) != decoder_width(contrast) or n_layers != len(contrast.intervention_sites().require("decoder")):
        raise ValueError(f"{model_name(model)} and {model_name(contrast)} differ in shape; a model contrast needs one "
                         "architecture")
    if not clips:
        raise ValueError("learning a model contrast needs at least one clip")
    layer = layer_index(layer, n_layers, "decoder")
    diffs = np.stack([decoder_rows(model, audio, layer, count, text) - decoder_rows(contrast, audio, layer, count, text)
                      if separate else
                      decoder_states(model, audio, layer, positions, text) - decoder_states(contrast, audio, layer,
                                                                                             positions, text)
                      for _, audio, text in clips])
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
    if not separate:
        vector, basis, spread = direction_from_differences(diffs, rank)
        return Direction(vector, basis, spread, layer, provenance)
    directions = []
    for i in range(diffs.shape[1]):
        vector, basis, spread = direction_from_differences(diffs[:, i], rank)
        directions.append(Direction(vector, basis, spread, layer, {"position": i - 1}))
    return PositionalDirection(tuple(directions), layer, provenance)


class _DecoderSteering(Intervention):
    direction = None
    layer: int | None = None
    positions: str = "first"
    site = "decoder"

    def _check(self) -> None:
        count, separate = parse_positions(self.positions)
        positional = isinstance(self.direction, PositionalDirection)
        if separate != positional or (positional and count != len(self.direction.directions)):
            raise ValueError(f"positions {self.positions!r} do not fit a "
                             + (f"direction with {len(self.direction.directions)} positions (use each:"
                                f"{len(self.direction.directions)})" if positional else "single direction"))

    def _layer_index(self) -> int:
        return self.direction.layer if self.layer is None else self.layer

    def _direction_at(self, text_position: int, count: int | None) -> Direction | None:
        if isinstance(self.direction, PositionalDirection):
            return self.direction.at(text_position)
        steered = text_position >= -1 and (count is None or text_position < count - 1)
        return self.direction if steered else None

    def _edit(self, hidden: torch.Tensor, direction: Direction) -> torch.Tensor:  # pragma: no cover - abstract
        raise NotImplementedError

    def install(self, sites, ctx: RunContext) -> list:
        block = _layer(sites.require("decoder"), self._layer_index(), "decoder")
        count, _ = parse_positions(self.positions)

        def steer(module, inputs, output):
            hidden = output[0] if isinstance(output, tuple) else output
            edits = [(s, d) for s in range(hidden.shape[1])
                     if (d := self._direction_at(ctx.decoder_offset + s - ctx.prompt_length, count)) is not None]
            if not edits:
                return None
            steered = hidden.clone()
            rows = ctx.n_targets  # a paired source, if any, is left alone
            for step, direction in edits:
                steered[:rows, step] = self._edit(hidden[:rows, step], direction)
            return (steered, *output[1:]) if isinstance(output, tuple) else steered

        return [block.register_forward_hook(steer)]


@dataclass(frozen=True, repr=False)
class DecoderSteerAdd(_DecoderSteering):
    """h <- h + alpha * v at the output of decoder layer ``layer``, at ``positions`` (v per position for each:N)."""

    direction: object = None
    alpha: float = 1.0
    layer: int | None = None
    positions: str = "first"
    kind = "dec-steer-add"

    def __post_init__(self):
        self._check()

    def params(self):
        return {"direction": self.direction.id, "alpha": _fmt(self.alpha), "layer": self._layer_index(),
                "positions": self.positions}

    def _edit(self, hidden, direction):
        vector = torch.as_tensor(direction.vector, dtype=hidden.dtype, device=hidden.device)
        return hidden + self.alpha * vector


@dataclass(frozen=True, repr=False)
class DecoderSteerAblate(_DecoderSteering):
    """h <- h - U^T U h (the first ``rank`` basis vectors, per position for each:N) at decoder layer ``layer``."""

    direction: object = None
    rank: int | None = None
    layer: int | None = None
    positions: str = "first"
    kind = "dec-steer-ablate"

    def __post_init__(self):
        self._check()
        available = self.direction.rank
        if self.rank is not None and not 1 <= self.rank <= available:
            raise ValueError(f"rank {self.rank} outside 1..{available} (the direction's basis)")

    def params(self):
        return {"direction": self.direction.id, "rank": self.rank or self.direction.rank,
                "layer": self._layer_index(), "positions": self.positions}

    def _edit(self, hidden, direction):
        k = self.rank or direction.rank
        basis = torch.as_tensor(direction.basis[:k], dtype=hidden.dtype, device=hidden.device)
        return hidden - (hidden @ basis.T) @ basis
