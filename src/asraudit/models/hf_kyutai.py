"""Kyutai STT (transformers' ``kyutai_speech_to_text``): greedy transcripts, certified exact scores.

The model is one causal transformer over two aligned streams at 12.5 Hz: at
each audio frame (the Mimi codec's tokens of that frame) it reads the
previous *text-stream* token and predicts the next one.  The text stream
has one token per frame: word pieces where the model decides a word
starts, padding tokens everywhere else, a fixed delay behind the audio.
transformers' ``generate`` runs exactly that stream, one token per frame,
over the audio padded with the feature extractor's silence prefix and its
delay (+ 1 s) suffix; the transcript is the stream without its special
tokens.

Scoring.  log p(text | audio) is the sum over every *placement* of the
text's pieces among the frames: every stream whose tokens, once the blanks
are removed, are the text's pieces.  The blanks are the ids the transcript
strips (the tokenizer's special tokens inside the model's text vocabulary:
Kyutai's padding token, its end-of-padding token, which is the tokenizer's
``<unk>``, and the start/end tokens).  The model conditions each prediction
on its own earlier stream tokens, blanks included, so placements share no
state after they first differ and there is no recursion over them (unlike
CTC or a transducer).  ``score`` computes the sum as a certified marginal
(``kyutai_marginal``): a frame-synchronous search keeps the most probable B
stream prefixes per frame (one batched forward per frame over their KV
caches, rows reordered as beam search does; the audio codes computed once
per clip) and returns L, the total probability of the complete placements it
found, and U = L + the probability of every prefix it pruned (a prefix's
probability is the sum over all its completions, so it bounds what the
pruned completions that read as the text could add): L <= p <= U.  B is
doubled from ``score_beam`` up to ``score_max_beam`` until
log U - log L <= ``score_tolerance`` (default 1e-4 nats); the score is then
log L, exact within that tolerance (an under-estimate by at most it).  If the
cap is reached first the clip is not scored: ``BoundNotClosed`` (a
ValueError) names the model, the audio and the gap.  All three settings enter
``config_hash``.  The text's pieces are the tokenizer's own encoding
without special tokens (the convention of every teacher-forced scorer here:
other tokenizations of the same text are other texts); the per-token terms
are prefix terms like ``ctc_prefix``'s, and the last, ``<end>``, is the
probability that nothing but blanks follows the last piece.

Cost: memory grows with B (every hypothesis holds its own KV cache, up to
``sliding_window`` positions per layer), time with B x frames.  How fast the
bound closes depends on how confident the model is: the tests' tiny model
has random weights, spreads its mass over the whole vocabulary, and needs
the unpruned search on short inputs; a trained checkpoint is not available
here, so how large B must be for real audio is not measured.

Batching: ``generate`` runs every row for as many frames as the longest
row; the model is causal in the audio and the text, so a row's first
frames do not depend on the padding after it, and each row is cut back to
its own frames (its own audio, prefix and delay) before decoding.  Long
audio is cut into windows that fit the model's positions; a score covers
one window (longer audio is refused, as Whisper's score refuses audio
over its 30 s).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.io import resample
from asraudit.errors import InputError
from asraudit.models.base import TokenScores, score_arguments
from asraudit.models.hf import _hash, _HFModel
from asraudit.models.kyutai_marginal import Marginal, certified, search
from asraudit.models.whisper_frontend import transcribe_in_windows

END_TOKEN = "<end>"
# Certified-marginal settings (module docstring): the largest log U - log L accepted, in nats; the
# hypotheses per frame of the first search; the most hypotheses per frame before a clip is refused.
SCORE_TOLERANCE, SCORE_BEAM, SCORE_MAX_BEAM = 1e-4, 16, 256


class HFKyutaiSTT(_HFModel):
    """A transformers Kyutai speech-to-text model; transcribes and scores (a ``ScoringModel``)."""

    backend = "hf-kyutai-stt"
    feature_rate = None  # its audio is resampled to the extractor's rate (24 kHz, Mimi's)
    used_options = ("batch_size", "beam_size")  # beam_size other than 1 is refused below, with its reason
    runs = "is Kyutai STT, which emits one text token per audio frame, with no prompt"

    def __init__(self, source: str, *, model_id: str | None = None, device: str = "cpu", compute_type: str | None = None,
                 revision: str | None = None, score_tolerance: float = SCORE_TOLERANCE, score_beam: int = SCORE_BEAM,
                 score_max_beam: int = SCORE_MAX_BEAM, **options):
        self.score_tolerance, self.score_beam, self.score_max_beam = float(score_tolerance), int(score_beam), int(score_max_beam)
        if not self.score_tolerance >= 0 or self.score_beam < 1 or self.score_max_beam < self.score_beam:
            raise InputError(
                f"model {model_id or source!r}: score_tolerance must be >= 0 nats and 1 <= score_beam <= score_max_beam "
                f"(got {score_tolerance}, {score_beam}, {score_max_beam})"
            )
        super().__init__(source, model_id=model_id, device=device, compute_type=compute_type, revision=revision, options=options)
        if self.options.beam_size != 1:
            raise InputError(
                f"model {self.model_id!r} is Kyutai STT, which emits one text token per audio frame in a stream: "
                f"asraudit decodes it greedily (beam_size 1), so beam_size {self.options.beam_size} is refused"
            )
        from transformers import KyutaiSpeechToTextForConditionalGeneration

        self._load(KyutaiSpeechToTextForConditionalGeneration)
        config, extractor = self.model.config, self.processor.feature_extractor
        self.rate = int(extractor.sampling_rate)
        self.frame_size = int(config.frame_size)
        self.pad_left = int(extractor.audio_silence_prefix_seconds * self.rate)
        self.pad_right = int((extractor.audio_delay_seconds + 1.0) * self.rate)
        # Positions: one for the start token, one per frame of prefix + audio + delay.
        room = (int(config.max_position_embeddings) - 1) * self.frame_size - self.pad_left - self.pad_right
        if room <= 0:
            raise InputError(f"model {self.model_id!r}: its {config.max_position_embeddings} positions do not hold "
                             "the feature extractor's silence prefix and delay")
        self.window_samples = room * SAMPLE_RATE // self.rate
        # Blanks: the ids the transcript strips (skip_special_tokens) that the text head can emit.
        self.text_vocab = int(config.vocab_size)
        self.blanks = tuple(sorted({int(i) for i in self.tokenizer.all_special_ids if 0 <= int(i) < self.text_vocab}))

    @property
    def config_hash(self) -> str:
        score = {"tolerance": self.score_tolerance, "beam": self.score_beam, "max_beam": self.score_max_beam}
        return _hash({"model": super().config_hash, "score": score})

    def _frames(self, n_samples: int) -> int:
        """Text-stream tokens generate gives a row of ``n_samples`` (at the codec's rate)."""
        return (self.pad_left + n_samples + self.pad_right) // self.frame_size

    def stream(self, windows: Sequence[np.ndarray]) -> list[list[int]]:
        """The text-stream token ids of each window (at most its model length), padding included."""
        torch = self._torch
        audio = [resample(np.asarray(w, dtype=np.float32), SAMPLE_RATE, self.rate) for w in windows]
        batch = self.processor.feature_extractor(audio, sampling_rate=self.rate, return_tensors="pt")
        with torch.inference_mode():
            sequences = self.model.generate(
                input_values=batch["input_values"].to(self.device, torch.float32),
                padding_mask=batch["padding_mask"].to(self.device), do_sample=False, num_beams=1, num_return_sequences=1,
            )
        # Drop the start token; keep each row's own frames (see the module docstring).
        return [[int(i) for i in row[1 : 1 + self._frames(len(a))]] for row, a in zip(sequences, audio)]

    def _decode_windows(self, windows: list[np.ndarray]) -> list[str]:
        return [self.tokenizer.decode(ids, skip_special_tokens=True).strip() for ids in self.stream(windows)]

    def transcribe(self, audio: Sequence[np.ndarray]) -> list[str]:
        return transcribe_in_windows(audio, self._decode_windows, self.options.batch_size,
                                     window_samples=self.window_samples, by_length=True)

    # -- scoring (module docstring) -----------------------------------------

    def _pieces(self, text: str) -> tuple[list[int], tuple[tuple[int, int], ...]]:
        """The tokenizer's own encoding of ``text`` (no special tokens) and each piece's character span."""
        if not text.strip():
            return [], ()
        if getattr(self.tokenizer, "is_fast", False):
            enc = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
            ids, spans = list(enc["input_ids"]), [tuple(span) for span in enc["offset_mapping"]]
        else:  # no offset mapping: spans from the growing decoded prefix
            ids = list(self.tokenizer(text, add_special_tokens=False)["input_ids"])
            lengths = [len(self.tokenizer.decode(ids[:k])) for k in range(len(ids) + 1)]
            spans = [(min(a, len(text)), min(b, len(text))) for a, b in zip(lengths, lengths[1:])]
        stripped = sorted({i for i in ids if i in self.blanks or i >= self.text_vocab})
        if stripped:
            raise ValueError(f"candidate {text[:60]!r} encodes to tokens the stream cannot carry as text "
                             f"({self.tokenizer.convert_ids_to_tokens(stripped)}): characters outside {self.model_id}'s vocabulary")
        return ids, tuple((int(a), int(b)) for a, b in spans)

    def _codes(self, audio: np.ndarray):
        """The clip's Mimi codes ``[frames, codebooks]`` and its stream length, as ``generate`` sees them.

        ``generate`` encodes the whole padded clip in one codec pass unless the generation config sets
        ``audio_window_size``; then it encodes window by window, and those codes are not the one-pass
        codes (on the tiny test model the greedy stream's log-probability moved by 1-2 nats; transformers
        5.24 also runs the windows without the codec transformer's cache).  The score must read the codes
        the model transcribes from, so with windows it takes them from ``generate`` itself (one greedy
        pass, small beside the search).  Tested against generate's own scores, with and without windows."""
        torch = self._torch
        audio = resample(np.asarray(audio, dtype=np.float32), SAMPLE_RATE, self.rate)
        features = self.processor.feature_extractor([audio], sampling_rate=self.rate, return_tensors="pt")
        values = features["input_values"].to(self.device, torch.float32)
        n_frames = self._frames(len(audio))
        with torch.inference_mode():
            if getattr(self.model.generation_config, "audio_window_size", None) is None:
                codes = self.model.codec_model.encode(values).audio_codes
            else:
                codes = self._generates_codes(values, features["padding_mask"].to(self.device))
        return codes[0].transpose(0, 1)[:n_frames], n_frames

    def _generates_codes(self, values, padding_mask):
        """The codes ``generate`` encodes window by window, recorded as its codec returns them."""
        torch, codec = self._torch, self.model.codec_model
        window = int(self.model.generation_config.audio_window_size)
        windows, encode = [], codec.encode

        def recording(*args, **kwargs):
            out = encode(*args, **kwargs)
            windows.append(out.audio_codes[..., :window])  # generate keeps a window's first frames only
            return out

        codec.encode = recording  # an instance attribute over the class method, removed below
        try:
            self.model.generate(input_values=values, padding_mask=padding_mask, do_sample=False, num_beams=1, num_return_sequences=1)
        finally:
            del codec.encode
        return torch.cat(windows, dim=-1)

    def _stream_runner(self, codes):
        """(first, step) for ``kyutai_marginal.search``: the model's stream over ``codes``, KV-cached."""
        torch, config = self._torch, self.model.config
        start = torch.tensor([[[int(config.bos_token_id)] + [int(config.audio_bos_token_id)] * codes.shape[1]]],
                             device=self.device)
        state = {}

        def logprobs(ids):
            out = self.model(input_ids=ids, cache=state.get("cache"), use_cache=True)
            state["cache"] = out.cache
            return torch.log_softmax(out.logits[:, -1].float(), dim=-1).double().cpu().numpy()

        def first():
            state.clear()
            state["position"] = 0
            return logprobs(start)

        def step(parents, tokens):
            state["cache"].reorder_cache(torch.as_tensor(parents, device=self.device))
            frame = codes[state["position"]].expand(len(tokens), -1)  # position p reads audio frame p - 1
            state["position"] += 1
            text = torch.as_tensor(tokens, device=self.device)[:, None]
            return logprobs(torch.cat([text, frame], dim=1)[:, None, :])

        return first, step

    def marginal(self, codes, n_frames: int, pieces, describe=lambda: "a clip") -> Marginal:
        """The certified marginal of ``pieces`` over ``n_frames`` stream tokens on ``codes``."""
        first, step = self._stream_runner(codes)

        def run(beam: int) -> Marginal:
            with self._torch.inference_mode():
                return search(first, step, pieces, self.blanks, n_frames, beam)

        return certified(run, tolerance=self.score_tolerance, start_beam=self.score_beam, max_beam=self.score_max_beam,
                         describe=describe)

    @property
    def score_seconds(self) -> float:
        """The longest clip ``score`` takes, one pass (``ScoringModel``)."""
        return self.window_samples / SAMPLE_RATE

    def label_logprobs(self, audio: np.ndarray, sequences: Sequence[Sequence[int]]) -> list[tuple[list[float], float]]:
        """``(per_piece, end)`` for each sequence of text-token ids: the certified terms (``score`` without the text)."""
        audio = np.asarray(audio, dtype=np.float32)
        pad = int(self.model.config.pad_token_id)
        if pad not in self.blanks:  # the placements would not be the streams whose transcript is the text
            raise ValueError(f"cannot score with {self.model_id}: its text padding token {pad} is not a special token of "
                             "its tokenizer, so its transcripts do not strip it")
        if audio.shape[0] > self.window_samples:
            raise InputError(f"cannot score {audio.shape[0] / SAMPLE_RATE:.1f} s of audio: {self.model_id} takes at most "
                             f"{self.window_samples / SAMPLE_RATE:.1f} s in one pass")
        codes, n_frames = self._codes(audio)
        out = []
        for pieces in sequences:
            def describe(pieces=pieces):
                text = self.tokenizer.decode(list(pieces))
                return f"model {self.model_id}, {audio.shape[0] / SAMPLE_RATE:.2f} s of audio, candidate {text[:60]!r}"

            out.append(self.marginal(codes, n_frames, [int(i) for i in pieces], describe).terms())
        return out

    def score(self, audio: np.ndarray, candidates: Sequence[str]) -> list[TokenScores]:
        audio, candidates = score_arguments(audio, candidates)
        encoded = [self._pieces(text) for text in candidates]
        terms = self.label_logprobs(audio, [ids for ids, _ in encoded])
        return [
            TokenScores(
                text=text,
                tokens=tuple(self.tokenizer.convert_ids_to_tokens(ids)) + (END_TOKEN,),
                logprobs=tuple(float(v) for v in per_piece) + (end,),
                token_ids=tuple(ids) + (-1,),
                offsets=offsets + ((len(text), len(text)),),
            )
            for text, (ids, offsets), (per_piece, end) in zip(candidates, encoded, terms)
        ]
