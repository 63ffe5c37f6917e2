"""Kyutai STT (transformers' ``kyutai_speech_to_text``): greedy transcripts; no exact score.

The model is one causal transformer over two aligned streams at 12.5 Hz: at
each audio frame (the Mimi codec's tokens of that frame) it reads the
previous *text-stream* token and predicts the next one.  The text stream
has one token per frame: word pieces where the model decides a word
starts, padding tokens everywhere else, a fixed delay behind the audio.
transformers' ``generate`` runs exactly that stream, one token per frame,
over the audio padded with the feature extractor's silence prefix and its
delay (+ 1 s) suffix; the transcript is the stream without its special
tokens.

Why there is no ``score``: log p(text | audio) is the sum over every
placement of the text's pieces among the frames (every frame-level stream
that reads as the text once the padding is removed).  The model conditions
each prediction on its *own previous stream tokens, padding included*, so
two placements share no state after they first differ: the sum has no
recursion (unlike CTC or a transducer, whose per-node outputs do not depend
on the path taken to the node) and would need one forward pass per
placement.  The probability of one placement (the greedy stream's, say) is
not the text's probability and would be a different quantity, so the model
transcribes only; an audit lists it among the models that cannot score.

Batching: ``generate`` runs every row for as many frames as the longest
row; the model is causal in the audio and the text, so a row's first
frames do not depend on the padding after it, and each row is cut back to
its own frames (its own audio, prefix and delay) before decoding.  Long
audio is cut into windows that fit the model's positions.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.io import resample
from asraudit.errors import InputError
from asraudit.models.hf import _HFModel
from asraudit.models.whisper_frontend import transcribe_in_windows

SCORE_REFUSAL = ("the model conditions each text-stream token on its own earlier stream tokens, padding "
                 "included, so log p(text | audio) is a sum over every placement of the text among the audio "
                 "frames with no recursion to compute it exactly; asraudit transcribes with it but does not score")


class HFKyutaiSTT(_HFModel):
    """A transformers Kyutai speech-to-text model; transcribes (an ``ASRModel``, not a ``ScoringModel``)."""

    backend = "hf-kyutai-stt"

    def __init__(self, source: str, *, model_id: str | None = None, device: str = "cpu", compute_type: str | None = None,
                 revision: str | None = None, **options):
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
                padding_mask=batch["padding_mask"].to(self.device), do_sample=False, num_beams=1,
            )
        # Drop the start token; keep each row's own frames (see the module docstring).
        return [[int(i) for i in row[1 : 1 + self._frames(len(a))]] for row, a in zip(sequences, audio)]

    def _decode_windows(self, windows: list[np.ndarray]) -> list[str]:
        return [self.tokenizer.decode(ids, skip_special_tokens=True).strip() for ids in self.stream(windows)]

    def transcribe(self, audio: Sequence[np.ndarray]) -> list[str]:
        return transcribe_in_windows(audio, self._decode_windows, self.options.batch_size,
                                     window_samples=self.window_samples, by_length=True)
