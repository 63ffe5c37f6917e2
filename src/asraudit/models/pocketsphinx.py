"""CMU pocketsphinx (5.x, the ``pocketsphinx`` wheel's en-us model): transcription and forced alignment.

Pocketsphinx is far weaker than Whisper, and that is its use here: a small
classical model with no web-scale training, a control that cannot have
memorised a benchmark's references.  Its forced aligner gives word timings
for span masking when a corpus has none.

Two decoders are kept, one for the language-model search and one for
alignment, because switching a pocketsphinx 5 decoder into alignment mode
replaces its language-model search for good.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import threading
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.errors import InputError
from asraudit.models.base import audio_batch

# Pronunciation variants are written word(2), word(3), ... in pocketsphinx output.
_VARIANT = re.compile(r"\(\d+\)$")
_FILLERS = {"<s>", "</s>", "<sil>", "[NOISE]", "[SPEECH]", "[LAUGH]", "[BREATH]", "[COUGH]"}


class WordTiming(NamedTuple):
    """One aligned word; times in seconds from the start of the clip."""

    word: str
    start: float
    end: float


def to_int16_pcm(audio: np.ndarray) -> bytes:
    """float32 in [-1, 1] to the 16-bit little-endian PCM pocketsphinx reads."""
    clipped = np.clip(np.asarray(audio, dtype=np.float32), -1.0, 1.0)
    return np.round(clipped * 32767.0).astype("<i2").tobytes()


def alignment_words(text: str) -> list[str]:
    """Lower-case words of ``text`` as the en-us dictionary spells them (letters and apostrophes)."""
    return re.findall(r"[a-z']+", text.lower().replace("-", " "))


def _option_problem(kind: type | None, value: object) -> str | None:
    """What a pocketsphinx option of ``kind`` (its Config's own type) needs, when ``value`` is not that (None: fine).

    pocketsphinx's Python Config converts what it is given without a word: any text for a switch is true
    (``bestpath=no``, as its own command line writes a switch, turned the pass on), a fraction for a whole number is
    cut (``maxhmmpf=2.5`` ran as 2), a switch for a number is 1 (``beam=true``), and ``lw=1e400`` (infinity) or
    ``NaN`` went into the search.  None is pocketsphinx's own "not set"."""
    if value is None or kind is None:
        return None
    if kind is bool:
        return None if isinstance(value, bool) else "true or false (pocketsphinx's command line writes yes/no)"
    if kind is int:
        return None if isinstance(value, int) and not isinstance(value, bool) else "a whole number"
    if kind is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        return None if ok else "a finite number"
    return None if isinstance(value, (str, os.PathLike)) else "a text"  # a path from Python, for hmm, lm, dict


_BEAM = ("a beam width from 0 (no pruning) to 1, a ratio to the best path's probability (pocketsphinx reads a "
         "negative one as 0, and one above 1 prunes every path, the best too)")
_LOG_DOMAIN = "0 or above (pocketsphinx takes its logarithm, and reads a negative number as 0)"
_COUNT_OR_ALL = "a count of at least {least}, or -1 for no pruning"

# Ranges of options where pocketsphinx 5.1.1 says them: its Config's descriptions ("... probability", "(or -1 for no
# pruning)"), and its source: a beam, probability or penalty is turned into its logarithm (logmath_log, which reads
# any number at or below 0 as 0), a path is kept while its score is at least the best one's plus the beam's
# logarithm (ngram_search_fwdtree.c), and "Base must be greater than 1.0" (logmath_init).  Others stop the whole
# process (measured on goforward.raw): maxwpf=0 SIGSEGV, maxwpf=-5 "PANIC: No worst BPtable entry remaining",
# logbase=1 SIGSEGV, ds=0 SIGFPE, latsize=0 "malloc(0) failed": an audit ended with no line.  The type comes first.
_RANGES = {
    **dict.fromkeys(("beam", "wbeam", "pbeam", "lpbeam", "lponlybeam", "fwdflatbeam", "fwdflatwbeam", "pl_beam",
                     "pl_pbeam"), (lambda v: 0 <= v <= 1, _BEAM)),
    **dict.fromkeys(("silprob", "fillprob", "kws_plp"), (lambda v: 0 <= v <= 1, "a probability, from 0 to 1")),
    **dict.fromkeys(("wip", "pip", "nwpen", "pl_pip", "kws_threshold"), (lambda v: v >= 0, _LOG_DOMAIN)),
    "maxhmmpf": (lambda v: v == -1 or v >= 0, _COUNT_OR_ALL.format(least=0)),
    "maxwpf": (lambda v: v == -1 or v >= 1, _COUNT_OR_ALL.format(least=1) + " (0 crashes pocketsphinx)"),
    "logbase": (lambda v: v > 1, "above 1 (pocketsphinx: \"Base must be greater than 1.0\"; its decoder crashes on "
                                 "a smaller one)"),
    "ds": (lambda v: v >= 1, "a downsampling ratio of at least 1 (1 computes every frame; 0 crashes pocketsphinx)"),
    "latsize": (lambda v: v >= 1, "a table size of at least 1 (pocketsphinx cannot allocate a smaller one and "
                                  "exits)"),
}


def _range_problem(name: str, value: object) -> str | None:
    """What option ``name`` needs when ``value`` (of the right type) is outside its range (``_RANGES``), or None."""
    if value is None or name not in _RANGES:
        return None
    ok, needs = _RANGES[name]
    return None if ok(value) else needs


class PocketSphinx:
    """The pocketsphinx en-us model as an asraudit model.

    ``config`` takes any pocketsphinx option (``hmm``, ``lm``, ``dict``,
    ``beam``, ...); they enter ``config_hash``.
    """

    backend = "pocketsphinx"

    def __init__(self, *, model_id: str = "pocketsphinx", **config):
        import pocketsphinx

        self.model_id = model_id
        self.config = {"samprate": SAMPLE_RATE, **config}
        # pocketsphinx refuses an unknown key with a bare KeyError from deep inside its Config: name it here
        # (an --option meant for another model of the run, e.g. beam_size, lands here too).
        unknown = sorted(k for k in self.config if k not in pocketsphinx.Config())
        if unknown:
            raise InputError(f"model {model_id!r} has no option {', '.join(repr(k) for k in unknown)}; its "
                             "options are pocketsphinx's decoder settings (hmm, lm, dict, beam, ...)")
        kinds = {a.name: a.type for a in pocketsphinx.Config().describe()}
        for key, value in config.items():
            problem = _option_problem(kinds.get(key.lstrip("-")), value) or _range_problem(key.lstrip("-"), value)
            if problem is not None:
                raise InputError(f"model {model_id!r}: option {key} must be {problem}, got {value!r}")
        self._pocketsphinx = pocketsphinx
        self._decoder = self._new_decoder()
        self._aligner = None
        self._align_lock = threading.Lock()  # one alignment at a time: the aligning decoder holds one text

    def _new_decoder(self):
        try:
            decoder = self._pocketsphinx.Decoder(loglevel="FATAL", **self.config)
        except (KeyError, ValueError, RuntimeError, TypeError) as exc:  # an unknown key is refused above
            raise InputError(f"pocketsphinx refused its options {self.config}: {exc}") from None
        try:  # options that leave it nothing to search with (lm=null) failed only at the first clip, a traceback
            decoder.start_utt()
            decoder.end_utt()
        except RuntimeError as exc:
            raise InputError(f"pocketsphinx refused its options {self.config}: {exc}: its decoder needs a language "
                             "model, grammar or keyphrase to search with") from None
        return decoder

    @property
    def config_hash(self) -> str:
        settings = {"backend": self.backend, "version": self._version(), "config": self.config}
        return hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()[:16]

    @staticmethod
    def _version() -> str:
        import importlib.metadata

        return importlib.metadata.version("pocketsphinx")

    def _decode(self, decoder, audio: np.ndarray) -> None:
        """One utterance, always ended: a decode that raised left the utterance open, and every later call on
        the model failed with "Failed to start utterance processing".  A clip of no samples is no speech
        (``process_raw`` reads past an empty buffer: an ``IndexError``)."""
        pcm = to_int16_pcm(audio)
        decoder.start_utt()
        try:
            if len(pcm):
                decoder.process_raw(pcm, full_utt=True)
        finally:
            decoder.end_utt()

    def transcribe(self, audio: Sequence[np.ndarray]) -> list[str]:
        texts = []
        for clip in audio_batch(audio):
            self._decode(self._decoder, clip)
            hyp = self._decoder.hyp()
            texts.append(hyp.hypstr if hyp is not None else "")
        return texts

    def missing_words(self, text: str) -> list[str]:
        """Words of ``text`` that the pronunciation dictionary lacks (alignment cannot place them)."""
        return sorted({w for w in alignment_words(text) if self._decoder.lookup_word(w) is None})

    def align(self, audio: np.ndarray, text: str) -> list[WordTiming]:
        """Force-align ``text`` to ``audio``: one timing per word of ``text``, silences left out.

        Raises ``ValueError`` naming the words missing from the dictionary (the
        aligner cannot skip a word) and when the aligner finds no path.
        """
        words = alignment_words(text)
        if not words:
            return []
        missing = self.missing_words(text)
        if missing:
            raise ValueError(f"not in the pocketsphinx dictionary, cannot align: {', '.join(missing)}")
        with self._align_lock:
            if self._aligner is None:
                self._aligner = self._new_decoder()
            self._aligner.set_align_text(" ".join(words))
            self._decode(self._aligner, audio)
            frame_rate = float(self._aligner.config["frate"])
            timings = [
                # end_frame is inclusive
                WordTiming(_VARIANT.sub("", seg.word), seg.start_frame / frame_rate, (seg.end_frame + 1) / frame_rate)
                # seg() is None when the aligner found no path through the text (a pure tone, say)
                for seg in self._aligner.seg() or ()
                if _VARIANT.sub("", seg.word) not in _FILLERS
            ]
        if [t.word for t in timings] != words:
            raise ValueError(f"alignment failed: the aligner returned {len(timings)} of {len(words)} words")
        return timings


def default_model_dir() -> Path:
    """The en-us acoustic model inside the pocketsphinx wheel."""
    import pocketsphinx

    return Path(pocketsphinx.get_model_path()) / "en-us"
