"""White-box speech LLMs: intervention sites, paired runs and the hooks' context (``HFSpeechLLM``'s mixin).

A speech LLM reads the audio as tokens of its prompt: the audio encoder's
frames, pooled and mapped by the projector into the language model's width,
replace the prompt's audio placeholders.  Its sites (``SITE_MAPS``: where a
family keeps them) are the audio encoder's blocks, the projector and the
language model's blocks; the LM's audio positions are a site of their own
("decoder-audio"), since there the LM holds the audio the way Whisper's
cross-attention keys do.

A *paired* variant (an activation patch) runs, as the white-box Whisper
does, the inputs in rows ``[0, n)`` and their sources in rows ``[n, 2n)`` of
one batch: the source rows go through the encoder, the projector and the
LM's prompt together with the inputs, and are then teacher-forced with the
inputs' tokens (in generation a logits processor makes each source row take
its input row's argmax; in scoring the candidates are fed to both halves),
so a patch copies activations of the very computation its input is in.

Hooks learn where they are from a ``RunContext``: the encoder's frames
(Qwen2-Audio's Whisper-style encoder: 20 ms, 1500 per 30-s window), the
prompt's audio tokens (``AudioTokens``: positions per row, 40 ms each), the
prompt length and, from a pre-hook on the first LM block that reads the
cache length, the absolute position of each LM call (``decoder_offset``), so
decoder-site steering counts text positions as it does on Whisper.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np

from asraudit.errors import InputError
from asraudit.models.whitebox.frames import (
    WHISPER_FRAMES,
    AudioTokens,
    FrameGeometry,
    RunContext,
    audio_frames,
    changed_frames,
)
from asraudit.models.whitebox.sites import layer_index


@dataclass(frozen=True)
class SpeechLLMSites:
    """Where one family keeps its hookable parts (attribute paths from the ``...ForConditionalGeneration``)."""

    encoder_layers: str
    decoder_layers: str
    projector: str
    encoder_geometry: FrameGeometry  # the audio encoder blocks' frames
    token_geometry: FrameGeometry  # the projector's outputs = the prompt's audio tokens
    encoder_width: str  # the config attribute (path from the model's config) giving the encoder blocks' width


SITE_MAPS = {
    # Whisper-style encoder (20-ms frames, padded to 1500), average-pooled by 2 before the projector: 40-ms tokens,
    # as many as the clip fills (the processor expands the placeholder to that count).
    "qwen2_audio": SpeechLLMSites("model.audio_tower.layers", "model.language_model.layers", "model.multi_modal_projector",
                                  WHISPER_FRAMES, FrameGeometry(640, 750), "audio_config.d_model"),
    # Conformer over stacked pairs of 10-ms mel frames (20 ms each, as many as the batch's longest clip); the
    # Q-Former projector reads windows of 15 frames into 3 queries: one audio token per 5 frames, 100 ms.
    "granite_speech": SpeechLLMSites("model.encoder.layers", "model.language_model.layers", "model.projector",
                                     FrameGeometry(320, None), FrameGeometry(1600, None), "encoder_config.hidden_dim"),
}
# Families whose audio encoder's batch rows are clips, one window each (so hooks edit the right rows).
WHITEBOX_FAMILIES = tuple(SITE_MAPS)


def _attribute(root, path: str):
    for name in path.split("."):
        root = getattr(root, name)
    return root


class _FollowTheInputs:
    """A logits processor for paired generation: source row ``n + i`` takes row ``i``'s argmax.

    It must run last (``generate`` appends a caller's processors after its
    own), so the token a source is forced with is the one its input chose."""

    def __init__(self, n: int):
        self.n = n

    def __call__(self, input_ids, scores):
        import torch

        n = self.n
        chosen = scores[:n].argmax(dim=-1, keepdim=True)
        forced = torch.full_like(scores[n:], -torch.inf).scatter_(1, chosen, 0.0)
        return torch.cat([scores[:n], forced])


class SpeechLLMWhitebox:
    """The white-box half of ``HFSpeechLLM``: sites, hooks' context, paired rows, activations."""

    interventions: tuple = ()

    # -- sites ------------------------------------------------------------

    @property
    def _site_map(self) -> SpeechLLMSites:
        model_type = self.model.config.model_type
        if model_type not in SITE_MAPS:
            # Steering edits encoder rows as clips; Qwen3-ASR and GLM-ASR batch chunks of clips
            # instead, and the others are not mapped, so they offer no sites rather than wrong ones.
            raise ValueError(f"{self.model_id}: white-box sites are mapped for {', '.join(WHITEBOX_FAMILIES)} "
                             f"speech LLMs, not {model_type}")
        return SITE_MAPS[model_type]

    def intervention_sites(self):
        """The audio encoder's blocks, the language model's blocks (and their audio positions), the projector."""
        from asraudit.models.whitebox.sites import InterventionSites

        paths = self._site_map
        return InterventionSites(
            family=self.model.config.model_type,
            encoder_layers=_attribute(self.model, paths.encoder_layers),
            decoder_layers=_attribute(self.model, paths.decoder_layers),
            projector=_attribute(self.model, paths.projector),
            audio_in_decoder=True,
        )

    @property
    def frame_geometry(self) -> FrameGeometry:
        """The audio encoder blocks' frames (what encoder steering and ``Frames`` in seconds refer to)."""
        return self._site_map.encoder_geometry

    @property
    def window_seconds(self) -> float:
        """The longest input answered in one pass; a longer clip is cut into windows."""
        return float(self.max_seconds)

    @property
    def max_new_tokens(self) -> int:
        """The most tokens one window's answer holds (its end token included)."""
        return int(self.options.max_new_tokens)

    @property
    def hidden_size(self) -> int:
        """Width of the audio encoder's residual stream (where encoder directions live)."""
        return int(_attribute(self.model.config, self._site_map.encoder_width))

    @property
    def decoder_hidden_size(self) -> int:
        """Width of the language model's residual stream."""
        return int(self.model.config.text_config.hidden_size)

    def _check_variant(self, interventions: Sequence) -> None:
        """Before any audio is decoded: every intervention's site exists here, and a paired one decodes greedily."""
        if not interventions:
            return
        from asraudit.models.whitebox.interventions import needs_pairing

        try:
            sites = self.intervention_sites()
            for intervention in interventions:
                if getattr(intervention, "site", None) is not None:
                    sites.require(intervention.site)
            needs_pairing(interventions)
        except ValueError as exc:  # a family without sites, a site this family lacks, two patch sources
            raise InputError(f"model {self.base_id}: {exc}") from None
        for intervention in interventions:
            if getattr(intervention, "source", None) is not None and self.options.beam_size != 1:
                raise InputError(f"model {self.base_id}: {intervention.id} runs a paired batch, which decodes greedily; "
                                 f"set beam_size = 1 (it is {self.options.beam_size})")

    def text_token_ids(self, text: str) -> list[int]:
        """The ids an answer's text is written with (no prompt, no end token)."""
        return self.encode(text)[0]

    # -- the batch in flight ----------------------------------------------

    @property
    def _source(self):
        """The paired source every patch of this variant reads (one per variant: ``needs_pairing``)."""
        if not self.interventions:
            return None
        from asraudit.models.whitebox.interventions import needs_pairing

        return needs_pairing(self.interventions)

    def _paired_inputs(self, clips: Sequence[np.ndarray]) -> tuple[dict, RunContext]:
        """Model inputs for ``clips`` (then, for a paired variant, their sources) and the hooks' context."""
        clips = [np.asarray(c, dtype=np.float32) for c in clips]
        source = self._source
        rows = clips + ([np.asarray(source(c), dtype=np.float32) for c in clips] if source is not None else [])
        inputs = self._inputs(rows)
        ctx = RunContext(n_targets=len(clips), audio_frames=[], paired=source is not None)
        if self.interventions:
            paths = self._site_map
            ids = inputs["input_ids"]
            audio_id = self.model.config.audio_token_id
            ctx.audio_frames = [audio_frames(len(r), paths.encoder_geometry) for r in rows]
            ctx.changed = [changed_frames(c, r, paths.encoder_geometry) for c, r in zip(clips, rows[len(clips):])]
            ctx.geometry = paths.encoder_geometry
            ctx.prompt_length = int(ids.shape[1])
            ctx.audio_tokens = AudioTokens(
                positions=[(row == audio_id).nonzero().flatten().tolist() for row in ids],
                geometry=paths.token_geometry,
                changed=[changed_frames(c, r, paths.token_geometry) for c, r in zip(clips, rows[len(clips):])],
            )
        return inputs, ctx

    @contextlib.contextmanager
    def _hooks(self, ctx: RunContext) -> Iterator[None]:
        """This variant's interventions on its sites, and the LM-position tracker, for one run."""
        if not self.interventions:
            yield
            return
        from asraudit.models.whitebox.interventions import installed

        sites = self.intervention_sites()

        def track(module, args, kwargs):
            # The first LM block sees each call before it writes to the cache: the cache's length is the
            # call's first absolute position (0 for the prompt, then one more per generated token).
            cache = kwargs.get("cache", kwargs.get("past_key_values"))
            ctx.decoder_offset = int(cache.get_seq_length()) if cache is not None else 0

        tracker = sites.decoder_layers[0].register_forward_pre_hook(track, with_kwargs=True)
        try:
            with installed(self.interventions, sites, ctx):
                yield
        finally:
            tracker.remove()

    @contextlib.contextmanager
    def _installed(self, n_rows: int, clips: Sequence[np.ndarray]) -> Iterator[None]:
        """The hooks for an unpaired run of ``clips`` whose inputs the caller makes (``_inputs(clips)``)."""
        if self._source is not None:
            raise ValueError(f"{self.model_id}: a paired variant runs through transcribe/score, not a bare forward")
        _, ctx = self._paired_inputs(clips)
        ctx.n_targets = n_rows
        with self._hooks(ctx):
            yield

    def paired_generate_options(self, ctx: RunContext) -> dict:
        """``generate`` options for this batch: a paired one decodes greedily with its sources following."""
        if not ctx.paired:
            return {"num_beams": self.options.beam_size}
        from transformers import LogitsProcessorList

        return {"num_beams": 1, "logits_processor": LogitsProcessorList([_FollowTheInputs(ctx.n_targets)])}

    # -- readouts ---------------------------------------------------------

    def next_token_logprobs(self, audio: np.ndarray, prefix: Sequence[int] = ()) -> np.ndarray:
        """Log-probabilities of the answer's next token after the prompt with ``audio`` and ``prefix``, with the
        interventions (one forward pass over the prompt and the forced tokens)."""
        torch = self._torch
        inputs, ctx = self._paired_inputs([audio])
        if prefix:
            rows = inputs["input_ids"].shape[0]
            forced = torch.tensor([list(prefix)] * rows, dtype=inputs["input_ids"].dtype, device=self.device)
            inputs["input_ids"] = torch.cat([inputs["input_ids"], forced], dim=1)
            inputs["attention_mask"] = torch.cat([inputs["attention_mask"], torch.ones_like(forced)], dim=1)
        with torch.inference_mode(), self._hooks(ctx):
            logits = self.model(**inputs).logits[0, -1]
        return torch.log_softmax(logits.double(), dim=-1).cpu().numpy()

    def encoder_activations(self, clips: Sequence[np.ndarray], layers: Sequence[int]) -> dict[int, np.ndarray]:
        """Outputs ``[clips, frames, d]`` of the audio encoder's ``layers``, with this variant's interventions.

        As ``WhiteboxWhisper.encoder_activations``: capture hooks are registered
        after the interventions', so they see what the next layer sees, and
        clips go through in batches of ``batch_size``."""
        torch = self._torch
        stack = self.intervention_sites().encoder_layers
        wanted = sorted({layer_index(layer, len(stack), "encoder") for layer in layers})
        kept: dict[int, list[np.ndarray]] = {layer: [] for layer in wanted}
        step = max(1, self.options.batch_size)
        for start in range(0, len(clips), step):
            batch = [np.asarray(c, dtype=np.float32) for c in clips[start : start + step]]
            inputs, ctx = self._paired_inputs(batch)
            with torch.inference_mode(), self._hooks(ctx):
                handles = []
                for layer in wanted:
                    def keep(module, args, output, layer=layer):
                        kept[layer].append(output[: len(batch)].detach().float().cpu().numpy())
                    handles.append(stack[layer].register_forward_hook(keep))
                try:
                    self.model(**inputs)
                finally:
                    for handle in handles:
                        handle.remove()
        return {layer: np.concatenate(parts) for layer, parts in kept.items()}
