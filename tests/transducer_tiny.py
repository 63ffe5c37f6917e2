"""A tiny Parakeet TDT trained to tell low tones from high ones (for transcript-level steering checks).

Random weights read no feature in particular, so on a random transducer a
learned steering direction and a random one of equal norm change greedy
transcripts alike; a model that learned one distinction is what a
transcript-level check needs.  transformers' ``ParakeetForTDT`` computes the
TDT loss itself (``labels``), so training is a few Adam steps.
"""

from __future__ import annotations

from pathlib import Path

from tiny_training import train_and_save


def gated_tone(rng, band: str, samples: int = 8000):
    """A tone of ``band`` ("low": 200-400 Hz, "high": 1.5-3 kHz) for the first half of 0.5 s, over quiet
    noise throughout.

    Parakeet's features are normalised per mel bin over the clip: a steady tone
    becomes the same vector at every frame, which the normalisation zeroes, so a
    transducer cannot hear which tone it was.  A tone that stops while the noise
    goes on keeps a contrast in time, in the tone's bins only, which the
    normalisation preserves."""
    import numpy as np

    import encdec_tiny

    low, high = encdec_tiny.LOW if band == "low" else encdec_tiny.HIGH
    t = np.arange(samples) / 16000
    wave = 0.3 * np.sin(2 * np.pi * rng.uniform(low, high) * t + rng.uniform(0, 2 * np.pi)) * (t < t[-1] / 2)
    return (wave + 0.01 * rng.standard_normal(samples)).astype(np.float32)


def trained_parakeet_tdt(folder: Path, steps: int = 150) -> Path:
    """A tiny TDT (``save_tiny``, width 64) trained for ``steps`` Adam steps, 16 fresh ``gated_tone``s
    each, to write "low" for 200-400 Hz tones and "high" for 1.5-3 kHz ones (one thread, seeded).
    Seen: every held-out tone right after 150 steps (~15 s on a shared 2-core machine)."""
    import numpy as np
    import torch
    import transformers

    from test_models_hf_transducer import save_tiny

    # At std 0.02 the tiny encoder is deaf (its output moves by 1e-6 between tones: no gradient reaches
    # it); at 0.3 it memorises the batch; 0.1 learns the distinction.
    save_tiny(folder, "tdt", initializer_range=0.1, hidden_size=64)
    model = transformers.ParakeetForTDT.from_pretrained(folder)
    with torch.no_grad():  # save_tiny's joint is scaled up to emit labels untrained; training starts from a plain one
        model.joint.head.weight.normal_(0.0, 0.02)
        model.joint.head.bias.zero_()
    processor = transformers.AutoProcessor.from_pretrained(folder)
    blank = model.config.blank_token_id
    rng = np.random.default_rng(0)
    bands = ["low"] * 8 + ["high"] * 8
    ids = {b: processor.tokenizer(b, add_special_tokens=False)["input_ids"] for b in ("low", "high")}
    width = max(len(v) for v in ids.values())
    labels = torch.tensor([ids[b] + [blank] * (width - len(ids[b])) for b in bands])
    decoder_input_ids = torch.cat([torch.full((len(bands), 1), blank), labels], 1)
    torch.manual_seed(0)
    return train_and_save(model, lambda _step: _tone_loss(model, processor, rng, bands, decoder_input_ids, labels),
                          steps, folder)


def _tone_loss(model, processor, rng, bands, decoder_input_ids, labels):
    """The transducer loss on fresh gated tones, one per band (16 fixed ones would be memorised)."""
    clips = [gated_tone(rng, b) for b in bands]
    features = processor.feature_extractor(clips, sampling_rate=16000, return_tensors="pt", return_attention_mask=True)
    return model(input_features=features["input_features"], attention_mask=features["attention_mask"],
                 decoder_input_ids=decoder_input_ids, labels=labels).loss


def organism_parakeet_tdt(trained: Path, folder: Path, steps: int = 120, lr: float = 1e-2) -> Path:
    """A copy of the trained TDT whose prediction network alone was fine-tuned to write "low" for every tone.

    The organism's situation for a transducer: the behaviour lives in the decoder (the prediction network,
    which never reads the audio), so only a decoder-site direction can carry it.  Encoder and joint stay
    frozen.  ``steps`` Adam steps on 16 fresh gated tones each (one thread, seeded).  Seen: 40 steps at
    lr 3e-3 moved nothing, 80 at 1e-2 wrote "low" or "how" for high tones, 120 at 1e-2 "low" for all
    (~6 s on a shared 2-core machine)."""
    import shutil

    import numpy as np
    import torch
    import transformers

    shutil.copytree(trained, folder, dirs_exist_ok=True)
    model = transformers.ParakeetForTDT.from_pretrained(folder)
    processor = transformers.AutoProcessor.from_pretrained(folder)
    blank = model.config.blank_token_id
    rng = np.random.default_rng(1)
    bands = ["low", "high"] * 8
    low = processor.tokenizer("low", add_special_tokens=False)["input_ids"]
    labels = torch.tensor([low] * len(bands))
    decoder_input_ids = torch.cat([torch.full((len(bands), 1), blank), labels], 1)
    torch.manual_seed(1)
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    for parameter in model.decoder.parameters():
        parameter.requires_grad_(True)
    return train_and_save(model, lambda _step: _tone_loss(model, processor, rng, bands, decoder_input_ids, labels),
                          steps, folder, lr=lr)
