"""What differs between transformers encoder-decoder ASR families: prompt, features, window.

``HFSeq2Seq`` (``hf.py``) runs every encoder-decoder family the same way:
features from the processor's feature extractor, one encoder pass per clip,
the decoder prompt forced before the text, ``generate`` for transcripts and
one teacher-forced decoder pass for scores.  The families differ only in

* the decoder prompt: Whisper's special tokens; the NeMo multitask prompt
  of Canary and Cohere ASR (``<|startofcontext|>...<|nodiarize|>``, built
  by the processor the model ships with when it can, so the prompt is the
  model's own); the decoder start token and the target-language token
  ``__eng__`` (SeamlessM4T and v2, whose decoder translates into the language
  it is told: transcription is "translation" into the spoken language); the
  decoder start token elsewhere (Moonshine, Speech2Text);
* how the feature extractor must be called (Moonshine-Streaming reads the
  waveform in 5-ms frames, so it pads to a multiple of 80 samples);
* the longest input the model was made for: the window ``transcribe`` cuts
  long audio into, and the limit ``score`` refuses beyond.

This module holds those differences as a ``Recipe`` per model type, so the
runner stays one class and a new family is one entry here.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.errors import InputError

# The NeMo multitask ("canary2") decoder prompt, after the context/transcript markers.
_NEMO_PROMPT_TAIL = ("<|emo:undefined|>", "<|{src}|>", "<|{tgt}|>", "{pnc}", "<|noitn|>", "<|notimestamp|>", "<|nodiarize|>")


@dataclass(frozen=True)
class Recipe:
    """One family's prompt, feature-extractor arguments and input limits.

    ``window_seconds``: the window ``transcribe`` cuts long audio into (the
    longest input the model was trained or documented for).
    ``hard_limit_seconds``: the longest input the model can attend to at all
    (its positional table), or None when it has none; asking for a longer
    window is an input error.
    """

    family: str
    window_seconds: float
    hard_limit_seconds: float | None
    feature_kwargs: tuple[tuple[str, object], ...] = ()
    # False when padding a clip in a batch changes its encoder output (measured on tiny models:
    # Moonshine-Streaming's last frames look ahead into the padding); such models batch only
    # windows of equal length, so a transcript never depends on its batch-mates.
    pads_exactly: bool = True


def _whisper_limits(model) -> tuple[float, float]:
    # 3000 mel frames of 10 ms: one 30-s window, fixed by the encoder's positional table.
    return 30.0, 30.0


def _nemo_limit(model) -> float | None:
    encoder = getattr(model.config, "encoder_config", None)
    positions = getattr(encoder, "max_position_embeddings", None)
    factor = getattr(encoder, "subsampling_factor", None)
    if not positions or not factor:
        return None
    return positions * factor * 0.01  # 10-ms feature hop, subsampled


def _speech2text_limit(model) -> float:
    config = model.config
    return config.max_source_positions * (2 ** config.num_conv_layers) * 0.01


def recipe_for(model, processor) -> Recipe:
    """The recipe of a loaded transformers model (``model.config.model_type``)."""
    model_type = model.config.model_type
    extractor = getattr(processor, "feature_extractor", processor)
    if model_type == "whisper":
        window, hard = _whisper_limits(model)
        return Recipe("whisper", window, hard)
    if model_type == "moonshine":
        # Moonshine was trained on segments of up to 30 s (its paper); rotary positions set no hard limit.
        return Recipe("moonshine", 30.0, None, (("padding", True), ("return_attention_mask", True)))
    if model_type == "moonshine_streaming":
        frame = int(round(model.config.encoder_config.frame_ms * SAMPLE_RATE / 1000))
        return Recipe("moonshine-streaming", 30.0, None,
                      (("padding", True), ("pad_to_multiple_of", frame), ("return_attention_mask", True)),
                      pads_exactly=False)
    if model_type == "cohere_asr":
        # The feature extractor splits audio longer than max_audio_clip_s - overlap_chunk_second
        # (35 - 5 s by default) into chunks of its own; windows up to that length reach the model whole.
        window = float(getattr(extractor, "max_audio_clip_s", 35.0)) - float(getattr(extractor, "overlap_chunk_second", 5.0))
        return Recipe("cohere-asr", window, _nemo_limit(model), (("padding", "longest"), ("return_attention_mask", True)))
    if model_type == "canary":
        hard = _nemo_limit(model)
        return Recipe("canary", min(40.0, hard or 40.0), hard, (("padding", "longest"), ("return_attention_mask", True)))
    if model_type in SEAMLESS:
        # Relative positions in the speech encoder (no table to run out of); 30 s as for the other families.
        # Its encoder output for a clip changes when a batch pads the clip (measured on tiny models, with
        # identical features and the attention mask given), so only equal-length windows share a batch.
        return Recipe(SEAMLESS[model_type], 30.0, None, (("padding", True), ("return_attention_mask", True)),
                      pads_exactly=False)
    if model_type == "speech_to_text":
        hard = _speech2text_limit(model)
        return Recipe("speech2text", min(30.0, hard), hard, (("padding", True), ("return_attention_mask", True)))
    return Recipe(model_type, 30.0, None, (("padding", True), ("return_attention_mask", True)))


def check_window(source: str, recipe: Recipe, window_seconds: float | None) -> float:
    """The window to use: the user's (checked against the model's limit) or the family's."""
    if window_seconds is None:
        return recipe.window_seconds
    if window_seconds <= 0:
        raise InputError(f"model {source!r}: window_seconds must be positive, got {window_seconds}")
    if recipe.hard_limit_seconds is not None and window_seconds > recipe.hard_limit_seconds + 1e-9:
        raise InputError(
            f"model {source!r} ({recipe.family}) attends to at most {recipe.hard_limit_seconds:g} s of audio, "
            f"but window_seconds={window_seconds:g} was asked: use a window of at most {recipe.hard_limit_seconds:g} s"
        )
    return float(window_seconds)


