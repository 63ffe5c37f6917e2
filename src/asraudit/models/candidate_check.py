"""Whether a Whisper can score a text, read from its tokenizer files without its weights.

``asraudit score`` forces each candidate after the decoder's prompt.  A text
holding one of Whisper's special tokens (a raw output with ``<|endoftext|>``
left in) cannot be forced, and a text longer than the decoder's positions
does not fit; the model refused either only when it scored that clip, after
loading and after every model before it had run, and without naming the
candidates file or its row (a transformers Whisper stopped with an
``IndexError`` traceback, or scored the special token as text).

``candidate_checker(spec, options)`` answers from the files the model would
load: the ``tokenizer.json`` beside the weights (read as the CTranslate2
backend reads it, ``WhisperTokenizer``), whether the model is multilingual
(its prompt carries a language and a task token then), and how many
positions its decoder holds (448 for CTranslate2; a transformers folder's
``max_target_positions``).  Any other model (another family, a plug-in, a
hub id not downloaded, a folder whose files do not say) gives None: the model
checks when it scores, as before.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.errors import InputError
from asraudit.models.ct2_whisper import TEXT_CONTEXT as CT2_POSITIONS  # a CTranslate2 folder's files do not say
from asraudit.models.forced_text import special_token, too_long
from asraudit.models.whisper_frontend import N_SAMPLES



def _json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _whisper_folder(spec: str) -> tuple[Path, str] | None:
    """(folder, "ct2" or "hf") of a Whisper ``spec`` names, or None."""
    from asraudit.models import embedded
    from asraudit.models.registry import registered_models

    spec = spec.strip()
    if registered_models().get(spec) is not None:
        return None
    if spec in embedded.EMBEDDED_MODELS:
        return (Path(embedded.locate(spec)), "ct2") if embedded.is_present(spec) else None
    for prefix in ("ct2:", "hf:"):
        if spec.startswith(prefix):
            spec = spec[len(prefix):]
            break
    folder = Path(spec).expanduser()
    if not folder.is_dir():
        return None
    if (folder / "model.bin").is_file():
        return folder, "ct2"
    config = _json(folder / "config.json")
    if config is not None and config.get("model_type") == "whisper":
        return folder, "hf"
    return None


def _hf_whisper_checker(folder: Path, spec: str) -> Callable[[str], str | None] | None:
    """The check of a transformers Whisper folder, with the folder's own tokenizer as the model encodes with it."""
    from asraudit.models.hf import HFSeq2Seq, encode_text, tokenizer_of
    from asraudit.models.whisper_tokenizer import MULTILINGUAL_WHISPER_VOCAB

    tokenizer = tokenizer_of(HFSeq2Seq.read_processor(str(folder.resolve())))
    eot = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    if not isinstance(eot, int):
        return None
    config = _json(folder / "config.json") or {}
    generation = _json(folder / "generation_config.json") or {}
    multilingual = bool(generation.get("lang_to_id"))
    vocab_size = config.get("vocab_size")
    if not multilingual and isinstance(vocab_size, int) and vocab_size >= MULTILINGUAL_WHISPER_VOCAB:
        vocab = tokenizer.get_vocab()  # hf._whisper_languages_from_vocabulary: its language tokens make it one
        multilingual = "<|en|>" in vocab and "<|transcribe|>" in vocab
    positions = config.get("max_target_positions")
    positions = positions if isinstance(positions, int) and positions > 0 else CT2_POSITIONS
    prompt = 4 if multilingual else 2  # start, [language, task,] no-timestamps (hf._HFModel._build_prompt)

    def check(text: str) -> str | None:
        ids = encode_text(tokenizer, text, whisper=True)[0]
        return special_token(text, ids, tokenizer.convert_ids_to_tokens(ids), eot) or \
            too_long(len(ids), prompt, positions, spec)

    return check


