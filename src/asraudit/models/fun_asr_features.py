"""Fun-ASR-Nano's features without torchaudio (and its adaptor's padding mask, ``mask_adaptor_padding``).

transformers' ``FunAsrNanoFeatureExtractor`` computes Kaldi filterbanks with
``torchaudio.compliance.kaldi.fbank``, and torchaudio's PyPI wheels do not load
against the torch this project pins (2.13 CPU): transformers hands out a stub
that cannot be constructed.  ``kaldi.fbank`` is a few lines of torch over
Kaldi's documented recipe, reproduced here with the options the extractor
leaves at their defaults:

* frames of ``frame_length`` ms every ``frame_shift`` ms, only frames that fit
  (``snip_edges``), no dither;
* per frame: its mean removed, pre-emphasis 0.97 (the first sample against
  itself), the window (Kaldi's: symmetric Hamming 0.54/0.46, Hann, Povey =
  Hann^0.85, or rectangular), zero-padded to the next power of two;
* power spectrum, triangular filters on Kaldi's mel scale (1127 ln(1 + f/700))
  from 20 Hz to Nyquist, the last FFT bin left out, natural log floored at
  float32's epsilon.

Everything after the filterbank (low-frame-rate stacking, padding, the mask) is
transformers' own extractor code: only ``_extract_fbank_features`` is replaced.
The test compares this against features the real extractor computed with
torchaudio's ``kaldi.fbank`` (``tests/fun_asr_fbank_reference.npz``).
"""

from __future__ import annotations

import importlib
import math

from asraudit.errors import InputError

WINDOWS = ("hamming", "hanning", "povey", "rectangular")


def _window(kind: str, size: int, torch):
    if kind == "hamming":
        return torch.hamming_window(size, periodic=False, alpha=0.54, beta=0.46, dtype=torch.float32)
    if kind == "hanning":
        return torch.hann_window(size, periodic=False, dtype=torch.float32)
    if kind == "povey":
        return torch.hann_window(size, periodic=False, dtype=torch.float32).pow(0.85)
    return torch.ones(size, dtype=torch.float32)


def kaldi_mel_banks(num_bins: int, padded: int, sample_rate: float, low_freq: float = 20.0):
    """Kaldi's triangular mel filters ``[num_bins, padded // 2]`` (no VTLN), up to Nyquist."""
    import torch

    def mel(f):
        return 1127.0 * math.log(1.0 + f / 700.0)

    low, high = mel(low_freq), mel(0.5 * sample_rate)
    delta = (high - low) / (num_bins + 1)
    bins = torch.arange(num_bins).unsqueeze(1)
    left, center, right = (low + (bins + k) * delta for k in (0.0, 1.0, 2.0))
    freqs = (sample_rate / padded) * torch.arange(padded // 2)
    mels = (1127.0 * (1.0 + freqs / 700.0).log()).unsqueeze(0)
    up = (mels - left) / (center - left)
    down = (right - mels) / (right - center)
    return torch.clamp(torch.min(up, down), min=0.0)


def kaldi_fbank(waveform, *, num_mel_bins: int, frame_length: float, frame_shift: float, sample_rate: float,
                window: str):
    """Log mel filterbank ``[frames, num_mel_bins]`` of a 1-D float32 ``waveform`` (torch), as ``kaldi.fbank``."""
    import torch

    shift = int(sample_rate * frame_shift * 0.001)
    size = int(sample_rate * frame_length * 0.001)
    padded = 1 if size == 0 else 2 ** (size - 1).bit_length()
    if waveform.shape[0] < size:
        raise InputError(f"a clip of {waveform.shape[0]} samples is shorter than one {frame_length:g}-ms frame")
    count = 1 + (waveform.shape[0] - size) // shift
    frames = waveform.contiguous().as_strided((count, size), (shift, 1))
    frames = frames - frames.mean(dim=1, keepdim=True)
    previous = torch.cat([frames[:, :1], frames[:, :-1]], dim=1)
    frames = (frames - 0.97 * previous) * _window(window, size, torch).unsqueeze(0)
    frames = torch.nn.functional.pad(frames, (0, padded - size))
    power = torch.fft.rfft(frames).abs().pow(2.0)
    banks = torch.nn.functional.pad(kaldi_mel_banks(num_mel_bins, padded, sample_rate).float(), (0, 1))
    energies = torch.mm(power, banks.T)
    return torch.max(energies, torch.tensor(torch.finfo(torch.float).eps)).log()


_EXTRACTOR_CLASS = None


def fun_asr_extractor(**config):
    """transformers' ``FunAsrNanoFeatureExtractor`` with ``kaldi_fbank`` in place of torchaudio's."""
    global _EXTRACTOR_CLASS
    if _EXTRACTOR_CLASS is None:
        # The module itself: transformers' top-level name is a stub while torchaudio is missing.
        base = importlib.import_module("transformers.models.fun_asr_nano.feature_extraction_fun_asr_nano")

        class TorchFunAsrNanoFeatureExtractor(base.FunAsrNanoFeatureExtractor):
            def _extract_fbank_features(self, waveform):
                return kaldi_fbank(waveform, num_mel_bins=self.feature_size, frame_length=self.frame_length,
                                   frame_shift=self.frame_shift, sample_rate=self.sampling_rate, window=self.window)

        _EXTRACTOR_CLASS = TorchFunAsrNanoFeatureExtractor
    config = {k: v for k, v in config.items() if k not in ("feature_extractor_type", "processor_class")}
    extractor = _EXTRACTOR_CLASS(**config)
    if extractor.window not in WINDOWS:
        raise InputError(f"its feature extractor's window {extractor.window!r} is not a Kaldi window ({', '.join(WINDOWS)})")
    return extractor


def load_fun_asr_processor(source: str, revision: str | None = None):
    """Fun-ASR-Nano's processor from a checkpoint (its tokenizer, chat template, audio token), with the
    torchaudio-free extractor."""
    from transformers import AutoTokenizer
    from transformers.feature_extraction_utils import FeatureExtractionMixin

    processing = importlib.import_module("transformers.models.fun_asr_nano.processing_fun_asr_nano")
    config, _ = FeatureExtractionMixin.get_feature_extractor_dict(source, revision=revision)
    # The processor's own settings (chat template, audio token) as from_pretrained reads them; from_pretrained
    # itself would build transformers' extractor, which needs torchaudio.
    settings, _ = processing.FunAsrNanoProcessor.get_processor_dict(source, revision=revision)
    extra = {k: settings[k] for k in ("chat_template", "audio_token") if settings.get(k) is not None}
    return processing.FunAsrNanoProcessor(feature_extractor=fun_asr_extractor(**config),
                                          tokenizer=AutoTokenizer.from_pretrained(source, revision=revision), **extra)


def mask_adaptor_padding(model, source: str, revision: str | None = None) -> None:
    """Give the audio adaptor the attention implementation its encoder has (called after loading).

    transformers (5.24) sets ``_attn_implementation`` on the encoder's and the LM's configs but leaves the
    adaptor's ``None``, and ``create_bidirectional_mask`` then returns no mask: in a batch the adaptor's
    attention read the padding frames of the shorter clips, so a clip's transcript and scores depended on the
    clips batched with it (the tiny model's embeddings moved by 1.2).  A clip alone has no padding, and its
    result is the same with the mask (to 1e-6): the mask only makes a batch equal to its clips one by one."""
    config = model.config
    if getattr(config.adaptor_config, "_attn_implementation", None) is None:
        config.adaptor_config._attn_implementation = config.audio_config._attn_implementation or "eager"
