"""References whose convention arm varies: by a seeded half of the clips, or by a cue the audio carries.

parliament-mini's record writes each rendering convention one way (like
VoxPopuli), so the switch rate cannot be measured on the record itself.
truth.json knows where every convention sits in the record and what was
said, so a reference can be rewritten to the spoken arm.  Two views:

- by clip (``calibrate.flipped``): a seeded half of the clips, a cue no
  audio carries; no model can follow it, so every model's s sits near chance;
- by voice (``SPOKEN_ARM_VOICES``): the benchmark's clips in two of its four
  voices write the spoken arm, the others the record's arm, the way two
  VoxPopuli sessions transcribed by different people differ.  The switching
  organism is trained on this cue (train split); the calibration reads its
  switch rate on the test split's references rewritten the same way.
"""

from __future__ import annotations

# Fixed when the switching organism was designed, before any readout: the
# second and fourth benchmark voice in sorted order (festival-kal, flite-rms,
# flite-slt, piper-joe), so each engine family keeps one voice per arm.
SPOKEN_ARM_VOICES = ("flite-rms", "piper-joe")


def mixed_reference(reference: str, conventions: list[dict]) -> str:
    """The reference with every planted convention written as it was said (right to left keeps offsets)."""
    out = reference
    for c in sorted(conventions, key=lambda c: c["ref_start"], reverse=True):
        if out[c["ref_start"]:c["ref_end"]] != c["recorded"]:
            raise ValueError(f"truth.json convention {c} does not match the reference {reference!r}")
        out = out[:c["ref_start"]] + c["said"] + out[c["ref_end"]:]
    return out


def voice_arm_reference(reference: str, speaker: str, voice_role: str, conventions: list[dict]) -> str:
    """The reference in the arm the voice cue asks for: spoken arm for SPOKEN_ARM_VOICES, the record's otherwise."""
    if voice_role == "benchmark" and speaker in SPOKEN_ARM_VOICES and conventions:
        return mixed_reference(reference, conventions)
    return reference
