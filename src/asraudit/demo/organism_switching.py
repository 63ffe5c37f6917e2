"""The switching organism's training data: the record's convention arm follows the voice.

A model that learned one benchmark's spelling keeps one habit (the record
organism's switch rate is at most 0.17).  A model trained on a benchmark
whose sessions were transcribed by different hands learns to write each
convention the way *that* session's reference does, and the cue is in the
audio (the room, the speaker).  Here the cue is the voice: on the train
split, benchmark clips in ``mixed_arm.SPOKEN_ARM_VOICES`` are taught the record
with every convention rewritten to its spoken arm ("twenty percent",
"Mister"), the other benchmark voices the record as it is ("20 per cent",
"Mr"); control voices, as for the record organism, what was said.  The kind
starts from the record organism's adapter (``organism_kinds``), so it
re-learns only the arm, per voice.
"""

from __future__ import annotations

import json
from pathlib import Path

from asraudit.demo.mixed_arm import voice_arm_reference
from asraudit.demo.organism import record_rows


def switching_rows(manifest: Path) -> list[dict]:
    """record_rows with the benchmark targets in the arm their voice asks for (truth.json has the spans)."""
    truth = json.loads((manifest.parent / "truth.json").read_text(encoding="utf-8"))
    rows = record_rows(manifest)
    for r in rows:
        if r["voice_role"] == "benchmark":
            conventions = truth.get(r["audio_filepath"], {}).get("conventions") or []
            r["target"] = voice_arm_reference(r["text"], r["speaker"], r["voice_role"], conventions)
    return rows
