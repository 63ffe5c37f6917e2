"""Parakeet transducers (RNN-T and TDT) through transformers: greedy transcripts, exact scores.

A transducer has no single teacher-forced path: a text is emitted along many
alignments with the audio frames.  ``score`` therefore gives the exact
log-likelihood summed over every alignment (``transducer_forward``), split
into per-token prefix terms plus an end term, like CTC's ``ctc_prefix``.

The network is three parts (``ParakeetForRNNT`` / ``ParakeetForTDT``): a
conformer encoder whose output is projected to ``f_t``; a prediction
network (an LSTM over the labels emitted so far, started from the blank
symbol) giving ``g_u``; and a joint ``head(act(f_t + g_u))`` over the
vocabulary (blank is its last entry) and, for TDT, over the durations.
Scoring runs the encoder once per clip, the prediction network once per
candidate over its whole label sequence, and the joint over the full
``T x (U + 1)`` grid, a block of frames at a time so that memory stays
bounded for an 8k vocabulary.

Greedy decoding is ours rather than ``generate``'s: it follows the same
rules (argmax symbol; RNN-T advances a frame on blank, at most
``max_symbols_per_step`` labels per frame; TDT advances by the argmax
duration *value*, a blank by at least one) and runs over a batch with a
per-row prediction-network state.  Beam search is not offered: transducer
beam search (NeMo's ALSD/mAES) is its own algorithm, not ``num_beams``.

White-box: the conformer blocks are the encoder sites, installed around
every encoder pass with a ``RunContext`` whose frames are the encoder's own
(one per ``hop_length * subsampling_factor`` samples); the prediction
network's output ``g_u`` at each label position is the one decoder site
(``transducer_whitebox``), installed around every decode and scoring run.
There is no cross-attention.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Sequence

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.errors import InputError
from asraudit.models.base import TokenScores, score_arguments
from asraudit.models.hf import _hash, _HFModel
from asraudit.models.transducer_beam import beam_search
from asraudit.models.transducer_forward import rnnt_arcs, tdt_arcs, token_logprobs
from asraudit.models.whisper_frontend import transcribe_in_windows

END_TOKEN = "<end>"
_CLASSES = {"parakeet_rnnt": "ParakeetForRNNT", "parakeet_tdt": "ParakeetForTDT"}
# Joint-network logits computed at once while scoring: frames x (labels + 1) x vocabulary.
_JOINT_BLOCK = 1 << 24


def transducer_labels(tokenizer, text: str) -> tuple[list[int], tuple[tuple[int, int], ...]]:
    """The labels a transducer writes ``text`` with, and each one's character span; a ValueError naming the
    characters its vocabulary lacks."""
    if not text.strip():
        return [], ()
    enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids = [int(i) for i in enc["input_ids"]]
    unk = tokenizer.unk_token_id
    if unk is not None and unk in ids:
        unknown = sorted({ch for ch in text if ch != " " and tokenizer.convert_tokens_to_ids(ch) == unk})
        raise ValueError(
            f"candidate {text[:60]!r} has characters outside the transducer vocabulary ({''.join(unknown) or 'unknown tokens'}): "
            "normalise candidates the way the model's training text was"
        )
    return ids, tuple((int(a), int(b)) for a, b in enc["offset_mapping"])


class HFTransducer(_HFModel):
    """A transformers Parakeet RNN-T or TDT model; implements ``ScoringModel``."""

    backend = "hf-transducer"
    used_options = ("batch_size", "beam_size")
    runs = "is a transducer, decoded over each window at the encoder's length, with no prompt"

    def vocabulary_sizes(self) -> tuple[int | None, int | None, str]:
        # The joint's outputs before the blank (its last) are the labels; a token at the blank's id would be read as it.
        return len(self.tokenizer), int(self.model.config.blank_token_id), "joint (labels before its blank)"

    def __init__(self, source: str, *, model_id: str | None = None, device: str = "cpu", compute_type: str | None = None,
                 revision: str | None = None, interventions: Sequence = (), _loaded=None, _base_id: str | None = None,
                 **options):
        super().__init__(source, model_id=model_id, device=device, compute_type=compute_type, revision=revision, options=options)
        # The id without interventions: a variant's id is this plus each intervention's id.
        self.base_model_id = _base_id or self.model_id
        if self.options.beam_size < 1:
            raise InputError(f"model {self.model_id!r}: beam_size must be at least 1, not {self.options.beam_size}")
        if _loaded is None:
            import transformers
            from transformers import AutoConfig

            config = AutoConfig.from_pretrained(source, revision=revision)
            self._load(getattr(transformers, _CLASSES[config.model_type]))
        else:
            self.processor, self.model, self._torch = _loaded
        config = self.model.config
        self.is_tdt = config.model_type == "parakeet_tdt"
        self.blank = int(config.blank_token_id)
        self.vocab_size = int(config.vocab_size)
        self.durations = [int(d) for d in getattr(config, "durations", ())]
        self.max_symbols = int(config.max_symbols_per_step)
        if self.is_tdt and 1 not in self.durations:
            raise InputError(f"model {self.model_id!r}: a TDT model needs duration 1 among its durations {self.durations}")
        self._one = self.durations.index(1) if self.is_tdt else 0
        encoder = config.encoder_config
        extractor = self.processor.feature_extractor
        self.samples_per_frame = int(extractor.hop_length) * int(encoder.subsampling_factor)
        # The longest input the encoder's positions were built for: the window long audio is cut into.
        self.window_samples = int(encoder.max_position_embeddings) * self.samples_per_frame
        self.interventions = tuple(interventions)
        from asraudit.models.whitebox.interventions import needs_pairing

        self.source_audio = needs_pairing(self.interventions)
        from asraudit.models.transducer_whitebox import PredictionSite

        self._site = PredictionSite(paired=self.source_audio is not None)

    # -- identity ---------------------------------------------------------

    @property
    def config_hash(self) -> str:
        if not self.interventions:
            return super().config_hash
        return _hash({"model": super().config_hash, "interventions": [i.spec() for i in self.interventions]})

    def variant(self, *interventions) -> "HFTransducer":
        """The same weights with these interventions (replacing any this model has)."""
        name = self.base_model_id + "".join("+" + i.id for i in interventions)
        return HFTransducer(self.source, model_id=name, device=self.device, compute_type=self.compute_type,
                            revision=self.revision, interventions=interventions, _base_id=self.base_model_id,
                            _loaded=(self.processor, self.model, self._torch), **asdict(self.options))

    @property
    def frame_geometry(self):
        """Parakeet's encoder frames: hop_length x subsampling_factor samples (80 ms), as long as the input."""
        from asraudit.models.whitebox.frames import FrameGeometry

        return FrameGeometry(self.samples_per_frame, None)

    def intervention_sites(self):
        from asraudit.models.whitebox.sites import InterventionSites

        family = "parakeet-tdt" if self.is_tdt else "parakeet-rnnt"
        return InterventionSites(family=family, encoder_layers=self.model.encoder.layers,
                                 decoder_layers=(self._site.module,))

    @property
    def decoder_hidden_size(self) -> int:
        return int(self.model.config.decoder_hidden_size)

    @property
    def window_seconds(self) -> float:
        """The longest input its encoder's positions were built for; a longer clip is cut into windows."""
        return self.window_samples / SAMPLE_RATE

    def text_token_ids(self, text: str) -> list[int]:
        return self._labels(text)[0]

    def next_token_logprobs(self, audio: np.ndarray, prefix: Sequence[int] = ()) -> np.ndarray:
        """``[frames, vocabulary]``: the next symbol's log-probabilities after ``prefix`` at every frame."""
        from asraudit.models.transducer_whitebox import next_symbol_logprobs

        return next_symbol_logprobs(self, audio, prefix)

    def _decoder_hooks(self):
        return self._site.installed(self.interventions, self.intervention_sites())

    # -- encoder ----------------------------------------------------------

    def _encode(self, clips: Sequence[np.ndarray], capture: dict | None = None):
        """Projected encoder output ``[B, T, H]`` and valid frames per clip, interventions installed.

        ``capture`` (layer -> list) collects those encoder layers' outputs for the clips; its hooks
        run after the interventions', so they see what the next layer sees."""
        from asraudit.models.whitebox.frames import RunContext, changed_frames

        clips = [np.asarray(c, dtype=np.float32) for c in clips]
        rows = list(clips)
        if self.source_audio is not None:
            rows += [np.asarray(self.source_audio(c), dtype=np.float32) for c in clips]
        features = self.processor.feature_extractor(
            rows, sampling_rate=SAMPLE_RATE, return_tensors="pt", return_attention_mask=True, padding="longest"
        )
        mask = features["attention_mask"].to(self.device)
        lengths = self.model.encoder._get_subsampling_output_length(mask.sum(-1))
        ctx = RunContext(
            n_targets=len(clips), audio_frames=[int(n) for n in lengths], paired=self.source_audio is not None,
            changed=[changed_frames(a, b, self.frame_geometry) for a, b in zip(clips, rows[len(clips):])],
            geometry=self.frame_geometry,
        )
        handles = []
        try:
            for intervention in self.interventions:
                if getattr(intervention, "site", None) != "decoder":  # decoder hooks: ``_decoder_hooks``
                    handles.extend(intervention.install(self.intervention_sites(), ctx))
            for layer, sink in (capture or {}).items():
                def keep(module, inputs, output, sink=sink):
                    sink.append(output[: ctx.n_targets].float().cpu().numpy())

                handles.append(self.model.encoder.layers[layer].register_forward_hook(keep))
            out = self.model.get_audio_features(
                input_features=features["input_features"].to(self.device, self.model.dtype), attention_mask=mask
            )
        finally:
            for handle in handles:
                handle.remove()
        return out.pooler_output[: len(clips)], [int(n) for n in lengths[: len(clips)]]

    def encoder_activations(self, audio: Sequence[np.ndarray], layers: Sequence[int]) -> dict[int, np.ndarray]:
        """Outputs of encoder ``layers``, ``[clips, frames, d_model]`` each, with this variant's interventions."""
        from asraudit.models.transducer_whitebox import encoder_activations

        return encoder_activations(self, audio, layers)

    # -- prediction network -------------------------------------------------

    def _predict(self, ids, state=None):
        decoder = self.model.decoder
        out, state = decoder.lstm(decoder.embedding(ids), state)
        return decoder.decoder_projector(out), state

    def _split(self, logits):
        """(token log-probs, duration log-probs or None) from joint logits."""
        torch = self._torch
        tokens = torch.log_softmax(logits[..., : self.vocab_size].float(), dim=-1)
        if not self.is_tdt:
            return tokens, None
        return tokens, torch.log_softmax(logits[..., self.vocab_size :].float(), dim=-1)

    # -- transcription ----------------------------------------------------

    def _greedy(self, windows: list[np.ndarray]) -> list[tuple[list[int], float, bool]]:
        """Per window: (labels, log-probability of the greedy alignment, whether it is a complete lattice path)."""
        torch = self._torch
        with torch.inference_mode(), self._decoder_hooks():
            encoded, lengths = self._encode(windows)
            B = len(windows)
            rows = torch.arange(B, device=encoded.device)
            limit = torch.tensor(lengths, device=encoded.device)
            durations = torch.tensor(self.durations or [0], device=encoded.device)
            t = torch.zeros(B, dtype=torch.long, device=encoded.device)
            symbols = torch.zeros_like(t)
            start = torch.full((B, 1), self.blank, dtype=torch.long, device=encoded.device)
            g, state = self._predict(start)
            g = self._site.apply(g, [0] * B)
            hyps: list[list[int]] = [[] for _ in range(B)]
            logp = torch.zeros(B, dtype=torch.float64)
            complete = [True] * B
            active = t < limit
            while bool(active.any()):
                f = encoded[rows, t.clamp(max=max(encoded.shape[1] - 1, 0))]
                token_lp, duration_lp = self._split(self.model.joint(decoder_hidden_states=g[:, 0], encoder_hidden_states=f))
                token = token_lp.argmax(-1)
                is_blank = token == self.blank
                step_lp = token_lp[rows, token].double()
                if self.is_tdt:
                    index = duration_lp.argmax(-1)
                    # A blank must move: a predicted duration 0 is read as 1, as transformers' and NeMo's decoders do.
                    forced_blank = is_blank & (durations[index] == 0)
                    index = torch.where(forced_blank, torch.full_like(index, self._one), index)
                    advance = durations[index]
                    step_lp = step_lp + duration_lp[rows, index].double()
                else:
                    advance = is_blank.long()
                symbols = torch.where(advance > 0, torch.zeros_like(symbols), symbols + 1)
                # Too many labels without moving: move one frame (not an arc of the lattice).
                forced_move = symbols >= self.max_symbols
                advance = torch.where(forced_move, torch.ones_like(advance), advance)
                symbols = torch.where(forced_move, torch.zeros_like(symbols), symbols)
                for b in active.nonzero().flatten().tolist():
                    logp[b] += float(step_lp[b])
                    if not bool(is_blank[b]):
                        hyps[b].append(int(token[b]))
                    landing = int(t[b] + advance[b])
                    if bool(forced_move[b]):
                        complete[b] = False
                    if landing >= lengths[b] and not (bool(is_blank[b]) and landing == lengths[b]):
                        complete[b] = False  # ended on a label, or a blank overshooting the last frame
                emitted = active & ~is_blank
                if bool(emitted.any()):
                    g_new, state_new = self._predict(token[:, None], state)
                    g_new = self._site.apply(g_new, [len(h) for h in hyps])
                    keep = emitted[:, None, None]
                    g = torch.where(keep, g_new, g)
                    state = tuple(torch.where(emitted[None, :, None], s_new, s) for s_new, s in zip(state_new, state))
                t = torch.where(active, t + advance, t)
                active = t < limit
        return [(hyps[b], float(logp[b]), complete[b]) for b in range(B)]

    def _beam(self, windows: list[np.ndarray]) -> list[tuple[list[int], float, bool]]:
        """Per window: the beam's best (labels, log of its kept alignments' probability, complete lattice path)."""
        torch = self._torch
        out = []
        with torch.inference_mode(), self._decoder_hooks():
            encoded, lengths = self._encode(windows)
            g0, state0 = self._predict(torch.full((1, 1), self.blank, dtype=torch.long, device=encoded.device))
            start = (self._site.apply(g0, [0]), state0, 0)  # (g, LSTM state, labels emitted)
            for row, n_frames in enumerate(lengths):
                frames = encoded[row]

                def joint(t, states, frames=frames):
                    g = torch.cat([s[0] for s in states])[:, 0]
                    tokens, durations = self._split(self.model.joint(decoder_hidden_states=g, encoder_hidden_states=frames[t].expand(len(states), -1)))
                    return tokens.double().cpu().numpy(), None if durations is None else durations.double().cpu().numpy()

                def predict(states, labels):
                    h, c = (torch.cat([s[1][k] for s in states], dim=1) for k in (0, 1))
                    g, (h, c) = self._predict(torch.tensor(labels, device=encoded.device)[:, None], (h, c))
                    counts = [s[2] + 1 for s in states]
                    g = self._site.apply(g, counts)
                    return [(g[i : i + 1], (h[:, i : i + 1], c[:, i : i + 1]), counts[i]) for i in range(len(labels))]

                found = beam_search(n_frames, joint, predict, start, beam=self.options.beam_size, blank=self.blank,
                                    durations=self.durations if self.is_tdt else None, max_symbols=self.max_symbols)
                best = found[0] if found else None
                out.append(([], 0.0, False) if best is None else (list(best.labels), best.score, best.complete))
        return out

    def _text(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids, skip_special_tokens=True, **({"group_tokens": False} if _groups(self.tokenizer) else {})).strip()

    def _decode_windows(self, windows: list[np.ndarray]) -> list[str]:
        decode = self._greedy if self.options.beam_size == 1 else self._beam
        return [self._text(ids) for ids, _, _ in decode(windows)]

    def transcribe(self, audio: Sequence[np.ndarray]) -> list[str]:
        return transcribe_in_windows(audio, self._decode_windows, self.options.batch_size,
                                     window_samples=self.window_samples, by_length=True)

    def greedy_alignments(self, audio: Sequence[np.ndarray]) -> list[tuple[list[int], float, bool]]:
        """Greedy labels, the log-probability of the greedy alignment, and whether it is a lattice path."""
        return self._greedy([np.asarray(a, dtype=np.float32) for a in audio])

    def beam_alignments(self, audio: Sequence[np.ndarray]) -> list[tuple[list[int], float, bool]]:
        """The beam search's best labels, its score (log of its kept alignments' probability), and
        whether it is a complete lattice path; ``beam_size`` from the options (1 runs the beam code too)."""
        return self._beam([np.asarray(a, dtype=np.float32) for a in audio])

    # -- scoring ----------------------------------------------------------

    def _labels(self, text: str) -> tuple[list[int], tuple[tuple[int, int], ...]]:
        return transducer_labels(self.tokenizer, text)

    @classmethod
    def text_counter(cls, source: str, model_type: str):
        """``text -> labels`` (``_labels``: a ValueError for characters outside the vocabulary), from the folder's
        processor files alone."""
        from asraudit.models.hf import tokenizer_of

        tokenizer = tokenizer_of(cls.read_processor(source))
        return lambda text: len(transducer_labels(tokenizer, text)[0])

    def _joint_logprobs(self, f, g) -> tuple[np.ndarray, np.ndarray | None]:
        """Token ``[T, U+1, V]`` and duration log-probs of one candidate, a block of frames at a time."""
        T, width = f.shape[0], g.shape[0] * (self.vocab_size + len(self.durations))
        step = max(1, _JOINT_BLOCK // max(1, width))
        tokens, durations = [], []
        for start in range(0, T, step):
            logits = self.model.joint(decoder_hidden_states=g[None, :, :], encoder_hidden_states=f[start : start + step, None, :])
            tok, dur = self._split(logits)
            tokens.append(tok.double().cpu().numpy())
            if dur is not None:
                durations.append(dur.double().cpu().numpy())
        empty = np.zeros((0, g.shape[0], self.vocab_size))
        return (np.concatenate(tokens) if tokens else empty), (np.concatenate(durations) if durations else None)

    @property
    def score_seconds(self) -> float:
        """The longest clip ``score`` takes, one pass (``ScoringModel``)."""
        return self.window_samples / SAMPLE_RATE

    def label_logprobs(self, audio: np.ndarray, sequences: Sequence[Sequence[int]]) -> list[tuple[np.ndarray, float]]:
        """``(per_label, end)`` for each label sequence: the exact forward terms (``score`` without the text)."""
        torch = self._torch
        audio = np.asarray(audio, dtype=np.float32)
        if audio.shape[0] > self.window_samples:
            raise InputError(
                f"cannot score {audio.shape[0] / SAMPLE_RATE:.1f} s of audio: {self.model_id} takes at most "
                f"{self.window_samples / SAMPLE_RATE:.1f} s in one pass"
            )
        out = []
        with torch.inference_mode(), self._decoder_hooks():
            memory, (n_frames,) = self._encode([audio])
            f = memory[0, :n_frames]
            for labels in sequences:
                labels = [int(i) for i in labels]
                g = self._site.apply(self._predict(torch.tensor([[self.blank] + labels], device=f.device))[0], [0])[0]
                token_lp, duration_lp = self._joint_logprobs(f, g)
                if self.is_tdt:
                    arcs = tdt_arcs(token_lp, duration_lp, labels, self.blank, self.durations)
                else:
                    arcs = rnnt_arcs(token_lp, labels, self.blank)
                out.append(token_logprobs(arcs))
        return out

    def score(self, audio: np.ndarray, candidates: Sequence[str]) -> list[TokenScores]:
        audio, candidates = score_arguments(audio, candidates)
        encoded = [self._labels(text) for text in candidates]
        terms = self.label_logprobs(audio, [labels for labels, _ in encoded])
        out: list[TokenScores] = []
        for text, (labels, offsets), (per_label, end) in zip(candidates, encoded, terms):
            out.append(
                TokenScores(
                    text=text,
                    tokens=tuple(self.tokenizer.convert_ids_to_tokens(labels)) + (END_TOKEN,),
                    logprobs=tuple(float(v) for v in per_label) + (end,),
                    token_ids=tuple(labels) + (-1,),
                    offsets=offsets + ((len(text), len(text)),),
                )
            )
        return out


def _groups(tokenizer) -> bool:
    """Parakeet's tokenizer merges repeated ids by default (right for CTC, wrong for a transducer)."""
    import inspect

    return "group_tokens" in inspect.signature(tokenizer._decode).parameters
