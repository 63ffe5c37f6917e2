"""CTC heads on feature-based encoders: Parakeet CTC, LASR, OmniASR CTC and Wav2Vec2-BERT.

``HFCTC`` was written for wav2vec2-style models: raw samples in
(``input_values``), the frame count from the convolutional feature encoder,
blank = pad.  These newer CTC models differ only at the edges, so this
class keeps ``HFCTC``'s scoring (``ctc_prefix``: the CTC likelihood split
into per-token prefix terms, end term last) and changes the edges:

* inputs: whatever the model's feature extractor returns (log-mel
  ``input_features`` for Parakeet, LASR and Wav2Vec2-BERT, ``input_values``
  with a ``padding_mask`` for OmniASR), always with its mask, so that a
  clip's frames do not depend on the other clips in the batch;
* frames per clip: the model's own ``_get_subsampling_output_length`` of
  the mask's length (Wav2Vec2-BERT's ``_get_feat_extract_output_lengths``,
  which counts its optional adapter's striding);
* blank: ``config.blank_token_id`` where the config has one (OmniASR's blank
  is 0 and its pad 1), else the pad token (Parakeet, LASR);
* transcripts: ``HFCTC._decode`` (the greedy path collapsed and the blank
  removed, then decoded without the tokenizer's own grouping, which would
  merge a letter repeated across a blank); these families always decoded so,
  so their hash names no transcript rule.
"""

from __future__ import annotations

import inspect
from typing import Sequence

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.models.hf import HFCTC


class HFEncoderCTC(HFCTC):
    """A transformers CTC model whose encoder takes features and a mask (Parakeet, LASR, OmniASR, Wav2Vec2-BERT)."""

    backend = "hf-encoder-ctc"
    transcript_rule = None  # its transcripts were always collapsed as CTC defines (no stored one changes)

    def __init__(self, source: str, **kwargs):
        super().__init__(source, **kwargs)
        config = self.model.config
        blank = getattr(config, "blank_token_id", None)
        self.blank = int(config.pad_token_id if blank is None else blank)
        self._accepted = set(inspect.signature(self.model.forward).parameters)
        self._frames = getattr(self.model, "_get_subsampling_output_length", None) or self.model._get_feat_extract_output_lengths

    def _log_probs(self, audio: Sequence[np.ndarray]) -> list[np.ndarray]:
        torch = self._torch
        batch = self.processor.feature_extractor(
            [np.asarray(a, dtype=np.float32) for a in audio], sampling_rate=SAMPLE_RATE, return_tensors="pt",
            padding=True, return_attention_mask=True,
        )
        mask = batch["attention_mask"] if "attention_mask" in batch else batch["padding_mask"]
        inputs = {
            k: (v.to(self.device, self.model.dtype) if v.is_floating_point() else v.to(self.device))
            for k, v in batch.items() if k in self._accepted
        }
        with torch.inference_mode():
            logits = self.model(**inputs).logits
            lengths = self._frames(mask.reshape(len(audio), -1).sum(-1))
            logprobs = torch.log_softmax(logits.float(), dim=-1).cpu().numpy()
        return [logprobs[i, : int(lengths[i])] for i in range(len(audio))]

    def _labels(self, text: str) -> list[int]:
        labels = super()._labels(text)
        if self.blank in labels:
            raise ValueError(f"candidate {text[:60]!r} tokenises to the CTC blank: it cannot be scored")
        return labels

    def _offsets(self, text: str, labels: Sequence[int]) -> tuple[tuple[int, int], ...]:
        """Offsets from the fast tokenizer (SentencePiece pieces such as ``▁a`` are not substrings of
        the text, so they cannot be found in it by search); a slow tokenizer searches as ``HFCTC`` does."""
        if not getattr(self.tokenizer, "is_fast", False) or not labels:
            return super()._offsets(text, labels)
        spans = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
        return tuple((int(a), int(b)) for a, b in spans)
