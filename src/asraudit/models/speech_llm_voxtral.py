"""Voxtral's prompt: token ids from mistral-common, not text through a chat template.

Voxtral's processor refuses text that holds its audio token and renders a
transcription request only as token ids (mistral-common's
``encode_transcription``): ``<s>[INST][BEGIN_AUDIO]`` + one ``[AUDIO]`` per
audio embedding + ``[/INST]lang:en[TRANSCRIBE]``.  asraudit keeps the same
template idea as for the other speech LLMs: the default template is that
request decoded back to text with the run of audio tokens written
``{audio}``, and a template (default or the user's) is turned into ids by
mapping each special-token string (``[INST]``, ``<s>``, ...) to its id and
encoding the text between them.  Each clip's audio is padded to whole 30-s
windows (as the processor does); every window gives
``max_source_positions * hidden_size / intermediate_size`` embeddings (375
for Voxtral-Mini), each of which fills one ``[AUDIO]`` slot.
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.models.speech_llm_slot import AUDIO_SLOT

AUDIO_TOKEN = "[AUDIO]"
_SPECIAL = re.compile(r"(<s>|</s>|\[/?[A-Z_]+\])")
_WINDOW_SAMPLES = 30 * SAMPLE_RATE


def voxtral_default(processor, language: str | None) -> str:
    """The checkpoint's transcription request (mistral-common), with its audio tokens as ``{audio}``."""
    request = processor.apply_transcription_request(np.zeros(SAMPLE_RATE, dtype=np.float32), model_id="asraudit",
                                                    language=language, sampling_rate=SAMPLE_RATE, format="wav")
    ids = request["input_ids"][0].tolist()
    audio_id = processor.audio_token_id
    first, last = ids.index(audio_id), len(ids) - ids[::-1].index(audio_id)
    decode = lambda part: processor.tokenizer.decode(part, skip_special_tokens=False)  # noqa: E731
    return decode(ids[:first]) + AUDIO_SLOT + decode(ids[last:])


def template_ids(tokenizer, text: str) -> list[int]:
    """Ids of prompt text: special-token strings map to their ids, the rest is encoded as text."""
    ids: list[int] = []
    unk = tokenizer.convert_tokens_to_ids("<unk>")
    for piece in _SPECIAL.split(text):
        if not piece:
            continue
        special = tokenizer.convert_tokens_to_ids(piece) if _SPECIAL.fullmatch(piece) else None
        if special is not None and special != unk:
            ids.append(int(special))
        else:
            ids.extend(tokenizer.encode(piece, add_special_tokens=False))
    return ids


def voxtral_inputs(model, clips: Sequence[np.ndarray]) -> dict:
    """Left-padded ``input_ids``/``attention_mask`` and stacked 30-s feature windows for ``clips``."""
    import torch

    processor, tokenizer = model.processor, model.tokenizer
    before, _, after = model.template.partition(AUDIO_SLOT)
    head, tail = template_ids(tokenizer, before), template_ids(tokenizer, after)
    audio_config = model.model.config.audio_config
    per_window = audio_config.max_source_positions * audio_config.hidden_size // audio_config.intermediate_size
    rows, windows = [], []
    for clip in clips:
        clip = np.asarray(clip, dtype=np.float32)
        n_windows = max(1, -(-clip.shape[0] // _WINDOW_SAMPLES))
        padded = np.zeros(n_windows * _WINDOW_SAMPLES, dtype=np.float32)
        padded[: clip.shape[0]] = clip
        features = processor.feature_extractor(padded, sampling_rate=SAMPLE_RATE, return_tensors="pt", padding=True,
                                               truncation=False, pad_to_multiple_of=_WINDOW_SAMPLES)["input_features"]
        windows.append(features.reshape(features.shape[1], -1, 3000).transpose(0, 1))
        rows.append(head + [processor.audio_token_id] * (n_windows * per_window) + tail)
    width = max(len(r) for r in rows)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    ids = torch.tensor([[pad] * (width - len(r)) + r for r in rows])
    mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows])
    return {"input_ids": ids, "attention_mask": mask, "input_features": torch.cat(windows)}
