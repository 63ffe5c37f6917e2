"""Conditions: pure, deterministic functions audio -> audio with a stable id.

One import for the whole vocabulary (``from asraudit.audio.conditions import
SpanMask, Noise``); the definitions live in submodules by what they change:
``base`` (the protocol, ``Original``, ``Silence``, composition), ``spans``
(mask or keep a time span), ``channel`` (noise, reverb, codec) and
``other_audio`` (donor splice, another voice).  See ``base`` for the rules
every condition follows.
"""

from asraudit.audio.conditions.base import Compose, Condition, Original, Silence, compose
from asraudit.audio.conditions.channel import Codec, Noise, Reverb, babble_from, check_codec, measured_snr_db, \
    synthetic_rir
from asraudit.audio.conditions.other_audio import TTS_ENGINES, DonorSplice, Revoice, synthesize
from asraudit.audio.conditions.spans import MASK_RAMP_S, SpanMask, Truncate

__all__ = [
    "Codec", "Compose", "Condition", "DonorSplice", "MASK_RAMP_S", "Noise", "Original", "Reverb", "Revoice",
    "Silence", "SpanMask", "TTS_ENGINES", "Truncate", "babble_from", "check_codec", "compose", "measured_snr_db",
    "synthesize", "synthetic_rir",
]
