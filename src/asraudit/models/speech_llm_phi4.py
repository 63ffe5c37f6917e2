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
``speech-lora`` subfolder, which transformers applies only through peft;
a folder that has one is loaded with it (peft required), else as is.
"""

from __future__ import annotations

from pathlib import Path

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


def speech_adapter(source: str) -> Path | None:
    """The checkpoint's speech LoRA folder, when it has one locally."""
    folder = Path(source) / "speech-lora"
    return folder if folder.is_dir() else None


def attach_speech_adapter(model, source: str) -> None:
    """Load and activate the checkpoint's speech LoRA (``speech-lora/``), which needs peft."""
    from asraudit.errors import InputError
    from asraudit.models.peft_adapter import transformers_adapter_problem

    folder = speech_adapter(source)
    if folder is None:
        return
    problem = transformers_adapter_problem()
    if problem is not None:
        raise InputError(f"model {source!r} keeps its speech adapter in {folder.name}/, which transformers cannot "
                         f"apply here: {problem}")
    model.load_adapter(str(folder), adapter_name="speech")
    model.set_adapter("speech")
