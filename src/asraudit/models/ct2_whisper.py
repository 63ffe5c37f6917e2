"""Whisper on CTranslate2 (faster-whisper's model format): transcribe and score.

Transcription is batched greedy or beam search over 30-s windows, without
timestamps, with our own numpy front end (``whisper_frontend``).

Scoring is exact teacher forcing.  The audio is encoded once with
``Whisper.encode()`` and the encoder output is reused for every candidate.
Each candidate's tokens (end-of-text included) are forced after the usual
prompt by passing them as the generation prefix of ``generate(...,
return_logits_vocab=True)``: CTranslate2 runs the decoder over a forced
prefix step by step and returns the full-vocabulary logits at each step, so
the log-softmax read there is the model's own next-token distribution.
``align()`` is not used because it inserts ``<|notimestamps|>`` itself and
renormalises over text tokens only, so it has no end-of-text probability.
Decoding-time suppressions (blank, non-speech symbols) are switched off for
scoring: they are a search heuristic, not the model's likelihood.  Scores are
always computed in float32 (int8 moves probabilities by up to 0.09); when the
model was loaded for transcription in another precision, a float32 copy is
loaded for scoring on first use.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.errors import InputError
from asraudit.models.base import MAX_BEAM_SIZE, TokenScores, backend_options, check_beam_size, score_arguments
from asraudit.models.folder_check import HINT
from asraudit.models.weights_digest import files_digest
from asraudit.models.whisper_frontend import N_SAMPLES, WINDOWING, log_mel_spectrogram, transcribe_in_windows
from asraudit.models.whisper_tokenizer import WhisperTokenizer, english_only_options

SCORE_PRECISION = "float32"
WHISPER_TASKS = ("transcribe", "translate")
# Whisper's decoder holds 448 positions; CTranslate2's generate() stops at max_length // 2 new tokens.
TEXT_CONTEXT = 448


@dataclass(frozen=True)
class WhisperDecodeOptions:
    """Settings that change transcripts (all of them enter ``config_hash``).

    ``language`` applies to multilingual models only; it defaults to English
    rather than detection because the audit compares conditions of one clip
    (silence, masks): a detected language would flip on silence and change
    the prompt between conditions.  ``"auto"`` detects per window.
    """

    beam_size: int = 5
    language: str | None = "en"
    task: str = "transcribe"
    max_length: int = TEXT_CONTEXT
    patience: float = 1.0
    length_penalty: float = 1.0
    repetition_penalty: float = 1.0
    no_repeat_ngram_size: int = 0
    suppress_blank: bool = True
    suppress_tokens: tuple[int, ...] = (-1,)
    batch_size: int = 8

    def __post_init__(self) -> None:
        """Every value checked when the model is loaded (``audit --check`` loads it): CTranslate2 refuses a
        bad one only inside the first ``generate`` call, with a pybind11 signature dump, after other models
        (or stages) had run; a ``task`` it does not know was silently ignored by English-only models."""
        for name, low in (("beam_size", 1), ("max_length", 1), ("no_repeat_ngram_size", 0), ("batch_size", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InputError(f"option {name} must be an integer of at least {low}, got {value!r}")
        check_beam_size(self.beam_size)
        if self.no_repeat_ngram_size > TEXT_CONTEXT:  # past C's integers it was a pybind11 dump at the first clip
            raise InputError(f"option no_repeat_ngram_size {self.no_repeat_ngram_size} is longer than Whisper's "
                             f"decoder ({TEXT_CONTEXT} positions), so no n-gram of it could repeat: give at most "
                             f"{TEXT_CONTEXT}, or 0 to allow repeats")
        for name, positive in (("patience", True), ("length_penalty", False), ("repetition_penalty", True)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or (positive and value <= 0):
                need = "a number above 0" if positive else "a finite number"
                raise InputError(f"option {name} must be {need}, got {value!r}")
        if self.beam_size * self.patience > MAX_BEAM_SIZE:  # 1e19 and more: CTranslate2's ValueError at the first clip
            raise InputError(f"option patience {self.patience:g} asks for beam_size x patience = "
                             f"{self.beam_size * self.patience:g} finished hypotheses, past {MAX_BEAM_SIZE}, the most "
                             "asraudit decodes with (real decoding uses a patience of 1 to 2): give a smaller one")
        if not isinstance(self.suppress_blank, bool):
            raise InputError(f"option suppress_blank must be true or false, got {self.suppress_blank!r}")
        if not isinstance(self.suppress_tokens, tuple) or \
                not all(isinstance(t, int) and not isinstance(t, bool) for t in self.suppress_tokens):
            raise InputError(f"option suppress_tokens must be a list of token ids, got {self.suppress_tokens!r}")
        if self.task not in WHISPER_TASKS:
            raise InputError(f"option task must be one of {', '.join(WHISPER_TASKS)}, got {self.task!r}")
        if self.language is not None and not isinstance(self.language, str):
            raise InputError(f"option language must be a language code such as \"en\", or \"auto\", got {self.language!r}")


def model_fingerprint(model_dir: Path) -> str:
    """The identity of the weights: the whole content of model.bin, its config and vocabulary.

    Exact, not sampled: a fine-tune changes tensors in the middle of model.bin
    (see ``weights_digest``)."""
    if not (model_dir / "model.bin").is_file():
        raise FileNotFoundError(f"{model_dir}: no model.bin")
    names = ("config.json", "vocabulary.txt", "vocabulary.json", "tokenizer.json", "preprocessor_config.json", "model.bin")
    return files_digest(model_dir, names)[:16]


def vocabulary_size(model_dir: Path) -> int | None:
    """The tokens of a CTranslate2 Whisper's vocabulary (``vocabulary.txt`` or ``.json``: its outputs, the timestamp
    tokens included, which ``tokenizer.json`` lacks); 51,865 or more is a multilingual model, as CTranslate2 reads
    it.  None when the folder has neither file."""
    text, listed = model_dir / "vocabulary.txt", model_dir / "vocabulary.json"
    try:
        if text.is_file():
            return len(text.read_text(encoding="utf-8").splitlines())
        if listed.is_file():
            data = json.loads(listed.read_text(encoding="utf-8"))
            return len(data) if isinstance(data, list) else None
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return None


def default_cpu_threads() -> int:
    """CTranslate2's default (4 OpenMP threads), capped at the cores this process may use and at
    ``OMP_NUM_THREADS`` when that names a number (the user's limit on OpenMP threads, as torch reads it).

    More OpenMP threads than cores makes the threads spin against each other:
    on a 2-core machine 4 threads are slower than 2.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    limit = os.environ.get("OMP_NUM_THREADS", "").strip()
    if limit.isdigit() and int(limit) > 0:
        cores = min(cores, int(limit))
    return max(1, min(4, cores))


def _log_softmax(logits) -> np.ndarray:
    x = np.asarray(logits, dtype=np.float64).reshape(-1)
    shifted = x - x.max()
    return shifted - np.log(np.exp(shifted).sum())


def _loaded(model_dir: Path, device: str, compute_type: str, threads: int):
    """CTranslate2's Whisper over ``model_dir``.  A model.bin it cannot read (cut short, damaged) is one line naming
    the folder, a device or compute type this machine cannot run one line naming both, in CTranslate2's own
    words, not a traceback."""
    import ctranslate2

    try:
        return ctranslate2.models.Whisper(str(model_dir), device=device, compute_type=compute_type,
                                          intra_threads=threads)
    except (RuntimeError, ValueError) as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "incomplete" in text or "payload" in text:  # the folder's model.bin: named, with what to do
            raise InputError(f"CTranslate2 cannot load this model: {text} ({HINT})", model_dir) from None
        # a device or compute type this machine cannot run: the caller names the model (its --model, its entry)
        raise InputError(f"CTranslate2 cannot load the model with device {device!r} and compute type "
                         f"{compute_type!r}: {text}") from None


class CT2Whisper:
    """A faster-whisper directory as an asraudit model."""

    backend = "ct2-whisper"

    def __init__(
        self,
        model_dir: str | Path,
        *,
        model_id: str | None = None,
        device: str = "cpu",
        compute_type: str | None = None,
        cpu_threads: int | None = None,
        **options,
    ):
        self.model_dir = Path(model_dir)
        if not (self.model_dir / "model.bin").is_file():
            raise InputError("not a CTranslate2 model directory (no model.bin)", self.model_dir)
        tokenizer_file = self.model_dir / "tokenizer.json"
        if not tokenizer_file.is_file():
            raise InputError(f"tokenizer.json is missing ({HINT})", self.model_dir)
        self.model_id = model_id or str(self.model_dir)
        self.device = device
        self.compute_type = compute_type or SCORE_PRECISION
        self.cpu_threads = cpu_threads if cpu_threads is not None else default_cpu_threads()
        if isinstance(options.get("suppress_tokens"), list):
            options["suppress_tokens"] = tuple(options["suppress_tokens"])
        # On CPU, decode one window at a time: a batch keeps every beam of every
        # window running until the longest transcript ends, which cost 5-15% more
        # CPU time than one window at a time (benchmarks/transcribe_speed.py);
        # on a GPU the batch runs in parallel and pays.
        options.setdefault("batch_size", 1 if device == "cpu" else WhisperDecodeOptions.batch_size)
        self.options = backend_options(WhisperDecodeOptions, options, self.model_id, also=("cpu_threads",))
        self._model = _loaded(self.model_dir, device, self.compute_type, self.cpu_threads)
        self._scorer = self._model if self.compute_type == SCORE_PRECISION else None
        self.tokenizer = WhisperTokenizer(tokenizer_file, multilingual=self._model.is_multilingual)
        if self.is_multilingual and self.options.language not in (None, "auto"):
            try:
                self.tokenizer.language_token(self.options.language)
            except ValueError as exc:
                raise InputError(f"option language: {exc}") from None
        elif not self.is_multilingual:
            english_only_options(self.options.language, self.options.task)
        self._check_decoder_options()
        self.n_mels = self._n_mels()
        self._fingerprint = model_fingerprint(self.model_dir)

    def _check_decoder_options(self) -> None:
        """``max_length`` and ``suppress_tokens`` against this model's decoder and vocabulary, when it loads.

        CTranslate2 decodes up to ``max_length // 2`` new tokens after the prompt: a ``max_length`` past what the
        decoder's 448 positions hold (895 after English-only Whisper's 2-token prompt) loaded and ran, and stopped
        with CTranslate2's ``RuntimeError: No position encodings are defined for positions >= 448`` on the first clip
        whose decoding ran that long (a model caught in a loop, hours into a run), or with a pybind11 dump when past
        C's integers.  A token id outside the vocabulary in ``suppress_tokens`` suppressed nothing, silently."""
        prompt = len(self.tokenizer.prompt("en", self.options.task))
        longest = 2 * (TEXT_CONTEXT + 1 - prompt) + 1
        if self.options.max_length > longest:
            raise InputError(f"option max_length {self.options.max_length} lets CTranslate2 decode "
                             f"{self.options.max_length // 2} tokens after the {prompt}-token prompt, past what "
                             f"Whisper's decoder holds ({TEXT_CONTEXT} positions): give at most {longest}")
        size = vocabulary_size(self.model_dir)
        if size is None:
            return
        wrong = [t for t in self.options.suppress_tokens if t != -1 and not 0 <= t < size]
        if wrong:
            raise InputError(f"option suppress_tokens: {wrong[0]} is no token id of this model (its ids run from 0 "
                             f"to {size - 1}; -1 stands for Whisper's default set of symbols)")

    def _n_mels(self) -> int:
        preprocessor = self.model_dir / "preprocessor_config.json"
        if preprocessor.is_file():
            size = json.loads(preprocessor.read_text()).get("feature_size")
            if size:
                return int(size)
        return int(self._model.n_mels)

    @property
    def is_multilingual(self) -> bool:
        return bool(self._model.is_multilingual)

    @property
    def config_hash(self) -> str:
        settings = {
            "backend": self.backend,
            "weights": self._fingerprint,
            "compute_type": self.compute_type,
            "options": asdict(self.options),
            "windowing": WINDOWING,
        }
        return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]

    # -- features ---------------------------------------------------------

    def features(self, windows: Sequence[np.ndarray]):
        import ctranslate2

        mels = np.stack([log_mel_spectrogram(w, self.n_mels) for w in windows])
        return ctranslate2.StorageView.from_array(np.ascontiguousarray(mels))

    # -- transcription ----------------------------------------------------

    def _prompts(self, encoded, count: int) -> list[list[int]]:
        opts = self.options
        if self.is_multilingual and opts.language == "auto":
            detected = self._model.detect_language(encoded)
            return [self.tokenizer.prompt(best[0][0].strip("<|>"), opts.task) for best in detected]
        return [self.tokenizer.prompt(opts.language, opts.task)] * count

    def _transcribe_windows(self, windows: list[np.ndarray]) -> list[str]:
        opts = self.options
        features = self.features(windows)
        if self.is_multilingual and opts.language == "auto":
            features = self._model.encode(features, to_cpu=False)
        results = self._model.generate(
            features,
            self._prompts(features, len(windows)),
            beam_size=opts.beam_size,
            patience=opts.patience,
            length_penalty=opts.length_penalty,
            repetition_penalty=opts.repetition_penalty,
            no_repeat_ngram_size=opts.no_repeat_ngram_size,
            max_length=opts.max_length,
            suppress_blank=opts.suppress_blank,
            suppress_tokens=list(opts.suppress_tokens),
        )
        return [self.tokenizer.decode(r.sequences_ids[0]).strip() for r in results]

    def transcribe(self, audio: Sequence[np.ndarray]) -> list[str]:
        """Raw transcripts, one per clip; clips over 30 s are cut into windows and joined."""
        return transcribe_in_windows(audio, self._transcribe_windows, self.options.batch_size)

    # -- scoring ----------------------------------------------------------

    def _scoring_model(self):
        if self._scorer is None:
            self._scorer = _loaded(self.model_dir, self.device, SCORE_PRECISION, self.cpu_threads)
        return self._scorer

    def encode(self, audio: np.ndarray) -> np.ndarray:
        """Encoder output ``[1, frames, d_model]`` (float32, on the CPU) for one clip of at most 30 s."""
        audio = np.asarray(audio, dtype=np.float32)
        if audio.shape[0] > N_SAMPLES:
            raise InputError(
                f"cannot score {audio.shape[0] / SAMPLE_RATE:.1f} s of audio: Whisper attends to one 30-s window"
            )
        return np.asarray(self._scoring_model().encode(self.features([audio]), to_cpu=True))

    @property
    def score_seconds(self) -> float:
        """The longest clip ``score`` takes: one window (``ScoringModel``)."""
        return N_SAMPLES / SAMPLE_RATE

    def score(
        self,
        audio: np.ndarray,
        candidates: Sequence[str],
        *,
        batch_size: int = 8,
    ) -> list[TokenScores]:
        """Teacher-forced log p(token | audio, previous tokens) for each candidate, end-of-text included."""
        audio, candidates = score_arguments(audio, candidates)
        return self.score_encoded(self.encode(audio), candidates, batch_size=batch_size)

    def score_encoded(
        self, encoder_output: np.ndarray, candidates: Sequence[str], *, batch_size: int = 8
    ) -> list[TokenScores]:
        """``score`` for audio already passed through ``encode`` (reuse it across candidate sets)."""
        import ctranslate2

        prompt = self.tokenizer.prompt(self.options.language if self.options.language != "auto" else "en", self.options.task)
        encoded = [self.tokenizer.encode(text) for text in candidates]
        for text, enc in zip(candidates, encoded):
            if len(prompt) + len(enc.ids) + 1 > TEXT_CONTEXT:
                raise InputError(f"text {text[:60]!r}... has {len(enc.ids)} tokens, and Whisper's decoder holds "
                                 f"{TEXT_CONTEXT} with its prompt and end-of-text: score a shorter text")
        model = self._scoring_model()
        out: list[TokenScores | None] = [None] * len(candidates)
        # Similar lengths together: every row of a batch runs to the longest row.
        order = sorted(range(len(candidates)), key=lambda i: len(encoded[i].ids))
        for start in range(0, len(order), max(1, batch_size)):
            rows = order[start : start + max(1, batch_size)]
            longest = max(len(encoded[i].ids) for i in rows)
            memory = ctranslate2.StorageView.from_array(
                np.ascontiguousarray(np.repeat(encoder_output, len(rows), axis=0))
            )
            results = model.generate(
                memory,
                [prompt + list(encoded[i].ids) for i in rows],
                beam_size=1,
                max_length=2 * (longest + 1),
                return_logits_vocab=True,
                suppress_blank=False,
                suppress_tokens=[],
            )
            for i, result in zip(rows, results):
                out[i] = self._token_scores(candidates[i], encoded[i], result)
        return out  # type: ignore[return-value]

    def _token_scores(self, text: str, enc, result) -> TokenScores:
        ids = list(enc.ids) + [self.tokenizer.eot]
        steps = result.logits[0]
        forced = list(result.sequences_ids[0][: len(enc.ids)])
        if forced != list(enc.ids) or len(steps) < len(ids):
            raise RuntimeError(
                "CTranslate2 did not follow the forced prefix; teacher-forced scores would be wrong "
                f"(forced {enc.ids[:8]}..., got {forced[:8]}..., {len(steps)} steps for {len(ids)} tokens)"
            )
        logprobs = tuple(float(_log_softmax(steps[k])[token]) for k, token in enumerate(ids))
        end = len(text)
        return TokenScores(
            text=text,
            tokens=tuple(self.tokenizer.token_text(t) for t in ids),
            logprobs=logprobs,
            token_ids=tuple(ids),
            offsets=enc.offsets + ((end, end),),
        )
