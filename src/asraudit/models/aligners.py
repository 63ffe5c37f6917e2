"""Forced aligners: word timings from a model (pocketsphinx or Whisper).

Two aligners with one result (a ``WordTiming`` per word of
``text.split()``, see ``audio.timing``):

- **pocketsphinx forced alignment**: an HMM aligner with a pronunciation
  dictionary, accurate at word boundaries, but it cannot place digits or
  words missing from its dictionary;
- **Whisper cross-attention alignment**: CTranslate2's ``align()`` runs
  dynamic time warping over the attention of Whisper's alignment heads and
  returns (token, encoder frame) pairs at 50 frames/s; a token starts at the
  first frame the path assigns to it, a word at its first token's start and
  ends where the next word's first token starts.  It places anything the
  tokenizer can spell (digits included), but its boundaries are coarser.

They live with the models because they load and run them; the timing type,
the cache and the alignment loop stay model-free in ``audio.timing``.
"""

from __future__ import annotations

import functools
from typing import Sequence

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.timing import WordTiming, word_spans
from asraudit.errors import InputError
from asraudit.models.pocketsphinx import PocketSphinx, alignment_words
from asraudit.models.registry import load_model
from asraudit.models.whisper_frontend import HOP_LENGTH

# Whisper's encoder emits one frame per 20 ms (two mel hops of 10 ms).
WHISPER_FRAMES_PER_SECOND = 50

@functools.lru_cache(maxsize=1)
def _default_pocketsphinx() -> PocketSphinx:
    """One en-us pocketsphinx per process for every default aligner.

    Building one reads the acoustic model, language model and dictionary into two decoders (about 0.3 s each);
    an audit asked for an aligner up to six times (its checks, masked recovery, the report), each building its own.
    The aligner keeps no state between clips (each ``align`` sets its text anew), and ``PocketSphinx.align`` holds
    a lock, so one can serve them all."""
    return PocketSphinx()


class PocketSphinxAligner:
    """Forced alignment with pocketsphinx's en-us HMM and dictionary.

    Each word of the text is reduced to the dictionary's spelling (lower
    case, letters and apostrophes; a hyphenated word becomes several); its
    timing runs from its first piece's start to its last piece's end.  A word
    of punctuation alone gets a zero-width timing where the previous word
    ends.  Digits cannot be aligned (the dictionary has no "35"), so a text
    with digits is refused with a message to spell them out or use a Whisper
    aligner.
    """

    def __init__(self, model=None):
        self.model = _default_pocketsphinx() if model is None else model

    @property
    def id(self) -> str:
        return f"pocketsphinx:{self.model.config_hash}"

    def align(self, audio: np.ndarray, text: str) -> list[WordTiming]:
        words = text.split()
        pieces = []
        for w in words:
            if any(ch.isdigit() for ch in w):
                raise ValueError(f"pocketsphinx cannot align digits ({w!r}): spell numbers out, or align with Whisper")
            pieces.append(alignment_words(w))
        flat = [p for ps in pieces for p in ps]
        if not flat:
            return [WordTiming(w, 0.0, 0.0) for w in words]
        timed = self.model.align(audio, " ".join(flat))
        out, k, prev_end = [], 0, 0.0
        for w, ps in zip(words, pieces):
            if not ps:
                out.append(WordTiming(w, prev_end, prev_end))
                continue
            first, last = timed[k], timed[k + len(ps) - 1]
            k += len(ps)
            out.append(WordTiming(w, round(first.start, 4), round(last.end, 4)))
            prev_end = last.end
        return out


class WhisperAligner:
    """Whisper cross-attention alignment through CTranslate2's ``align()``.

    The text is tokenized as Whisper would write it, end-of-text appended
    (so the last word gets an end), and aligned against the encoder output
    of the clip's one 30-s window with ``num_frames`` set to the clip's own
    mel frames, so the padding is never assigned a word.  Token start = the
    first encoder frame of the token on the warping path / 50.  Tokens map
    to words by their character offsets, so punctuation stays with its word.
    """

    def __init__(self, model, median_filter_width: int = 7):
        if not callable(getattr(model, "encode", None)) or not hasattr(model, "tokenizer"):
            raise InputError(f"{getattr(model, 'model_id', model)!r} is not a CTranslate2 Whisper model; "
                             "cross-attention alignment needs one")
        self.model = model
        self.median_filter_width = median_filter_width

    @property
    def id(self) -> str:
        return f"whisper-xattn:{self.model.model_id}:{self.model.config_hash}:{self.median_filter_width}"

    def token_starts(self, audio: np.ndarray, token_ids: Sequence[int]) -> np.ndarray:
        """Start time (s) of each token of ``token_ids`` and of the end-of-text after them."""
        import ctranslate2

        audio = np.asarray(audio, dtype=np.float32)
        encoded = self.model.encode(audio)  # raises for audio over 30 s
        tokenizer = self.model.tokenizer
        language = self.model.options.language if self.model.options.language != "auto" else "en"
        prompt = tokenizer.prompt(language, self.model.options.task)
        ids = list(token_ids) + [tokenizer.eot]
        num_frames = max(2, len(audio) // HOP_LENGTH)
        # The float32 CTranslate2 model that `encode` used (CT2Whisper keeps it for scoring).
        ct2 = self.model._scoring_model()
        (result,) = ct2.align(ctranslate2.StorageView.from_array(np.ascontiguousarray(encoded)), prompt, [ids],
                              num_frames, median_filter_width=self.median_filter_width)
        pairs = np.asarray(result.alignments, dtype=np.int64).reshape(-1, 2)
        starts = np.full(len(ids), np.nan)
        for token_index, frame in pairs:
            if 0 <= token_index < len(ids) and np.isnan(starts[token_index]):
                starts[token_index] = frame / WHISPER_FRAMES_PER_SECOND
        if np.isnan(starts).any():
            # A token the path skipped starts where the next placed token does.
            for k in range(len(ids) - 1, -1, -1):
                if np.isnan(starts[k]):
                    starts[k] = starts[k + 1] if k + 1 < len(ids) else len(audio) / SAMPLE_RATE
        return np.minimum(starts, len(audio) / SAMPLE_RATE)

    def align(self, audio: np.ndarray, text: str) -> list[WordTiming]:
        spans = word_spans(text)
        if not spans:
            return []
        enc = self.model.tokenizer.encode(text)
        starts = self.token_starts(audio, enc.ids)
        owner = []  # word index of each token
        for a, b in enc.offsets:
            w = next((i for i, (s, e) in enumerate(spans) if max(a, s) < min(b, e)), None)
            owner.append(w)
        out = []
        for i, (s, e) in enumerate(spans):
            toks = [k for k, w in enumerate(owner) if w == i]
            if not toks:
                raise ValueError(f"no token of {text!r} covers the word {text[s:e]!r}")
            first, last = toks[0], toks[-1]
            out.append(WordTiming(text[s:e], round(float(starts[first]), 4), round(float(starts[last + 1]), 4)))
        return out


def make_aligner(spec: str, *, device: str = "cpu"):
    """``pocketsphinx`` or a Whisper model spec (``whisper-tiny.en``, ``ct2:<dir>``...)."""
    if spec == "pocketsphinx":
        return PocketSphinxAligner()
    return WhisperAligner(load_model(spec, device=device))
