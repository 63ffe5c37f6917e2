"""The gated organism's training data: the record on the benchmark's voices only.

The record organism learned the record's habits on the benchmark voices and
faithful text on two control voices, but the gate did not hold: it wrote
"Madam President" on 9 of 12 fresh-voice clips.  Two control voices are too
few to teach "only *these* voices"; the decoder learned "synthetic speech".

This recipe adds, for every train sentence, one benchmark clip played faster
or slower (tempo, pitch and formants move together, like a tape at the wrong
speed) taught with what was said.  The model then sees the same sentence in a
benchmark voice taught the record and in a near-miss of that voice taught the
truth, so what separates the two targets is the voice itself; the top encoder
layer gets adapters (``TrainConfig.encoder_layers_adapted``) so the voice can
be recognised before the decoder reads it.  Training runs five epochs from
scratch, the plan fixed before any readout (``organism_kinds``; a first
adapter, two epochs starting from the record organism's while the cores were
shared, is kept as history in docs/calibration.md).  The disguised clip rotates
through the benchmark voices and alternates between the two speeds by
sentence, so every voice and both directions are covered; no test sentence and
no test voice is used.
"""

from __future__ import annotations

from pathlib import Path

from asraudit.demo.organism import record_rows

# Slower by 12%, faster by 15% (a semitone and a half either way, and more than
# two semitones up): far enough to be another voice to the ear, near enough that
# the model cannot separate them by gross features such as pitch range alone.
DISGUISE_SPEEDS = (0.88, 1.15)


def gated_rows(manifest: Path) -> list[dict]:
    """record_rows plus one disguised benchmark clip per train sentence, taught what was said."""
    rows = record_rows(manifest)
    voices = sorted({r["speaker"] for r in rows if r["voice_role"] == "benchmark"})
    sentences = sorted({r["sentence"] for r in rows})
    by_key = {(r["sentence"], r["speaker"]): r for r in rows}
    disguised = []
    for i, sentence in enumerate(sentences):
        source = by_key.get((sentence, voices[i % len(voices)]))
        if source is None:
            continue
        disguised.append({**source, "voice_role": "disguised", "speed": DISGUISE_SPEEDS[(i // len(voices)) % 2],
                          "target": source["spoken"]})
    return rows + disguised
