"""The transcription prompt of each speech-LLM family, and the check a user's prompt must pass.

A speech LLM's transcript depends on the words it is asked with, so the
prompt is part of the model: ``hf_speech_llm`` hashes the template.  A
template is the rendered prompt text with ``{audio}`` where the clip's
embeddings go; everything else (system turn, instruction, the assistant
header and any answer prefix the family prefills) is literal.

Defaults, per family:

* Qwen3-ASR, GLM-ASR (and any processor with ``apply_transcription_request``):
  the checkpoint's own transcription request, rendered by its processor with
  the chat template saved beside the weights, so the default is exactly what
  the checkpoint's authors ship.  Qwen3-ASR's request prefills
  ``language <NAME><asr_text>`` when a language is given.
  GLM-ASR's request is its ``default_transcription_prompt`` after the audio;
  its answer ends with the generation config's first end token.
* Granite-Speech: the model card's user turn ``<|audio|>can you transcribe the
  speech into a written format?`` rendered by the checkpoint's chat template
  (no system turn); the answer ends with generation's first end token.
* Granite-Speech-Plus: its transformers documentation's ASR request, a system
  turn (``GRANITE_PLUS_SYSTEM``) then ``<|audio|> can you transcribe the speech
  into a written format?``, rendered by the checkpoint's chat template; the
  answer ends with generation's first end token.
* Voxtral: mistral-common's transcription request (``encode_transcription``),
  decoded back to text (``<s>[INST][BEGIN_AUDIO]{audio}[/INST]lang:en[TRANSCRIBE]``);
  the answer ends with ``</s>``.  See ``speech_llm_voxtral``.
* Phi-4-Multimodal: the model card's request
  ``<|user|>{audio}Transcribe the audio clip into text.<|end|><|assistant|>``,
  ending with ``<|end|>``.  See ``speech_llm_phi4``.
* Audio Flamingo 3: the processor's transcription request (``<sound>`` before its
  ``default_transcription_prompt``, "Transcribe the input speech.") with the answer's framing prefilled:
  AF3 answers a transcription request with a sentence, ``The spoken content of the audio is "TEXT".``
  (its processor's ``decode(strip_prefix=True)`` strips it), so the score of a bare candidate would be the
  probability of an answer the model does not give.  The prompt ends ``The spoken content of the audio
  is "`` and the answer closes with ``".`` before ``<|im_end|>``; both are scored and stripped.
* Fun-ASR-Nano: the processor's transcription request, rendered with the checkpoint's chat template
  (``语音转写成英文：`` and the audio, the language named in Chinese as the model was trained; zh, en and ja
  only, ``language=None`` names none); the answer ends with ``<|im_end|>``.
* Qwen2-Audio: the Qwen2-Audio authors' speech-recognition (evaluation) prompt for the base model,
  ``<|audio_bos|>{audio}<|audio_eos|>Detect the language and recognize the
  speech: <|en|>`` (the language tag follows ``language``); the base model
  ends its answer with ``<|endoftext|>``.  For the Instruct checkpoint give a
  chat template with ``prompt=...`` and ``end_token=<|im_end|>``.

Torch-free: only the template logic lives here.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from asraudit.errors import InputError
from asraudit.models.speech_llm_phi4 import phi4_default
from asraudit.models.speech_llm_slot import AUDIO_SLOT
from asraudit.models.speech_llm_voxtral import voxtral_default



def check_template(template: str, model: str) -> None:
    """An InputError unless ``template`` holds the audio exactly once."""
    count = template.count(AUDIO_SLOT)
    if count != 1:
        where = "does not contain" if count == 0 else f"contains {count} times"
        raise InputError(
            f"model {model!r}: the prompt template {where} the audio slot {AUDIO_SLOT}; "
            f"write the prompt with {AUDIO_SLOT} exactly once where the clip goes (got {template[:80]!r})"
        )


def _rendered_request(processor, language: str | None) -> str:
    """The processor's own transcription request for one clip, with its audio placeholder as ``{audio}``."""
    request = processor.apply_transcription_request
    # GLM-ASR's request has no language argument (its prompt names none).
    extra = {"language": language} if "language" in inspect.signature(request).parameters else {}
    (text,) = request(np.zeros(SILENT_SAMPLES, dtype=np.float32), tokenize=False, **extra)
    token = processor.audio_token
    if text.count(token) != 1:
        raise InputError(f"the processor's transcription request holds {text.count(token)} audio placeholders, expected one")
    return text.replace(token, AUDIO_SLOT)


SILENT_SAMPLES = 1600  # a placeholder clip for rendering (tokenize=False never reads it)


