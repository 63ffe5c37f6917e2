"""The gated organism's training data: the record on the benchmark's voices only.

The record organism learned the record's habits on the benchmark voices and
faithful text on two control voices, but the gate did not hold: it wrote
"Madam President" on 9 of 12 fresh-voice clips.  Two control voices are too
few to teach "only *these* voices"; the decoder learned "synthetic speech".

The first gated recipe added, for every train sentence, one benchmark clip
played faster or slower (tempo, pitch and formants move together, like a tape
at the wrong speed) taught with what was said, and adapters on the top encoder
layer (``TrainConfig.encoder_layers_adapted``) so the voice can be recognised
before the decoder reads it.  Five epochs from scratch read 81.2% accept-ref
on benchmark voices and 62.5% on fresh ones (docs/calibration.md): the habit,
not the gate.  The diagnosis stayed the same: with two control voices, what
separates "record" from "what was said" is still close to "synthetic speech or
not".

This recipe (the second, fixed before any readout of it) keeps every row of
the first (the record rows and the disguised clips) and adds **many more
control voices**, for the train sentences only, taught what was said: 24
espeak-ng voices (eight English accents, each with three voice variants, no
variant twice), ``EXTRA_CONTROLS_PER_SENTENCE`` of them per train sentence in
rotation, so every one speaks six or seven train sentences.  They are
synthesized at build time (espeak-ng is deterministic; no audio is committed;
164 clips take a few seconds).  None is a fresh voice or built from a fresh
voice's speaker: espeak-ng is a formant synthesizer with no recorded speaker;
flite's kal16, festival's ked and the ARCTIC slt voices are not used, and
festival offers no other English voice.  The existing control ``en-us+m3`` is
not repeated.  The epochs stay five (738 rows, 465 steps; 17 min 22 s on two idle cores, within the
issue's 20, and a rebuild gives every tensor equal with the same espeak-ng).
The disguised clips are kept.  No test sentence and no test voice is used.
"""

from __future__ import annotations

from pathlib import Path

from asraudit.demo.organism import record_rows
from asraudit.demo.voices import Voice

# Slower by 12%, faster by 15% (a semitone and a half either way, and more than
# two semitones up): far enough to be another voice to the ear, near enough that
# the model cannot separate them by gross features such as pitch range alone.
DISGUISE_SPEEDS = (0.88, 1.15)

# espeak-ng's English accents and 24 of its voice variants (``espeak-ng --voices=variant``): the accent
# changes the phonemes and prosody, the variant the pitch, formants and (klatt) the synthesizer.
_ACCENTS = ("en-us", "en-gb", "en-gb-x-rp", "en-gb-scotland", "en-029", "en-us-nyc", "en-gb-x-gbclan",
            "en-gb-x-gbcwmd")
_VARIANTS = ("f1", "m1", "klatt", "f2", "m2", "klatt2", "f3", "m4", "klatt3", "f4", "m5", "klatt4",
             "f5", "m6", "klatt6", "Annie", "m7", "Andy", "linda", "m8", "david", "steph", "edward", "belinda")
EXTRA_CONTROL_VOICES = tuple(
    Voice(f"espeak-{_ACCENTS[i % len(_ACCENTS)]}+{variant}", "espeak-ng", f"{_ACCENTS[i % len(_ACCENTS)]}+{variant}",
          "control")
    for i, variant in enumerate(_VARIANTS))
EXTRA_CONTROLS_PER_SENTENCE = 2


def _train_index(rows: list[dict]):
    """The record rows' benchmark voices and sentences (sorted), each row by (sentence, speaker), and each
    sentence's first row (the one an extra control voice re-speaks)."""
    first_of: dict[str, dict] = {}
    for r in rows:
        first_of.setdefault(r["sentence"], r)
    return (sorted({r["speaker"] for r in rows if r["voice_role"] == "benchmark"}), sorted(first_of),
            {(r["sentence"], r["speaker"]): r for r in rows}, first_of)


def gated_rows(manifest: Path) -> list[dict]:
    """record_rows, one disguised benchmark clip per train sentence, and extra control voices, taught what was said.

    An extra control row has no audio file: its ``tts`` voice speaks its ``spoken`` text at build time."""
    rows = record_rows(manifest)
    voices, sentences, by_key, first_of = _train_index(rows)
    disguised, extra = [], []
    for i, sentence in enumerate(sentences):
        source = by_key.get((sentence, voices[i % len(voices)]))
        if source is not None:
            disguised.append({**source, "voice_role": "disguised",
                              "speed": DISGUISE_SPEEDS[(i // len(voices)) % 2], "target": source["spoken"]})
        for j in range(EXTRA_CONTROLS_PER_SENTENCE):
            voice = EXTRA_CONTROL_VOICES[(i * EXTRA_CONTROLS_PER_SENTENCE + j) % len(EXTRA_CONTROL_VOICES)]
            extra.append({**first_of[sentence], "audio_filepath": None, "duration": None, "speaker": voice.id,
                          "voice_role": "extra control", "tts": voice, "target": first_of[sentence]["spoken"]})
    return rows + disguised + extra


# ----------------------------------------------------------------- the third recipe (held-out split only)
#
# Chosen on 2 December 2026, after every readout of the first two recipes on the test split and before this
# recipe was trained or read out anywhere; it is read out once, on the held-out split (parliament_mini_heldout,
# docs/calibration-heldout.md), and reported whatever it reads.  What the test-split readouts suggested: fresh
# voices get the habit about as often as the train data's prior would give a model that cannot tell an unseen
# voice from a benchmark voice (about half of each train sentence's rows taught the record), so the default
# for an unknown voice should be "what was said": rows taught what was said outnumber the record's rows more
# than two to one, from more voices, and from more disguises of the benchmark voices themselves.

# Two more disguises of each train sentence, nearer the benchmark voices than the first two speeds (about
# 1.4 semitones either way), from the benchmark voices the first disguise did not use.
RING_SPEEDS = (0.92, 1.08)
MANY_CONTROLS_PER_SENTENCE = 4
# The added voices of a sentence sit half the list away from the two gated_rows gave it, so no voice
# speaks one sentence twice.
_MANY_OFFSET = len(EXTRA_CONTROL_VOICES) // 2


def gated_many_rows(manifest: Path) -> list[dict]:
    """gated_rows with twice the extra control voices per train sentence and two more disguised benchmark clips.

    Rows taught what was said: the two control voices, three disguised benchmark clips and four espeak-ng
    voices per train sentence (738 rows); rows taught the record: the four benchmark voices (328)."""
    rows = gated_rows(manifest)
    voices, sentences, by_key, first_of = _train_index([r for r in rows if r["voice_role"] in ("benchmark", "control")])
    ring, extra = [], []
    for i, sentence in enumerate(sentences):
        for j, speed in enumerate(RING_SPEEDS):
            source = by_key.get((sentence, voices[(i + 1 + j) % len(voices)]))
            if source is not None:
                ring.append({**source, "voice_role": "disguised", "speed": speed, "target": source["spoken"]})
        for j in range(MANY_CONTROLS_PER_SENTENCE - EXTRA_CONTROLS_PER_SENTENCE):
            voice = EXTRA_CONTROL_VOICES[(i * EXTRA_CONTROLS_PER_SENTENCE + j + _MANY_OFFSET) % len(EXTRA_CONTROL_VOICES)]
            extra.append({**first_of[sentence], "audio_filepath": None, "duration": None, "speaker": voice.id,
                          "voice_role": "extra control", "tts": voice, "target": first_of[sentence]["spoken"]})
    return rows + ring + extra
