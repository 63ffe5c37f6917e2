"""Granite-Speech's log-mel features without torchaudio.

transformers' ``GraniteSpeechFeatureExtractor`` builds its spectrogram with
``torchaudio.transforms.MelSpectrogram``, and torchaudio's PyPI wheels do not
load against the torch this project pins (2.13 CPU): the extractor cannot
even be constructed.  Its computation is small and fully specified by
torchaudio's documented defaults, so it is reproduced here with torch alone:

* power spectrogram: ``torch.stft`` with a periodic Hann window of
  ``win_length`` zero-padded (centred) to ``n_fft``, ``center=True`` with
  reflect padding, one-sided, ``|X|^2`` (torchaudio's ``Spectrogram`` defaults);
* mel filterbank: HTK mel scale, no area normalisation, 0 Hz to Nyquist
  (torchaudio's ``melscale_fbanks(norm=None, mel_scale="htk")``);
* then Granite's own steps, as in the transformers extractor: log10 of the
  mel power floored at 1e-10, clipped to 8 decades below the clip's maximum,
  ``/4 + 1``, an odd last frame dropped, and pairs of frames stacked
  (``[frames/2, 2 * n_mels]``).
"""

from __future__ import annotations

import numpy as np


def htk_mel_filterbank(n_freqs: int, sample_rate: int, n_mels: int, f_min: float = 0.0, f_max: float | None = None) -> np.ndarray:
    """Triangular filters ``[n_freqs, n_mels]`` on the HTK mel scale, unnormalised (peak 1)."""
    f_max = sample_rate / 2 if f_max is None else f_max
    all_freqs = np.linspace(0, sample_rate // 2, n_freqs)
    m_min, m_max = (2595.0 * np.log10(1.0 + f / 700.0) for f in (f_min, f_max))
    f_pts = 700.0 * (10 ** (np.linspace(m_min, m_max, n_mels + 2) / 2595.0) - 1.0)
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts[None, :] - all_freqs[:, None]
    down = -slopes[:, :-2] / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    return np.maximum(0.0, np.minimum(down, up))


def mel_power(audio, *, sample_rate: int = 16000, n_fft: int = 512, win_length: int = 400, hop_length: int = 160, n_mels: int = 80):
    """Mel power spectrogram ``[batch, n_mels, frames]`` of ``audio`` ``[batch, samples]`` (a torch tensor)."""
    import torch

    window = torch.hann_window(win_length, periodic=True, dtype=torch.float64)
    spec = torch.stft(audio.double(), n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=window,
                      center=True, pad_mode="reflect", normalized=False, onesided=True, return_complex=True)
    power = spec.abs() ** 2  # [batch, freqs, frames]
    bank = torch.from_numpy(htk_mel_filterbank(n_fft // 2 + 1, sample_rate, n_mels))
    return torch.einsum("bft,fm->bmt", power, bank).float()


def granite_log_mel(audio, **settings):
    """Granite-Speech's encoder input ``[batch, frames // 2, 2 * n_mels]`` for ``audio`` ``[batch, samples]``."""
    import torch

    mel = mel_power(audio, **settings)
    logmel = mel.transpose(-1, -2).clamp(min=1e-10).log10()
    peak = logmel.amax(dim=(-2, -1), keepdim=True)
    logmel = torch.maximum(logmel, peak - 8.0) / 4 + 1
    if logmel.shape[1] % 2 == 1:
        logmel = logmel[:, :-1]
    return logmel.reshape(logmel.shape[0], -1, 2 * logmel.shape[-1])


_EXTRACTOR_CLASS = None


def granite_extractor(**config):
    """A ``GraniteSpeechFeatureExtractor`` whose spectrogram is ``granite_log_mel`` (no torchaudio).

    ``config`` is the checkpoint's preprocessor_config.json; everything but the
    spectrogram (audio padding, the projector's output lengths and mask) is
    transformers' own code."""
    global _EXTRACTOR_CLASS
    if _EXTRACTOR_CLASS is None:
        import torch
        from transformers import GraniteSpeechFeatureExtractor
        from transformers.feature_extraction_sequence_utils import SequenceFeatureExtractor
        from transformers.feature_extraction_utils import BatchFeature

        class TorchGraniteSpeechFeatureExtractor(GraniteSpeechFeatureExtractor):
            def __init__(self, sampling_rate=16000, n_fft=512, win_length=400, hop_length=160, n_mels=80,
                         projector_window_size=15, projector_downsample_rate=5, padding_value=0.0, **kwargs):
                kwargs.pop("feature_extractor_type", None)
                kwargs.pop("processor_class", None)
                feature_size = kwargs.pop("feature_size", None) or n_mels
                SequenceFeatureExtractor.__init__(self, feature_size=feature_size, sampling_rate=sampling_rate,
                                                  padding_value=padding_value, **kwargs)
                self.sampling_rate = sampling_rate
                self.melspec_kwargs = {"sample_rate": sampling_rate, "n_fft": n_fft, "win_length": win_length,
                                       "hop_length": hop_length, "n_mels": n_mels}
                self.projector_window_size = projector_window_size
                self.projector_downsample_rate = projector_downsample_rate

            def __call__(self, audios, device: str | None = "cpu", **_):
                batched, lengths = self._get_audios_and_audio_lengths(audios)
                settings = dict(self.melspec_kwargs)
                features = granite_log_mel(batched, sample_rate=settings.pop("sample_rate"), **settings)
                sizes = self._get_num_audio_features(lengths)
                mask = torch.arange(max(sizes)).view(1, -1) < torch.tensor(sizes).view(-1, 1)
                return BatchFeature(data={"input_features": features.to(device or "cpu"), "audio_embed_sizes": sizes,
                                          "input_features_mask": mask})

        _EXTRACTOR_CLASS = TorchGraniteSpeechFeatureExtractor
    return _EXTRACTOR_CLASS(**config)


def load_granite_processor(source: str, revision: str | None = None):
    """Granite-Speech's processor from a checkpoint, with the torchaudio-free extractor."""
    from transformers import AutoTokenizer, GraniteSpeechProcessor
    from transformers.feature_extraction_utils import FeatureExtractionMixin

    config, _ = FeatureExtractionMixin.get_feature_extractor_dict(source, revision=revision)
    tokenizer = AutoTokenizer.from_pretrained(source, revision=revision)
    return GraniteSpeechProcessor(audio_processor=granite_extractor(**config), tokenizer=tokenizer,
                                  chat_template=getattr(tokenizer, "chat_template", None))
