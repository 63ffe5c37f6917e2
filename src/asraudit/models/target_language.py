"""Asking a model for another language than the one spoken: the options that make a model a *renderer*.

The translation probe needs each audited model to render English speech in
another language.  How a model is asked differs by family:

* Multilingual Whisper (CTranslate2, transformers): the language token of
  the target with the ``transcribe`` task, forced in the decoder prompt
  (``language=<target>``).  Whisper's own ``translate`` task only goes into
  English, so for English speech the target's token is the only way to
  another language; it is how the paper's en->es check ran on multilingual
  Whisper.  An English-only Whisper (``*.en``) has no language tokens and
  cannot be asked.
* SeamlessM4T (v1, v2): its decoder translates into the language whose
  token it is given, so the target's three-letter code (``language="spa"``)
  asks it for a translation, the family's own task.
* A speech LLM: a prompt that asks for a translation, in the family's own
  prompt format (``translation_template``); a user's template with
  ``{audio}`` and ``{language}`` replaces it.
* The white-box Whisper decodes with the English prompt only (its
  interventions are compared against the English transcripts), and the other
  families (CTC, transducers, pocketsphinx, prediction files, HTTP
  endpoints) have no way to be asked for another language.

A renderer is loaded as its own model (the same spec with the options
here), so its outputs have their own configuration hash and never mix with
the model's transcripts in the store.
"""

from __future__ import annotations

from typing import Any, Mapping

from asraudit.errors import InputError
from asraudit.models.speech_llm_slot import AUDIO_SLOT

LANGUAGE_NAMES = {"es": "Spanish", "fr": "French", "de": "German", "it": "Italian", "pt": "Portuguese",
                  "nl": "Dutch", "pl": "Polish", "en": "English"}
LANGUAGE_SLOT = "{language}"

# The translation request of each speech-LLM family that publishes one, in its own prompt format.
# Qwen2-Audio's authors evaluate speech translation with "Translate the speech into <language>"
# after the audio (as their recognition prompt does with "Detect the language and recognize the speech").
# Phi-4-Multimodal's model card asks "Translate the audio to <language>." in its user turn.
TRANSLATION_TEMPLATES = {
    "qwen2_audio": f"<|audio_bos|>{AUDIO_SLOT}<|audio_eos|>Translate the speech into {LANGUAGE_SLOT}:",
    "phi4_multimodal": f"<|user|>{AUDIO_SLOT}Translate the audio to {LANGUAGE_SLOT}.<|end|><|assistant|>",
}


def language_name(code: str) -> str:
    try:
        return LANGUAGE_NAMES[code]
    except KeyError:
        raise InputError(f"no language name for {code!r}; translation targets: {', '.join(LANGUAGE_NAMES)}") from None


# SeamlessM4T names languages by three-letter codes (its target-language tokens are __spa__, __fra__, ...).
SEAMLESS_CODES = {"es": "spa", "fr": "fra", "de": "deu", "it": "ita", "pt": "por", "nl": "nld", "pl": "pol", "en": "eng"}
SEAMLESS_TYPES = ("seamless_m4t", "seamless_m4t_v2")


def _family(model) -> str:
    """'whisper' (multilingual or not), 'seamless', 'speech-llm', 'whitebox-whisper', or 'other'."""
    backend = getattr(model, "backend", "")
    if backend == "whitebox-whisper":
        return "whitebox-whisper"
    if backend == "hf-speech-llm":
        return "speech-llm"
    if backend == "ct2-whisper" or getattr(model, "is_whisper", False):
        return "whisper"
    config = getattr(getattr(model, "model", None), "config", None)
    if backend == "hf-seq2seq" and getattr(config, "model_type", None) in SEAMLESS_TYPES:
        return "seamless"
    return "other"


def _multilingual(model) -> bool:
    return bool(getattr(model, "is_multilingual", False) or getattr(model, "multilingual", False))


def _speech_llm_type(model) -> str:
    return str(model.model.config.model_type)


def _whisper_lacks(model, target: str) -> bool:
    """Whether a loaded multilingual Whisper has no language token for ``target`` (CTranslate2: its tokenizer;
    transformers: its generation config's languages); False where neither can be read."""
    tokenizer = getattr(model, "tokenizer", None)
    if callable(getattr(tokenizer, "token_id", None)):
        return tokenizer.token_id(f"<|{target}|>") is None
    languages = getattr(getattr(getattr(model, "model", None), "generation_config", None), "lang_to_id", None)
    if languages:
        return f"<|{target}|>" not in languages
    return False