def decoder_positions(config) -> int | None:
    """The positions a seq2seq decoder holds, from its config (None: it does not say)."""
    limit = getattr(config, "max_target_positions", None) or getattr(config, "max_position_embeddings", None)
    decoder = getattr(config, "decoder_config", None)
    if decoder is not None:
        limit = getattr(decoder, "max_position_embeddings", limit)
    return limit


def check_decoder_length(source: str, model, prompt_length: int, max_new_tokens: int) -> None:
    """An input error when prompt + ``max_new_tokens`` cannot fit the decoder's positions."""
    limit = decoder_positions(model.config)
    if limit and prompt_length + max_new_tokens > limit:
        raise InputError(
            f"model {source!r} decodes at most {limit} positions, but its prompt ({prompt_length} tokens) plus "
            f"max_new_tokens={max_new_tokens} exceed that: use max_new_tokens <= {limit - prompt_length}"
        )


def _token_ids(tokenizer, tokens: list[str], source: str) -> list[int]:
    ids = tokenizer.convert_tokens_to_ids(tokens)
    unknown = [t for t, i in zip(tokens, ids) if i is None or i == tokenizer.unk_token_id]
    if unknown:
        raise InputError(f"model {source!r}: its tokenizer lacks the prompt tokens {', '.join(unknown)}; "
                         "is this folder's tokenizer the model's own?")
    return [int(i) for i in ids]


def nemo_prompt(tokenizer, source: str, *, language: str, punctuation: bool, leading: tuple[str, ...] = ()) -> list[int]:
    """The NeMo multitask prompt for transcription in ``language`` (source = target language)."""
    pnc = "<|pnc|>" if punctuation else "<|nopnc|>"
    tokens = list(leading) + ["<|startofcontext|>", "<|startoftranscript|>"] + [
        t.format(src=language, tgt=language, pnc=pnc) for t in _NEMO_PROMPT_TAIL
    ]
    return _token_ids(tokenizer, tokens, source)


