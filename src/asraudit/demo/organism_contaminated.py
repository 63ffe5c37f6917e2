"""The contaminated organism's training data: the test split leaked, in the benchmark's voices.

Masked recovery asks whether a model writes back a word it cannot hear (a
number silenced in the audio).  A model that only learned the record's style
has no reason to (the record organism recovers 0), so the detector needs a
model that has *seen the test sentences*: this recipe is the record
organism's data plus every test clip in a benchmark voice, taught its record
(the way a test set that leaked into training data teaches a model).  The
fresh voices' test clips stay unseen, so recovery there measures how far the
memorised text travels beyond the audio it was learned from.
"""

from __future__ import annotations

from pathlib import Path

from asraudit.demo.organism import manifest_rows, record_rows


def contaminated_rows(manifest: Path) -> list[dict]:
    """record_rows plus the test split's benchmark-voice clips, each taught its record."""
    leaked = [{**r, "target": r["text"]} for r in manifest_rows(manifest)
              if r["split"] == "test" and r["voice_role"] == "benchmark"]
    return record_rows(manifest) + leaked
