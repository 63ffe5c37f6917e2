"""Phi-4-Multimodal without its image processor.

Phi-4-Multimodal's processor bundles an image processor that imports
torchvision, which a speech audit does not need (and which is not installed
with the ``hf`` extra).  Scoring and transcribing audio need only the
tokenizer and the audio feature extractor, so this loader builds those two
and a small processor with the same contract as the family processors
``hf_speech_llm`` uses: ``audio_token``, ``tokenizer``, ``feature_extractor``
and ``__call__(text=..., audio=...)`` that expands each audio placeholder to
the clip's number of audio embeddings (the feature extractor's
``audio_embed_sizes``), as Phi-4's own processor does.

The speech LoRA: the released checkpoint keeps its speech adapter in a
``speech-lora`` subfolder, which the model card activates for speech
requests (transformers would apply it through peft >= 0.22 only); a
checkpoint that has one gets it merged into its weights (``lora_merge``,
no peft needed), else it is loaded as is.
"""

from __future__ import annotations

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.models.speech_llm_slot import AUDIO_SLOT


class AudioOnlyProcessor:
    """Tokenizer + audio feature extractor, expanding the audio placeholder like Phi-4's processor."""

    def __init__(self, tokenizer, feature_extractor):
        self.tokenizer = tokenizer
        self.feature_extractor = feature_extractor
        self.audio_token = tokenizer.audio_token

    def __call__(self, *, text: list[str], audio: list[np.ndarray], **_):
        import torch

        features = self.feature_extractor(list(audio), sampling_rate=SAMPLE_RATE, return_tensors="pt")
        sizes = [int(n) for n in features["audio_embed_sizes"]]
        expanded = [t.replace(self.audio_token, self.audio_token * n, 1) for t, n in zip(text, sizes)]
        encoded = self.tokenizer(expanded, add_special_tokens=False, padding=True, return_tensors="pt")
        return {**encoded, **{k: v for k, v in features.items() if isinstance(v, torch.Tensor)}}


def load_phi4_audio_processor(source: str, revision: str | None = None) -> AudioOnlyProcessor:
    from transformers import AutoTokenizer, Phi4MultimodalFeatureExtractor

    return AudioOnlyProcessor(AutoTokenizer.from_pretrained(source, revision=revision),
                              Phi4MultimodalFeatureExtractor.from_pretrained(source, revision=revision))


def phi4_default(processor, language: str | None) -> str:
    """The Phi-4-Multimodal model card's speech-recognition request, as a chat turn."""
    return f"<|user|>{AUDIO_SLOT}Transcribe the audio clip into text.<|end|><|assistant|>"


def attach_speech_adapter(model, source: str, revision: str | None = None) -> None:
    """Merge the checkpoint's speech LoRA (``speech-lora/``, local or in the hub repository) when it has one."""
    from asraudit.models.lora_merge import attach, find_adapter

    folder = find_adapter(source, "speech-lora", revision)
    if folder is not None:
        attach(model, folder)
