"""A transducer's white-box side: its decoder site (the prediction network's output per label
position), the readout a decoder capture rides on, and encoder activations.

A Parakeet transducer's decoder is its prediction network: an LSTM over the
labels emitted so far (started from the blank symbol), projected to ``g_u``,
which the joint network adds to every encoder frame's ``f_t``.  ``g_u`` is
the decoder's whole message to the joint, so it is the site decoder
interventions act on (``InterventionSites.decoder_layers`` holds one
"layer": this site).  Positions follow ``ActivationPatch``'s text positions:
``g`` after the start symbol alone is position -1 (it predicts the first
label), ``g`` after label ``k`` (1-based) is position ``k - 1``; the start
symbol is the one-token "prompt" (``RunContext.prompt_length = 1``).

An edit of ``g_u`` reaches the joint only; the LSTM's recurrent state runs
on unedited, since the joint is the only reader of ``g_u`` in the network.

Why an identity module rather than a hook on ``decoder_projector``: the
decoders here run rows that sit at *different* label positions in one call
(greedy decoding advances each row on its own; beam hypotheses differ in
length), while an intervention's hook reads one ``decoder_offset`` per call.
``PredictionSite.apply`` therefore passes ``g`` through the identity module
once per distinct position among the rows and keeps each row's own result.

Paired runs (an activation patch): the source half is fed the target's
labels, as encoder-decoder models do.  The prediction network does not read
the audio, so the source half's ``g`` *equals* the target's: a decoder-site
patch from any audio source leaves the model unchanged, by construction of a
transducer (what the audio changes is the encoder side, ``f_t``; patch the
encoder layers for that).  The site still runs paired, so a patch's hook
finds its rows where it expects them.
"""

from __future__ import annotations

import contextlib
from typing import Iterator, Sequence

import torch
from torch import nn

from asraudit.models.whitebox.frames import RunContext
from asraudit.models.whitebox.sites import layer_index


class _PredictionOutput(nn.Module):
    """Identity: the hook point for ``g`` (``[rows, positions, decoder_hidden_size]``)."""

    def forward(self, g: torch.Tensor) -> torch.Tensor:
        return g


def is_decoder_intervention(intervention) -> bool:
    return getattr(intervention, "site", None) == "decoder"


class PredictionSite:
    """The decoder site of one transducer and the context its hooks read."""

    def __init__(self, paired: bool):
        self.module = _PredictionOutput()
        self.paired = paired
        self.ctx = RunContext(n_targets=0, audio_frames=[], paired=paired, prompt_length=1)

    @property
    def hooked(self) -> bool:
        return bool(self.module._forward_hooks)

    @contextlib.contextmanager
    def installed(self, interventions: Sequence, sites) -> Iterator[None]:
        """The decoder-site interventions' hooks, for one decode or scoring run."""
        handles = []
        try:
            for intervention in interventions:
                if is_decoder_intervention(intervention):
                    handles.extend(intervention.install(sites, self.ctx))
            yield
        finally:
            for handle in handles:
                handle.remove()

    def apply(self, g: torch.Tensor, offsets: Sequence[int]) -> torch.Tensor:
        """``g`` (``[rows, positions, d]``) after the site's hooks; row ``i``'s first position is the
        absolute position ``offsets[i]`` (labels emitted before it, the start symbol being position 0)."""
        if not self.hooked:
            return g
        rows = g.shape[0]
        x = torch.cat([g, g]) if self.paired else g
        self.ctx.n_targets = rows
        out = g.clone()
        for offset in sorted(set(int(o) for o in offsets)):
            self.ctx.decoder_offset = offset
            edited = self.module(x)
            take = torch.tensor([int(o) == offset for o in offsets], device=g.device)
            out[take] = edited[:rows][take]
        return out


def next_symbol_logprobs(model, audio, prefix: Sequence[int]):
    """Per encoder frame, the log-probabilities of the next symbol (the labels, blank last) after ``prefix``.

    A transducer has no single next-token distribution: the joint gives one
    per frame, ``[frames, vocabulary]``.  The run is the readout a decoder
    capture rides on (``mechanism.decoder_steering.decoder_rows``): the
    prediction network reads the start symbol and ``prefix`` in one call, so
    the site sees positions -1 .. len(prefix) - 1, with the variant's hooks."""
    import numpy as np

    audio = np.asarray(audio, dtype=np.float32)
    with torch.inference_mode(), model._decoder_hooks():
        memory, (n_frames,) = model._encode([audio])
        ids = torch.tensor([[model.blank] + [int(i) for i in prefix]], device=memory.device)
        g = model._site.apply(model._predict(ids)[0], [0])[0]
        logits = model.model.joint(decoder_hidden_states=g[-1:][None], encoder_hidden_states=memory[0, :n_frames, None])
        tokens, _ = model._split(logits)
    return tokens[:, 0].double().cpu().numpy()


def encoder_activations(model, audio, layers: Sequence[int]) -> dict:
    """Outputs of encoder ``layers``, ``[clips, frames, d_model]`` each, with the variant's interventions.

    Clips are encoded one at a time, so no clip's activations depend on another's padding;
    a shorter clip's rows past its own frames are zero."""
    import numpy as np

    n_layers = len(model.model.encoder.layers)
    wanted = sorted({layer_index(layer, n_layers, "encoder") for layer in layers})
    captured: dict[int, list[np.ndarray]] = {layer: [] for layer in wanted}
    with torch.inference_mode():
        for clip in audio:
            model._encode([clip], captured)
    width = max((a.shape[1] for a in captured[wanted[0]]), default=0) if wanted else 0
    out = {}
    for layer, chunks in captured.items():
        stacked = np.zeros((len(chunks), width, chunks[0].shape[-1]) if chunks else (0, 0, 0), dtype=np.float32)
        for i, chunk in enumerate(chunks):
            stacked[i, : chunk.shape[1]] = chunk[0]
        out[layer] = stacked
    return out