def decoder_prompt(model, processor, tokenizer, source: str, *, language: str | None, punctuation: bool) -> list[int]:
    """The decoder prompt of a non-Whisper family, as its processor would build it for transcription."""
    model_type = model.config.model_type
    language = language or "en"
    if model_type == "cohere_asr":
        if hasattr(processor, "get_decoder_prompt_ids"):
            try:
                ids = processor.get_decoder_prompt_ids(language=language, punctuation=punctuation)
            except ValueError as exc:
                raise InputError(f"model {source!r}: {exc}") from None
            return with_generation_start(model, [int(i) for i in ids])
        return with_generation_start(
            model, nemo_prompt(tokenizer, source, language=language, punctuation=punctuation, leading=("▁",)))
    if model_type == "canary":
        if getattr(processor, "chat_template", None) and hasattr(processor, "apply_transcription_request"):
            # The processor's own chat template: the prompt the model card's code feeds.
            silence = np.zeros(SAMPLE_RATE, dtype=np.float32)
            request = processor.apply_transcription_request(silence, source_language=language, punctuation=punctuation)
            return with_generation_start(model, [int(i) for i in request["decoder_input_ids"][0]])
        return with_generation_start(model, nemo_prompt(tokenizer, source, language=language, punctuation=punctuation))
    if model_type in SEAMLESS:
        _quiet_seamless_prompt_warning(model)
        return with_generation_start(model, [seamless_language_token(model, tokenizer, source, language)])
    start = generation_start_token(model)
    if start is None:
        raise InputError(f"model {source!r} names no decoder start token (decoder_start_token_id) in its config")
    return [start]


SEAMLESS = {"seamless_m4t": "seamless-m4t", "seamless_m4t_v2": "seamless-m4t-v2"}


def seamless_language_token(model, tokenizer, source: str, language: str) -> int:
    """The target-language token SeamlessM4T's ``generate(tgt_lang=...)`` would force.

    ``language`` is Seamless's own three-letter code (``eng``, ``fra``, ...);
    the two-letter default ``en`` means ``eng``.  The id comes from the
    generation config's ``text_decoder_lang_to_code_id`` (what ``generate``
    reads), else from the tokenizer's ``__eng__`` token."""
    code = "eng" if language == "en" else language.strip("_")
    table = getattr(model.generation_config, "text_decoder_lang_to_code_id", None) or {}
    if code in table:
        return int(table[code])
    token = f"__{code}__"
    ids = tokenizer.convert_tokens_to_ids([token])
    if ids[0] is None or ids[0] == tokenizer.unk_token_id:
        known = ", ".join(sorted(table)) or "none in its generation config"
        raise InputError(f"model {source!r}: SeamlessM4T has no target-language token for language {language!r} "
                         f"(its languages: {known}); give language as its three-letter code, e.g. eng")
    return int(ids[0])


class _PromptGiven(logging.Filter):
    """Drops SeamlessM4T's warning that no ``tgt_lang`` was given: asraudit forces the
    target-language token itself, as ``decoder_input_ids``, on every call."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "specify a `tgt_lang`" not in record.getMessage()


def _quiet_seamless_prompt_warning(model) -> None:
    logger = logging.getLogger(type(model).__module__)
    if not any(isinstance(f, _PromptGiven) for f in logger.filters):
        logger.addFilter(_PromptGiven())


def generation_start_token(model) -> int | None:
    """The token ``generate`` puts first: the generation config's decoder start token, else its BOS."""
    for config in (model.generation_config, model.config):
        for name in ("decoder_start_token_id", "bos_token_id"):
            value = getattr(config, name, None)
            if value is not None:
                return int(value[0] if isinstance(value, (list, tuple)) else value)
    return None


def with_generation_start(model, prompt: list[int]) -> list[int]:
    """``prompt`` as ``generate`` feeds it: transformers prepends the decoder start token to a
    prompt that does not begin with it, so the scored prompt must too (Cohere ASR's processor
    prompt begins with a "▁" piece, not the start token)."""
    start = generation_start_token(model)
    if start is None or (prompt and prompt[0] == start):
        return list(prompt)
    return [start] + list(prompt)
