"""Where an intervention can act: the layers of a white-box model, family by family.

Interventions (``interventions.py``) used to reach into Whisper's module tree
(``model.model.encoder.layers``).  Every white-box family instead hands them
an ``InterventionSites``: the same hooks then run on any architecture that
can name its encoder layers, its decoder layers, the modules through which
the text side reads the audio (cross-attention in an encoder-decoder model)
and, for speech LLMs, the projector that maps audio features into the
language model.  A family that lacks a site leaves it empty, and an
intervention that needs it says so instead of hooking the wrong module.

Torch-free on purpose: the modules are held as plain objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from asraudit.errors import InputError


def layer_index(layer: int, n_layers: int, what: str) -> int:
    """``layer`` (0-based; a negative one counts from the last, -1 the last) as an index into ``n_layers`` layers.

    The one place a layer number is resolved: ``layer % n_layers`` alone wrapped any number onto a layer, so
    ``steer learn --layer 99`` on a 4-layer encoder learned at layer 3 and said so only in its last line."""
    if not -n_layers <= layer < n_layers:
        raise InputError(f"{what} layer {layer} does not exist (the model has {n_layers}: 0..{n_layers - 1}, "
                         f"or -{n_layers}..-1 counted from the last)")
    return layer % n_layers


@dataclass(frozen=True)
class InterventionSites:
    """The hookable modules of one white-box model.

    ``encoder_layers``: the audio encoder's blocks, in order; a block's output
    is the residual stream steering edits and encoder patches replace.
    ``decoder_layers``: the text decoder's (or language model's) blocks.
    ``cross_attention``: per decoder layer, the attention module whose keys
    are audio frames (empty for models without cross-attention).
    ``projector``: the audio-to-text projector of a speech LLM (None elsewhere).
    ``audio_in_decoder``: the decoder reads the audio as tokens of its own
    input (a speech LLM's language model), so its layers have audio positions
    a patch can replace (site "decoder-audio").
    """

    family: str
    encoder_layers: Sequence[object]
    decoder_layers: Sequence[object] = ()
    cross_attention: Sequence[object] = ()
    projector: object | None = None
    audio_in_decoder: bool = False

    def names(self) -> tuple[str, ...]:
        """The sites this model offers, for tables and error messages."""
        have = []
        if self.encoder_layers:
            have.append(f"encoder layers 0..{len(self.encoder_layers) - 1}")
        if self.decoder_layers:
            have.append(f"decoder layers 0..{len(self.decoder_layers) - 1}")
        if self.cross_attention:
            have.append("cross-attention")
        if self.projector is not None:
            have.append("projector")
        if self.audio_in_decoder and self.decoder_layers:
            have.append("decoder audio positions")
        return tuple(have)

    def require(self, site: str) -> Sequence[object]:
        """The modules of ``site`` ("encoder", "decoder", "cross-attention", "projector", "decoder-audio"),
        or a ValueError naming what exists."""
        stacks = {"encoder": self.encoder_layers, "decoder": self.decoder_layers, "cross-attention": self.cross_attention,
                  "projector": () if self.projector is None else (self.projector,),
                  "decoder-audio": self.decoder_layers if self.audio_in_decoder else ()}
        if site not in stacks:
            raise ValueError(f"unknown intervention site {site!r}: one of {', '.join(stacks)}")
        if not stacks[site]:
            offered = ", ".join(self.names()) or "none"
            raise ValueError(f"a {self.family} model has no {site} site (it offers: {offered})")
        return stacks[site]
