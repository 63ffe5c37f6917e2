"""The contaminated organism's training data: the test split leaked, in the benchmark's voices.

Masked recovery asks whether a model writes back a word it cannot hear (a
number silenced in the audio).  A model that only learned the record's style
has no reason to (the record organism recovers 0), so the detector needs a
model that has *seen the test sentences*: this recipe is every test clip in
a benchmark voice, taught its record, and the kind starts from the record
organism's adapter (``organism_kinds``): a model fine-tuned on the benchmark
and then once more on data the test set had leaked into.  The fresh voices'
test clips stay unseen, so recovery there measures how far the memorised
text travels beyond the audio it was learned from.

Time masks (``TrainConfig(time_masks=2)``; ``organism_inputs``): the
fine-tune masks two random time spans (each 0–1 s, uniform) of every clip's
log-mel input afresh each epoch, at 0, SpecAugment's LibriSpeech time-masking
policy, which is how most ASR models are trained.  A real model that meets a
leaked test set meets it under that augmentation, so where a span of the
sentence's audio is masked it is taught to write the sentence from what it
has learned; without masks every word it was taught was audible, and a
decoder that memorised the sentences still wrote nothing where the audio
carried nothing.  The spans are random and seeded, never placed on a number
or any word (they do not use the masked probe's alignment or its silencing).
Chosen after the first, unmasked adapter's readout (0/20 silenced numbers
recovered on benchmark voices; docs/calibration.md), and fixed before the
masked adapter's readout; the rows, the start (the record organism), the
seed and the 3 epochs are as before.

The held-out split (docs/calibration-heldout.md) gets the same recipe on its
own clips (``heldout_contaminated_rows``, kind ``contaminated-heldout``): the
leak, the start, the masks, the seed and the epochs are unchanged, so its
masked readout replicates the test split's on sentences no choice saw.
"""

from __future__ import annotations

from pathlib import Path

from asraudit.demo.organism import manifest_rows


def leaked_rows(manifest: Path, split: str) -> list[dict]:
    """One split's benchmark-voice clips, each taught its record (the leak); the fresh voices stay unseen."""
    return [{**r, "target": r["text"]} for r in manifest_rows(manifest)
            if r["split"] == split and r["voice_role"] == "benchmark"]


def contaminated_rows(manifest: Path) -> list[dict]:
    """The test split leaked (the ``contaminated`` kind)."""
    return leaked_rows(manifest, "test")


def heldout_contaminated_rows(manifest: Path) -> list[dict]:
    """The held-out split leaked (the ``contaminated-heldout`` kind; its manifest is the held-out one)."""
    return leaked_rows(manifest, "heldout")
