"""The tokenizer and configs of a converted white-box Whisper.

The weights say nothing about how transformers must tokenize and decode;
this module builds what it needs besides them from the CTranslate2 model's
own files: a repaired ``tokenizer.json`` as a transformers tokenizer, the
``WhisperConfig``, the ``GenerationConfig``, and the decoder prompt.  It is
separate from ``convert`` (which maps the weights and manages the cache)
because these rules are about Whisper's token layout, which the tests check
against ``vocabulary.txt`` on their own.
"""

from __future__ import annotations

import json

from asraudit.models.whisper_tokenizer import restore_missing_merges
from asraudit.models.whitebox.ct2_format import Ct2Model
from asraudit.models.whitebox.sources import Ct2Source

TIME_PRECISION = 0.02
N_TIMESTAMPS = 1501  # <|0.00|> .. <|30.00|>


class ConversionError(RuntimeError):
    """The CTranslate2 model does not have the layout this converter knows."""


def count_layers(ct2: Ct2Model, stack: str) -> int:
    """How many layers the ``encoder`` or ``decoder`` stack of the CTranslate2 model has."""
    n = 0
    while f"{stack}/layer_{n}/ffn/linear_0/weight" in ct2.weights:
        n += 1
    if n == 0:
        raise ConversionError(f"no {stack} layers found")
    return n


def _load_tokenizer_json(source: Ct2Source) -> dict:
    return json.loads(source.tokenizer_json.read_text(encoding="utf-8"))


def fixed_tokenizer_json(source: Ct2Source) -> tuple[dict, list[str]]:
    """The model's tokenizer.json, repaired, and its special tokens in id order.

    Two repairs, both checked against ``vocabulary.txt`` (CTranslate2's own
    id -> token table) by the tests:

    * lost BPE merges are restored (base's file lacks the first merge
      ``Ġ t``, so " the" would split into "Ġ" + "the"), by the same rule the
      CTranslate2 backend's tokenizer uses, so both encode a text alike;
    * the 1501 timestamp tokens are not in the file; they are appended after
      ``<|notimestamps|>`` as non-special added tokens, which is where
      Whisper puts them and where transformers looks for them
      (timestamp_begin = last special id + 1).
    """
    data = _load_tokenizer_json(source)
    restore_missing_merges(data)
    added = sorted(data["added_tokens"], key=lambda tok: tok["id"])
    specials = [tok["content"] for tok in added if tok.get("special")]
    if not specials or specials[-1] != "<|notimestamps|>":
        raise ConversionError(f"{source.tokenizer_json}: special tokens do not end with <|notimestamps|>")
    if not any(tok["content"] == "<|0.00|>" for tok in added):
        begin = added[-1]["id"] + 1
        for i in range(N_TIMESTAMPS):
            data["added_tokens"].append(
                {
                    "id": begin + i,
                    "content": f"<|{i * TIME_PRECISION:.2f}|>",
                    "single_word": False,
                    "lstrip": False,
                    "rstrip": False,
                    "normalized": False,
                    "special": False,
                }
            )
    return data, specials


def build_tokenizer(source: Ct2Source):
    """A transformers ``WhisperTokenizer`` with its special tokens set explicitly.

    transformers derives the first timestamp id from the *last special id*,
    so every Whisper special token (languages, tasks, ``<|notimestamps|>``)
    is registered as an extra special token; with only the defaults
    (``<|endoftext|>``) every timestamp id would be off.
    """
    import tokenizers
    from transformers import WhisperTokenizer

    data, specials = fixed_tokenizer_json(source)
    backend = tokenizers.Tokenizer.from_str(json.dumps(data))
    eot = "<|endoftext|>"
    return WhisperTokenizer(
        tokenizer_object=backend,
        unk_token=eot,
        bos_token=eot,
        eos_token=eot,
        pad_token=eot,
        extra_special_tokens=[tok for tok in specials if tok != eot],
    )


def _special_ids(tokenizer) -> dict[str, int]:
    ids = {}
    for key, token in {
        "eot": "<|endoftext|>",
        "sot": "<|startoftranscript|>",
        "translate": "<|translate|>",
        "transcribe": "<|transcribe|>",
        "prev": "<|startofprev|>",
        "no_timestamps": "<|notimestamps|>",
        "en": "<|en|>",
    }.items():
        ids[key] = tokenizer.convert_tokens_to_ids(token)
    return ids