def cannot_render(model, target: str, prompt: str | None = None) -> str | None:
    """Why the loaded ``model`` cannot render speech in ``target`` (None: it can)."""
    family = _family(model)
    if family == "whisper":
        if not _multilingual(model):
            return "an English-only Whisper: its vocabulary has no language token to force"
        if _whisper_lacks(model, target):  # the renderer's load refused it, after the audit's other stages
            return f"its vocabulary has no <|{target}|> token, so {target!r} is not a language of this Whisper"
        return None
    if family == "seamless":
        return None if target in SEAMLESS_CODES else f"no SeamlessM4T language code is known for {target!r}"
    if family == "speech-llm":
        if target not in LANGUAGE_NAMES:  # the prompt names the language: language_name() refused it at render
            return f"no language name is known for {target!r} to ask for it by (known: {', '.join(LANGUAGE_NAMES)})"
        if prompt is not None or _speech_llm_type(model) in TRANSLATION_TEMPLATES:
            return None
        return (f"no translation prompt is known for the {_speech_llm_type(model)} family; give one with "
                f"prompt = \"...{AUDIO_SLOT}...{LANGUAGE_SLOT}...\"")
    if family == "whitebox-whisper":
        return "the white-box Whisper decodes with the English prompt only; audit its CTranslate2 form instead"
    return f"the {getattr(model, 'backend', type(model).__name__)} backend cannot be asked for another language"


def _told_by(model, target: str) -> str:
    """How a renderer that reads no prompt is told the target (a Whisper, a SeamlessM4T)."""
    if _family(model) == "seamless":
        return f"its target-language code {SEAMLESS_CODES.get(target, target)!r}"
    return f"a forced <|{target}|> token"


def prompt_use(renderers: Mapping[str, Any], target: str, prompt: str | None, option: str) -> str | None:
    """Who reads a translation ``prompt`` among ``renderers`` (name -> loaded model, each able to render).

    Only a speech LLM reads one: a Whisper is told the target by a forced
    language token and a SeamlessM4T by its language code, so a prompt given
    for them alone would go unread while its user believes it was used.
    Raises InputError naming ``option`` when no renderer reads it; returns a
    one-line note when some do and some do not; None otherwise."""
    if prompt is None or not renderers:
        return None
    unread = {name: m for name, m in renderers.items() if _family(m) != "speech-llm"}
    if not unread:
        return None
    how = "; ".join(f"{name} is told the language by {_told_by(m, target)}" for name, m in unread.items())
    if len(unread) == len(renderers):
        raise InputError(f"{option} is a speech LLM's translation prompt, and no model rendering {target} is a "
                         f"speech LLM ({how}), so the prompt would go unread: leave {option} out")
    readers = ", ".join(name for name in renderers if name not in unread)
    return f"{option} goes to the speech LLMs only ({readers}); {how}"


def translation_template(model, target: str, prompt: str | None = None) -> str:
    """The prompt template asking the speech LLM ``model`` for ``target``, with ``{audio}`` left in."""
    template = prompt if prompt is not None else TRANSLATION_TEMPLATES.get(_speech_llm_type(model))
    if template is None:
        raise InputError(cannot_render(model, target, prompt) or "no translation prompt")
    if template.count(AUDIO_SLOT) != 1:
        raise InputError(f"the translation prompt must hold {AUDIO_SLOT} exactly once, got {template[:80]!r}")
    return template.replace(LANGUAGE_SLOT, language_name(target))


def renderer_options(model, options: Mapping[str, Any], target: str, prompt: str | None = None) -> dict[str, Any]:
    """The options that load the same model spec as a renderer into ``target`` (InputError when it cannot)."""
    reason = cannot_render(model, target, prompt)
    if reason is not None:
        raise InputError(f"model {getattr(model, 'model_id', model)!r} cannot render {language_name(target)}: {reason}")
    if _family(model) == "speech-llm":
        return {**options, "prompt": translation_template(model, target, prompt)}
    if _family(model) == "seamless":
        return {**options, "language": SEAMLESS_CODES[target]}
    # The target's language token with the transcribe task (see the module docstring).
    return {**options, "language": target, "task": "transcribe"}
