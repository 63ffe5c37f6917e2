"""White-box encoder-decoder models beyond Whisper: any transformers family whose layers we can name.

``WhiteboxWhisper`` (``model.py``) is a converted CTranslate2 Whisper that
decodes exactly like that backend.  This class takes a transformers folder
of another encoder-decoder family (``whitebox:hf:<dir>``), runs it through
the same runner as ``hf:<dir>`` (``HFSeq2Seq``: its features, prompt and
window) and adds what interventions need:

* ``intervention_sites()``: the family's encoder blocks, decoder blocks and
  cross-attention modules (``SITE_PATHS``: where each family keeps them);
* ``frame_geometry``: how many input samples one encoder frame covers, so
  ``Frames`` in seconds land on the right frames (Moonshine: 384 = 24 ms);
* its own greedy loop and teacher-forced pass, so a paired batch (inputs,
  then their sources, the sources forced with the inputs' tokens) can carry
  activation patches, with the hooks installed around every forward pass.

Greedy only, as for Whisper: an intervention's effect is read at the argmax.
With no intervention the loop gives ``generate``'s greedy transcript (the
tests check this), so every difference a variant shows is the intervention's.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.errors import InputError
from asraudit.models.base import TokenScores, score_arguments
from asraudit.models.whisper_frontend import transcribe_in_windows
from asraudit.models.whitebox.frames import FrameGeometry, RunContext, audio_frames, changed_frames
from asraudit.models.whitebox.interventions import Intervention, installed, needs_pairing
from asraudit.models.whitebox.sites import InterventionSites, layer_index


@dataclass(frozen=True)
class SitePaths:
    """Where a family keeps its blocks (attribute paths from the ``...ForConditionalGeneration``)."""

    encoder_layers: str
    decoder_layers: str
    cross_attention: str  # attribute of each decoder layer
    samples_per_frame: int  # input samples per encoder output frame (0: from the config, see _samples_per_frame)


SITE_PATHS = {
    # Moonshine's three convolutions have strides 64, 3 and 2: one encoder frame per 384 samples (24 ms).
    "moonshine": SitePaths("model.encoder.layers", "model.decoder.layers", "encoder_attn", 64 * 3 * 2),
    # Speech2Text: 10-ms features, two stride-2 convolutions: 40 ms.
    "speech_to_text": SitePaths("model.encoder.layers", "model.decoder.layers", "encoder_attn", 0),
    # Canary and Cohere ASR: a FastConformer (Parakeet) encoder, 10-ms features subsampled (8x: 80 ms).
    "canary": SitePaths("model.encoder.layers", "model.decoder.layers", "encoder_attn", 0),
    "cohere_asr": SitePaths("model.encoder.layers", "model.decoder.layers", "encoder_attn", 0),
}

_HOP = 160  # the 10-ms feature hop of Speech2Text's and the Parakeet encoders' extractors


def _samples_per_frame(paths: SitePaths, config) -> int:
    if paths.samples_per_frame:
        return paths.samples_per_frame
    if config.model_type == "speech_to_text":
        return _HOP * 2 ** config.num_conv_layers
    return _HOP * config.encoder_config.subsampling_factor


def _attribute(root, path: str):
    for name in path.split("."):
        root = getattr(root, name)
    return root


class WhiteboxSeq2Seq:
    """A transformers encoder-decoder model with interventions; implements ``ScoringModel``."""

    backend = "whitebox-seq2seq"

    def __init__(self, runner, *, interventions: Sequence[Intervention] = (), batch_size: int = 8):
        model_type = runner.model.config.model_type
        if model_type not in SITE_PATHS:
            raise InputError(f"model {runner.model_id!r} ({model_type}) has no white-box form: white-box families are "
                             f"whisper, {', '.join(sorted(SITE_PATHS))}")
        self.runner = runner  # the HFSeq2Seq that loaded the weights (shared by every variant)
        self.paths = SITE_PATHS[model_type]
        self.interventions = tuple(interventions)
        self.source = needs_pairing(self.interventions)
        self.batch_size = max(1, int(batch_size))
        self.device = runner.device
        self.name = runner.source.rstrip("/").rsplit("/", 1)[-1]

    @classmethod
    def load(cls, source: str, *, device: str = "cpu", batch_size: int = 8, **options) -> "WhiteboxSeq2Seq":
        from asraudit.models.hf import HFSeq2Seq

        runner = HFSeq2Seq(source, model_id=f"hf:{source}", device=device, batch_size=batch_size, **options)
        return cls(runner, batch_size=batch_size)

    def variant(self, *interventions: Intervention) -> "WhiteboxSeq2Seq":
        """The same weights with these interventions (replacing any this model has)."""
        return WhiteboxSeq2Seq(self.runner, interventions=interventions, batch_size=self.batch_size)

    # -- identity ---------------------------------------------------------

    @property
    def model_id(self) -> str:
        base = f"whitebox:{self.runner.model_id}"
        return base if not self.interventions else base + "+" + "+".join(i.id for i in self.interventions)

    @property
    def config_hash(self) -> str:
        settings = {"backend": self.backend, "runner": self.runner.config_hash, "search": "greedy",
                    "interventions": [i.spec() for i in self.interventions]}
        return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]

    @property
    def window_seconds(self) -> float:
        """The longest input decoded in one pass; a longer clip is cut into windows."""
        return float(self.runner.window_seconds)

    @property
    def max_new_tokens(self) -> int:
        """The most tokens one window's greedy decoding writes (end-of-text included)."""
        return int(self.runner.options.max_new_tokens)

    @property
    def hidden_size(self) -> int:
        """Width of the residual stream a direction lives in."""
        config = self.runner.model.config
        encoder = getattr(config, "encoder_config", None)  # Canary, Cohere ASR: the encoder's own width
        return int(getattr(encoder, "hidden_size", None) or getattr(config, "d_model", None) or config.hidden_size)

    @property
    def decoder_hidden_size(self) -> int:
        """Width of the decoder's residual stream (Canary's and Cohere ASR's differ from their encoder's)."""
        config = self.runner.model.config
        decoder = getattr(config, "decoder_config", None)
        return int(getattr(decoder, "hidden_size", None) or getattr(config, "d_model", None) or config.hidden_size)

    @property
    def frame_geometry(self) -> FrameGeometry:
        return FrameGeometry(_samples_per_frame(self.paths, self.runner.model.config), None)

    def intervention_sites(self) -> InterventionSites:
        hf = self.runner.model
        decoder_layers = _attribute(hf, self.paths.decoder_layers)
        return InterventionSites(
            family=self.runner.recipe.family,
            encoder_layers=_attribute(hf, self.paths.encoder_layers),
            decoder_layers=decoder_layers,
            cross_attention=[getattr(layer, self.paths.cross_attention) for layer in decoder_layers],
        )

    def prompt(self) -> list[int]:
        return self.runner.prompt_ids()

    def text_token_ids(self, text: str) -> list[int]:
        """The ids a transcript's text is written with (no prompt, no end-of-text)."""
        return list(self.runner._encode_text(text)[0])

    # -- plumbing ---------------------------------------------------------

    def _rows(self, windows: Sequence[np.ndarray]) -> tuple[list[np.ndarray], RunContext]:
        """The batch rows: the inputs, then (for paired variants) their sources."""
        windows = [np.asarray(w, dtype=np.float32) for w in windows]
        rows = list(windows)
        if self.source is not None:
            rows += [np.asarray(self.source(w), dtype=np.float32) for w in windows]
        geometry = self.frame_geometry
        ctx = RunContext(
            n_targets=len(windows), audio_frames=[audio_frames(len(r), geometry) for r in rows],
            paired=self.source is not None, prompt_length=len(self.prompt()),
            changed=[changed_frames(w, r, geometry) for w, r in zip(windows, rows[len(windows):])],
            geometry=geometry,
        )
        return rows, ctx

    def _installed(self, ctx: RunContext):
        """This variant's hooks for the duration of one run (``interventions.installed``)."""
        return installed(self.interventions, self.intervention_sites(), ctx)

    def _encode(self, rows: Sequence[np.ndarray]):
        inputs = self.runner._inputs(rows)
        return self.runner.model.get_encoder()(**inputs), inputs.get("attention_mask")

    def _decode(self, ids: torch.Tensor, encoded, mask, cache, ctx: RunContext, offset: int) -> torch.Tensor:
        ctx.decoder_offset = offset
        extra = {"attention_mask": mask} if mask is not None else {}
        out = self.runner.model(encoder_outputs=encoded, decoder_input_ids=ids, cache=cache, use_cache=cache is not None,
                                **extra)
        return out.logits

    @staticmethod
    def _new_cache():
        from transformers.cache_utils import DynamicCache, EncoderDecoderCache

        return EncoderDecoderCache(DynamicCache(), DynamicCache())

    # -- transcription ----------------------------------------------------

    @torch.inference_mode()
    def _greedy(self, windows: Sequence[np.ndarray]) -> list[list[int]]:
        rows, ctx = self._rows(windows)
        n = ctx.n_targets
        prompt, eos = self.prompt(), self.runner._eos_id()
        limit = self.runner.options.max_new_tokens
        with self._installed(ctx):
            encoded, mask = self._encode(rows)
            cache = self._new_cache()
            tokens = torch.tensor([prompt] * len(rows), dtype=torch.long, device=self.device)
            logits = self._decode(tokens, encoded, mask, cache, ctx, 0)[:, -1]
            generated: list[list[int]] = [[] for _ in range(n)]
            finished = torch.zeros(n, dtype=torch.bool, device=self.device)
            for step in range(limit):
                chosen = logits[:n].float().argmax(dim=-1)
                chosen = torch.where(finished, torch.full_like(chosen, eos), chosen)
                finished |= chosen == eos
                for i in range(n):
                    if not finished[i]:
                        generated[i].append(int(chosen[i]))
                if bool(finished.all()) or step == limit - 1:
                    break
                # A paired source is teacher-forced with its input's tokens.
                feed = torch.cat([chosen, chosen]) if ctx.paired else chosen
                logits = self._decode(feed[:, None], encoded, mask, cache, ctx, len(prompt) + step)[:, -1]
        return generated

    def _transcribe_windows(self, windows: list[np.ndarray]) -> list[str]:
        return [self.runner.tokenizer.decode(ids, skip_special_tokens=True).strip() for ids in self._greedy(windows)]

    def transcribe(self, audio: Sequence[np.ndarray]) -> list[str]:
        window = int(round(self.runner.window_seconds * SAMPLE_RATE))
        return transcribe_in_windows(audio, self._transcribe_windows, self.batch_size, window_samples=window, by_length=True)

    # -- scoring ----------------------------------------------------------

    @torch.inference_mode()
    def score(self, audio: np.ndarray, candidates: Sequence[str]) -> list[TokenScores]:
        """Teacher-forced log p(token | audio, prompt, previous tokens), end-of-text included, with the interventions."""
        audio, candidates = score_arguments(audio, candidates)
        audio = np.asarray(audio, dtype=np.float32)
        encoded_text = [self.runner._encode_text(text) for text in candidates]
        prompt, eos = self.prompt(), self.runner._eos_id()
        rows, ctx = self._rows([audio])
        out: list[TokenScores] = []
        with self._installed(ctx):
            encoded, mask = self._encode(rows)  # rows: the input, then its source when paired
            for start in range(0, len(candidates), self.batch_size):
                chunk = list(range(start, min(len(candidates), start + self.batch_size)))
                seqs = [prompt + encoded_text[i][0] for i in chunk]
                width = max(len(s) for s in seqs)
                ids = torch.tensor([s + [eos] * (width - len(s)) for s in seqs], device=self.device)
                c = len(chunk)
                order = [0] * c + ([1] * c if ctx.paired else [])
                memory = encoded.__class__(**{k: (v[order] if hasattr(v, "shape") else v) for k, v in encoded.items()})
                ctx.n_targets = c
                ctx.audio_frames = [audio_frames(len(rows[r]), ctx.geometry) for r in order]
                ctx.changed = [changed_frames(rows[0], rows[1], ctx.geometry)] * c if ctx.paired else []
                feed = torch.cat([ids, ids]) if ctx.paired else ids
                logits = self._decode(feed, memory, mask[order] if mask is not None else None, None, ctx, 0)[:c]
                logprobs = torch.log_softmax(logits.double(), dim=-1).cpu().numpy()
                for row, i in enumerate(chunk):
                    tokens, offsets = encoded_text[i]
                    targets = tokens + [eos]
                    positions = np.arange(len(prompt) - 1, len(prompt) - 1 + len(targets))
                    end = len(candidates[i])
                    out.append(TokenScores(
                        text=candidates[i], tokens=tuple(self.runner.tokenizer.convert_ids_to_tokens(targets)),
                        logprobs=tuple(float(v) for v in logprobs[row, positions, targets]),
                        token_ids=tuple(int(t) for t in targets), offsets=offsets + ((end, end),)))
        return out

    @torch.inference_mode()
    def next_token_logprobs(self, audio: np.ndarray, prefix: Sequence[int] = ()) -> np.ndarray:
        """Log-probabilities of the next token after the prompt and ``prefix`` (a readout), with the interventions."""
        rows, ctx = self._rows([np.asarray(audio, dtype=np.float32)])
        ids = torch.tensor([self.prompt() + list(prefix)] * len(rows), device=self.device)
        with self._installed(ctx):
            encoded, mask = self._encode(rows)
            logits = self._decode(ids, encoded, mask, None, ctx, 0)[0, -1]
        return torch.log_softmax(logits.double(), dim=-1).cpu().numpy()

    # -- activations ------------------------------------------------------

    @torch.inference_mode()
    def encoder_activations(self, audio: Sequence[np.ndarray], layers: Sequence[int]) -> dict[int, list[np.ndarray]]:
        """Outputs of encoder ``layers``, one ``[frames, d]`` array per clip (its own frames, no padding),
        with this variant's interventions (capture hooks run after theirs)."""
        encoder_layers = self.intervention_sites().encoder_layers
        wanted = sorted({layer_index(layer, len(encoder_layers), "encoder") for layer in layers})
        captured: dict[int, list[np.ndarray]] = {layer: [] for layer in wanted}
        geometry = self.frame_geometry
        for start in range(0, len(audio), self.batch_size):
            batch = [np.asarray(a, dtype=np.float32) for a in audio[start : start + self.batch_size]]
            rows, ctx = self._rows(batch)
            with self._installed(ctx):
                handles = []
                try:
                    for layer in wanted:
                        def keep(module, inputs, output, layer=layer):
                            values = output[: ctx.n_targets].float().cpu().numpy()
                            for i, clip in enumerate(batch):
                                captured[layer].append(values[i, : audio_frames(len(clip), geometry)])

                        handles.append(encoder_layers[layer].register_forward_hook(keep))
                    self._encode(rows)
                finally:
                    for handle in handles:
                        handle.remove()
        return captured