def candidate_checker(spec: str) -> Callable[[str], str | None] | None:
    """``text -> why the model spec names cannot score it`` (None: it can), or None when its files do not say."""
    found = _whisper_folder(spec)
    if found is None:
        return None
    folder, kind = found
    spec = spec.strip()
    try:
        if kind == "hf":
            return _hf_whisper_checker(folder, spec)
        from asraudit.models.ct2_whisper import vocabulary_size
        from asraudit.models.whisper_tokenizer import MULTILINGUAL_WHISPER_VOCAB, WhisperTokenizer

        size = vocabulary_size(folder)
        if size is None:
            return None
        # CTranslate2's rule: a vocabulary (vocabulary.txt, the timestamp tokens included) of 51,865 tokens or more
        # is multilingual, and its prompt then carries a language and a task token (WhisperTokenizer.prompt).
        tokenizer = WhisperTokenizer(folder / "tokenizer.json", multilingual=size >= MULTILINGUAL_WHISPER_VOCAB)
        prompt = len(tokenizer.prompt())
    except Exception:  # no tokenizer, one that cannot be read, no ctranslate2: loading the model will say why
        return None

    def check(text: str) -> str | None:
        try:
            n = len(tokenizer.encode(text).ids)
        except InputError as exc:  # a special token, in the tokenizer's own words
            return str(exc)
        return too_long(n, prompt, CT2_POSITIONS, spec)

    return check


# The audio a Whisper scores: one window (30 s).
WHISPER_WINDOW_SECONDS = N_SAMPLES / SAMPLE_RATE


def audio_limit(spec: str) -> float | None:
    """The longest clip (seconds) the model ``spec`` names can score, when its files tell (a Whisper: one 30-s
    window; its ``score`` refused a longer clip only when it came to it, after the clips and models before it)."""
    return WHISPER_WINDOW_SECONDS if _whisper_folder(spec) is not None else None



@dataclass(frozen=True)
class ScoreWindow:
    """The longest clip every scoring model of a run can score, and the model whose window it is.

    Transcription cuts a long clip into windows; teacher forcing cannot, so a Whisper scores one 30-s window
    and refused a longer clip only when its turn came.  In an audit that stopped the lift stage, and every
    stage after it, on a benchmark that holds a few long clips (LibriSpeech's test-clean reaches 35 s).  The
    probes that score leave such clips out of their likelihood readouts instead, every model alike (λ stays
    paired across models), and say how many they left out."""

    seconds: float
    model: str

    def too_long(self, clips: Iterable) -> dict[str, float]:
        """clip id -> seconds, of the clips whose header says they are longer than the window (a sample over is
        the resampler's rounding; audio held in memory has no header and is left to the model's own check)."""
        out = {}
        for clip in clips:
            seconds = clip.header_seconds()
            if seconds is not None and seconds * SAMPLE_RATE > self.seconds * SAMPLE_RATE + 1:
                out[clip.id] = seconds
        return out

    def reason(self, clips: dict[str, float]) -> str:
        """Why ``clips`` (from ``too_long``) cannot be scored, naming the first."""
        first = next(iter(clips))
        return (f"{len(clips)} clip(s) longer than {self.seconds:g} s, and {self.model} scores one "
                f"{self.seconds:g}-s window (e.g. clip {first!r}, {clips[first]:.1f} s)")


def window_of(spec: str, model=None) -> float | None:
    """The longest clip the model scores: a loaded model's own ``score_seconds`` (``ScoringModel``), else what the
    files ``spec`` names tell (``audio_limit``: a Whisper's window; a model not loaded here, such as a Ray
    executor's factory, or not loaded yet)."""
    seconds = getattr(model, "score_seconds", None) if model is not None else None
    if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and seconds > 0:
        return float(seconds)
    return audio_limit(spec)


def shortest_window(windows: dict[str, float | None]) -> ScoreWindow | None:
    """The shortest of ``windows`` (model name -> its window, None: any length), or None if none has one."""
    known = [ScoreWindow(seconds, name) for name, seconds in windows.items() if seconds is not None]
    return min(known, key=lambda w: w.seconds) if known else None


def score_window(specs: Sequence[str], models: Sequence | None = None) -> ScoreWindow | None:
    """The shortest scoring window among the models ``specs`` name (``models``: the same, loaded, when they are)."""
    loaded = list(models) if models is not None else [None] * len(specs)
    return shortest_window({spec.strip(): window_of(spec, model) for spec, model in zip(specs, loaded)})