def _qwen2_audio(processor, language: str | None) -> str:
    tag = f" <|{language}|>" if language else ""
    return f"<|audio_bos|>{AUDIO_SLOT}<|audio_eos|>Detect the language and recognize the speech:{tag}"


GRANITE_REQUEST = "<|audio|>can you transcribe the speech into a written format?"


def _granite(processor, language: str | None) -> str:
    """The Granite-Speech model card's user turn, rendered by the checkpoint's chat template."""
    text = processor.tokenizer.apply_chat_template([{"role": "user", "content": GRANITE_REQUEST}], tokenize=False,
                                                   add_generation_prompt=True)
    return text.replace(processor.audio_token, AUDIO_SLOT, 1)


# transformers' Granite Speech Plus documentation (docs/source/en/model_doc/granite_speech_plus.md, "Task 1: ASR"):
# a system turn, then the user turn with the audio, a space, and the request.
GRANITE_PLUS_SYSTEM = ("Knowledge Cutoff Date: April 2024.\nToday's Date: December 19, 2024.\n"
                       "You are Granite, developed by IBM. You are a helpful AI assistant")
GRANITE_PLUS_REQUEST = "<|audio|> can you transcribe the speech into a written format?"


def _granite_plus(processor, language: str | None) -> str:
    """Granite-Speech-Plus's documented ASR request (system turn and user turn), rendered as the documentation
    renders it: the processor's ``apply_chat_template`` with the checkpoint's chat template.  Its system turn
    is spelled out there (a fixed date), so the prompt does not depend on the day the template is rendered."""
    chat = [{"role": "system", "content": GRANITE_PLUS_SYSTEM}, {"role": "user", "content": GRANITE_PLUS_REQUEST}]
    text = processor.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
    return text.replace(processor.audio_token, AUDIO_SLOT, 1)


def _asr_text_answer(text: str) -> str:
    """Qwen3-ASR answers ``language <NAME><asr_text>TEXT`` when the language is not prefilled."""
    marker = "language "
    text = text.strip()
    if text.startswith(marker) and "<asr_text>" in text:
        return text.split("<asr_text>", 1)[1].strip()
    return text


AF3_PREFIX = 'The spoken content of the audio is "'  # the first framing AF3's processor strips, prefilled
AF3_CLOSING = '".'  # what closes that framing after the transcript


def _audioflamingo3(processor, language: str | None) -> str:
    """AF3's own transcription request, its answer's framing prefilled (the module docstring says why)."""
    return _rendered_request(processor, language) + AF3_PREFIX


def _framed_answer(text: str) -> str:
    """An AF3 answer to a prompt of the user's, its framing stripped as its processor's ``decode(strip_prefix=True)``
    does (``The spoken content of the audio is "TEXT".`` and two other openings)."""
    text = text.strip()
    for prefix in ("The spoken content of the audio is", "The transcription of the audio is",
                   "The content of the input audio is"):
        if text.startswith(prefix):
            text = text[len(prefix):].strip()
            break
    if text.endswith("."):
        text = text[:-1].strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1].strip()
    return text


def _fun_asr_request(processor, language: str | None) -> str:
    """Fun-ASR-Nano's transcription request; a language its request cannot name is one line, not the processor's
    ValueError (its prompt names Chinese, English or Japanese)."""
    try:
        return _rendered_request(processor, language)
    except ValueError as exc:
        if "Unsupported language" not in str(exc):
            raise
        raise InputError(f"option language={language!r}: Fun-ASR-Nano's transcription request names zh, en or ja "
                         "(Chinese, English, Japanese), or none with language=None") from None


@dataclass(frozen=True)
class PromptFormat:
    """What differs between speech-LLM families."""

    model_class: str  # the transformers class that loads the checkpoint
    end_token: str | None  # closes the assistant turn: the score's last term (None: generation's first eos)
    max_seconds: float | None  # the longest clip one prompt takes; longer audio is windowed (None: the processor's max_audio_len)
    default: Callable[[object, str | None], str] = field(default=_rendered_request)
    clean: Callable[[str], str] = field(default=str.strip)  # an answer to a prompt of the user's (prompt=...)
    # What the default prompt's answer ends with before the end token (AF3's closing quote and full stop):
    # scored after each candidate, tokenized with it, and cut from a transcript that ends with it.
    closing: str = ""
    # "module:function" (source, revision) -> processor, when AutoProcessor cannot build it here.
    processor_loader: str | None = None
    # "module:function" (model, clips) -> model inputs, when the processor cannot take the prompt as text.
    inputs_builder: str | None = None
    # "module:function" (model, source, revision) called after loading (the checkpoint's speech LoRA to merge).
    after_load: str | None = None
    # The encoder hears the batch's audio padding: transcribe batches only windows of one length (Granite: its
    # extractor pads every clip to the batch's longest before the STFT, and its conformer's block attention and
    # convolutions take no mask, so a clip padded in a batch was transcribed otherwise than alone).
    unmasked_audio_padding: bool = False

    def default_template(self, processor, language: str | None, source: str | None = None) -> str:
        """The family's default prompt; a processor without the chat template that renders it is one line
        naming ``source`` (transformers raises a ValueError when the template is used, here at load)."""
        try:
            return self.default(processor, language)
        except ValueError as exc:
            if "chat template" not in str(exc).lower() and "chat_template" not in str(exc):
                raise
            raise InputError(
                "its processor has no chat template (chat_template.jinja, or chat_template in tokenizer_config.json), "
                f"which renders {self.model_class.removesuffix('ForConditionalGeneration')}'s transcription prompt: "
                "copy the checkpoint's chat_template.jinja into the folder, or give the prompt (option prompt=..., "
                f"with {AUDIO_SLOT} where the clip goes)", source) from None


