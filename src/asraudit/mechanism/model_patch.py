"""Activation patching between two models: one model's decoder reading the other's encoder.

Is a fine-tuned behaviour in the encoder or in the decoder?  For a
fine-tune (the model organisms' adapters) the question has a direct test:
run the fine-tuned model with the output of encoder layer ``layer``
replaced by the *base* model's output on the same input (``EncoderFrom``).
What the fine-tuned model still does then lives in its decoder (or below
``layer``); what it stops doing was carried by its encoder.  The reverse
variant, the base model reading the fine-tuned model's encoder, asks whether
the fine-tuned encoder alone is enough to make a clean decoder do it.
Read edit kind by edit kind (``audit.mechanism_curves.by_kind_rows``) it
answers the paper's question: do insertions live in the encoder and
deletions and substitutions in the decoder?

The source's layers are run on the target's own input to layer 0 (the
convolutional front end's output plus positions), so the two models must
share that front end: a fine-tune that adapted only encoder blocks and the
decoder does; ``same_front_end`` checks it before a variant is made.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from asraudit.models.whitebox.interventions import Intervention, RunContext, _layer
from asraudit.models.whitebox.sites import layer_index

FRONT_END = ("conv1", "conv2", "embed_positions")


def same_front_end(a, b) -> bool:
    """Whether two white-box Whispers compute the same input to encoder layer 0 (same weights, same shapes)."""
    ea, eb = a.hf.model.encoder, b.hf.model.encoder
    for name in FRONT_END:
        pa, pb = dict(getattr(ea, name).named_parameters()), dict(getattr(eb, name).named_parameters())
        if pa.keys() != pb.keys() or any(pa[k].shape != pb[k].shape or not torch.equal(pa[k], pb[k]) for k in pa):
            return False
    return len(ea.layers) == len(eb.layers)


@dataclass(frozen=True, repr=False)
class EncoderFrom(Intervention):
    """The output of encoder layer ``layer`` replaced by ``source``'s (another white-box Whisper) on the same input."""

    source_model: object = field(default=None, compare=False)
    layer: int = -1
    kind = "encoder-from"

    def __post_init__(self):
        if self.source_model is None:
            raise ValueError("an encoder patch between models needs the model the activations come from")

    def params(self):
        return {"from": self.source_model.model_id, "from_config": self.source_model.config_hash,
                "layer": self.layer}

    def install(self, sites, ctx: RunContext) -> list:
        layers = sites.require("encoder")
        target = _layer(layers, self.layer, "encoder")
        index = layer_index(self.layer, len(layers), "encoder")
        donor_layers = self.source_model.hf.model.encoder.layers
        held: dict[str, torch.Tensor] = {}

        def keep_input(module, args, kwargs):
            held["h"] = args[0] if args else kwargs["hidden_states"]

        def replace(module, inputs, output):
            hidden = output[0] if isinstance(output, tuple) else output
            h = held.pop("h").to(hidden.dtype)
            with torch.no_grad():
                for block in donor_layers[: index + 1]:
                    h = block(h, None)
                    h = h[0] if isinstance(h, tuple) else h
            return (h, *output[1:]) if isinstance(output, tuple) else h

        return [layers[0].register_forward_pre_hook(keep_input, with_kwargs=True),
                target.register_forward_hook(replace)]
