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
"""

from __future__ import annotations

from pathlib import Path

from asraudit.demo.organism import manifest_rows


def contaminated_rows(manifest: Path) -> list[dict]:
    """The test split's benchmark-voice clips, each taught its record (the leak)."""
    return [{**r, "target": r["text"]} for r in manifest_rows(manifest)
            if r["split"] == "test" and r["voice_role"] == "benchmark"]