def build_configs(ct2: Ct2Model, ct2_config: dict, tokenizer):
    """``WhisperConfig`` and ``GenerationConfig`` from the CTranslate2 model and its config.json.

    The generation config carries what transformers' Whisper ``generate``
    reads (language and task ids, timestamp id, suppression lists, alignment
    heads) so a converted model decodes like the original with no arguments.
    """
    from transformers import GenerationConfig, WhisperConfig

    vocab_size, d_model = ct2.weight("decoder/embeddings/weight").shape
    if len(tokenizer) != vocab_size:
        raise ConversionError(f"tokenizer has {len(tokenizer)} tokens but the embeddings {vocab_size}")
    if ct2.flags.get("decoder/pre_norm", 1) != 1 or ct2.flags.get("decoder/scale_embeddings", 0) != 0:
        raise ConversionError("unexpected decoder flags for a Whisper model: " + repr(ct2.flags))
    ids = _special_ids(tokenizer)
    multilingual = vocab_size >= 51865
    encoder_layers = count_layers(ct2, "encoder")
    decoder_layers = count_layers(ct2, "decoder")
    config = WhisperConfig(
        vocab_size=vocab_size,
        num_mel_bins=ct2.weight("encoder/conv1/weight").shape[1],
        encoder_layers=encoder_layers,
        decoder_layers=decoder_layers,
        encoder_attention_heads=int(ct2.flags["encoder/num_heads"]),
        decoder_attention_heads=int(ct2.flags["decoder/num_heads"]),
        encoder_ffn_dim=ct2.weight("encoder/layer_0/ffn/linear_0/weight").shape[0],
        decoder_ffn_dim=ct2.weight("decoder/layer_0/ffn/linear_0/weight").shape[0],
        d_model=d_model,
        max_source_positions=ct2.weight("encoder/position_encodings/encodings").shape[0],
        max_target_positions=ct2.weight("decoder/position_encodings/encodings").shape[0],
        activation_function="gelu",
        scale_embedding=False,
        tie_word_embeddings=True,
        decoder_start_token_id=ids["sot"],
        bos_token_id=ids["eot"],
        eos_token_id=ids["eot"],
        pad_token_id=ids["eot"],
        suppress_tokens=list(ct2_config.get("suppress_ids", [])),
        begin_suppress_tokens=list(ct2_config.get("suppress_ids_begin", [220, ids["eot"]])),
    )
    languages = [tok for tok in tokenizer.extra_special_tokens if _is_language_token(tok)]
    generation = GenerationConfig(
        decoder_start_token_id=ids["sot"],
        bos_token_id=ids["eot"],
        eos_token_id=ids["eot"],
        pad_token_id=ids["eot"],
        max_length=config.max_target_positions,
        suppress_tokens=list(ct2_config.get("suppress_ids", [])),
        begin_suppress_tokens=list(ct2_config.get("suppress_ids_begin", [220, ids["eot"]])),
        no_timestamps_token_id=ids["no_timestamps"],
        prev_sot_token_id=ids["prev"],
        max_initial_timestamp_index=50,
        is_multilingual=multilingual,
        alignment_heads=[list(pair) for pair in ct2_config.get("alignment_heads", [])],
        return_timestamps=False,
    )
    if multilingual:
        generation.lang_to_id = {tok: tokenizer.convert_tokens_to_ids(tok) for tok in languages}
        generation.task_to_id = {"transcribe": ids["transcribe"], "translate": ids["translate"]}
        generation.language = "<|en|>"
        generation.task = "transcribe"
    return config, generation


def _is_language_token(token: str) -> bool:
    inner = token[2:-2]
    return token.startswith("<|") and token.endswith("|>") and 2 <= len(inner) <= 3 and inner.isalpha() and inner.islower()


def prompt_ids(tokenizer, multilingual: bool) -> list[int]:
    """The decoder prompt for English transcription without timestamps.

    This is what the CTranslate2 backend sends, so the white-box model
    decodes from the very same prefix: ``<|startoftranscript|>`` then, for
    multilingual models, ``<|en|><|transcribe|>``, then ``<|notimestamps|>``.
    """
    ids = _special_ids(tokenizer)
    prompt = [ids["sot"]]
    if multilingual:
        prompt += [ids["en"], ids["transcribe"]]
    return prompt + [ids["no_timestamps"]]