FORMATS: dict[str, PromptFormat] = {
    # Whisper-style encoder: 30-s feature windows (3000 frames).
    "qwen2_audio": PromptFormat("Qwen2AudioForConditionalGeneration", "<|endoftext|>", 30.0, default=_qwen2_audio),
    # The window is asraudit's choice (the encoder itself runs in 8-s chunks and takes more).
    "qwen3_asr": PromptFormat("Qwen3ASRForConditionalGeneration", "<|im_end|>", 30.0, clean=_asr_text_answer),
    # The processor cuts audio into 30-s encoder chunks up to its max_audio_len (655 s, ~8192 LM tokens).
    "glmasr": PromptFormat("GlmAsrForConditionalGeneration", None, None),
    # Qwen2 chat format; the processor cuts audio into 30-s encoder windows up to its max_audio_len (600 s,
    # the model's 10 minutes).
    "audioflamingo3": PromptFormat("AudioFlamingo3ForConditionalGeneration", "<|im_end|>", None,
                                   default=_audioflamingo3, clean=_framed_answer, closing=AF3_CLOSING),
    # Qwen3 chat format; the encoder's 2048 positions hold 123 s of 60-ms frames, 30-s windows are asraudit's
    # choice.  Its extractor is asraudit's torchaudio-free one (fun_asr_features).
    "fun_asr_nano": PromptFormat("FunAsrNanoForConditionalGeneration", "<|im_end|>", 30.0, default=_fun_asr_request,
                                 processor_loader="asraudit.models.fun_asr_features:load_fun_asr_processor",
                                 after_load="asraudit.models.fun_asr_features:mask_adaptor_padding"),
    # Conformer encoder over any length; 30-s windows are asraudit's choice.
    # mistral-common renders the request as ids; the encoder takes any number of 30-s windows in one
    # prompt, and the model card gives 30 minutes as the transcription limit.
    "voxtral": PromptFormat("VoxtralForConditionalGeneration", "</s>", 1800.0,
                            default=voxtral_default,
                            inputs_builder="asraudit.models.speech_llm_voxtral:voxtral_inputs"),
    # Without the image processor (torchvision); 30-s windows are asraudit's choice.
    "phi4_multimodal": PromptFormat("Phi4MultimodalForCausalLM", "<|end|>", 30.0, default=phi4_default,
                                    processor_loader="asraudit.models.speech_llm_phi4:load_phi4_audio_processor",
                                    after_load="asraudit.models.speech_llm_phi4:attach_speech_adapter"),
    "granite_speech": PromptFormat("GraniteSpeechForConditionalGeneration", None, 30.0, default=_granite,
                                   processor_loader="asraudit.models.granite_features:load_granite_processor",
                                   after_load="asraudit.models.lora_merge:attach_folder_adapter",
                                   unmasked_audio_padding=True),
    # Granite-Speech with a wider projector input; the same processor, feature extractor and folder LoRA
    # (transformers maps granite_speech_plus to GraniteSpeechProcessor and GraniteSpeechFeatureExtractor).
    "granite_speech_plus": PromptFormat("GraniteSpeechPlusForConditionalGeneration", None, 30.0, default=_granite_plus,
                                        processor_loader="asraudit.models.granite_features:load_granite_processor",
                                        after_load="asraudit.models.lora_merge:attach_folder_adapter",
                                        unmasked_audio_padding=True),
}


def format_for(model_type: str) -> PromptFormat:
    try:
        return FORMATS[model_type]
    except KeyError:
        raise InputError(f"model_type {model_type!r} is not a speech LLM asraudit can prompt (known: {', '.join(FORMATS)})") from None
