"""What the one training loop feeds the model: each clip's log-mel input, and SpecAugment time masks.

A row may carry ``speed``: the clip is then played that much faster (a
disguised voice, the gated recipe); or ``tts``: a voice heard only in
training, synthesized at build time (nothing committed), speaking the row's
``spoken`` text (the gated recipe's extra control voices).

Time masking (``TrainConfig.time_masks``; off by default).  Why: most ASR
training recipes mask a few random time spans of every example's log-mel input (SpecAugment, Park et al. 2019), so the model learns
to write a transcript where a stretch of audio carries nothing, from the
words around it and from what it has learned.  A model trained that way on a
leaked test set learns to write the leaked sentences where their audio is
uninformative; a model trained only on clean, complete audio never has to.

The policy is the time-masking part of SpecAugment's LibriSpeech "LD" policy:
``time_masks`` = 2 masks per example, each of a width drawn uniformly from
0..``time_mask_frames`` = 100 frames (1 s: Whisper's log-mel hop is 10 ms,
as the paper's was), starting uniformly inside the clip's own frames (not the
silence Whisper pads each clip with to 30 s), set to 0, the value
transformers' Whisper SpecAugment (``_mask_input_features``) writes into the
same scaled log-mel input.  Frequency masks and time warping are left out:
they hide no word.  The spans are random (never placed on a word), drawn
afresh every epoch as SpecAugment draws them per minibatch, from a generator
seeded by (seed, epoch), so a build is deterministic and the batch order
(its own generator) is the same as without masks.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.io import load_audio, resample
from asraudit.demo.voices import synthesize
from asraudit.models.whisper_frontend import HOP_LENGTH, N_FRAMES, N_SAMPLES, log_mel_spectrogram


def played_faster(audio: np.ndarray, speed: float) -> np.ndarray:
    """The clip played ``speed`` times faster: tempo and pitch (formants too) move together, like a tape."""
    return resample(audio, int(round(SAMPLE_RATE * speed)), SAMPLE_RATE)


def row_audio(row: dict, root: Path) -> np.ndarray:
    """A training row's audio: its clip under ``root``, or, for a row with a ``tts`` voice, that voice speaking
    its ``spoken`` text."""
    if row.get("tts") is not None:
        return synthesize(row["tts"], row["spoken"])
    return load_audio(root / row["audio_filepath"])


def clip_features(rows: list[dict], root: Path, n_mels: int) -> tuple[np.ndarray, list[int]]:
    """Each clip's log-mel input (clips x mels x 3000 frames), and its own frame count (before Whisper's padding)."""
    feats = np.empty((len(rows), n_mels, N_FRAMES), dtype=np.float32)
    frames = []
    for i, r in enumerate(rows):
        audio = row_audio(r, root)
        if r.get("speed"):
            audio = played_faster(audio, r["speed"])
        audio = audio[:N_SAMPLES]
        frames.append(min(N_FRAMES, -(-len(audio) // HOP_LENGTH)))
        feats[i] = log_mel_spectrogram(np.pad(audio, (0, N_SAMPLES - len(audio))), n_mels=n_mels)
    return feats, frames


def time_mask_spans(frames: int, masks: int, max_width: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """``masks`` random (start, width) spans inside a clip of ``frames`` frames, widths uniform in 0..max_width."""
    spans = []
    for _ in range(masks):
        width = min(int(rng.integers(0, max_width + 1)), frames)
        start = int(rng.integers(0, frames - width + 1))
        spans.append((start, width))
    return spans


def time_masked(feats: np.ndarray, frames: list[int], masks: int, max_width: int, seed: int, epoch: int) -> np.ndarray:
    """A copy of ``feats`` (clips x mels x frames) with each clip's spans for this epoch set to 0.

    ``frames``: each clip's own frame count (its audio before Whisper's padding).  ``masks`` = 0 returns
    ``feats`` itself, untouched: a build without the knob is the build it was before the knob existed."""
    if masks == 0:
        return feats
    rng = np.random.default_rng([seed, epoch])
    out = feats.copy()
    for i, n in enumerate(frames):
        for start, width in time_mask_spans(n, masks, max_width, rng):
            out[i, :, start:start + width] = 0.0
    return out
