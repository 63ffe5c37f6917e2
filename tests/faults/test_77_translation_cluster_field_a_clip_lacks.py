"""Case 77: a ``[translation] cluster_field`` a clip lacks is refused by ``--check``, naming the row.

The translation probe counts its Wilson intervals over the values of that
field (the sentence, read by several voices) and stopped at the first clip
without it, an InputError raised when the audit reached the translation
stage, after every earlier stage had run; ``audit --check`` passed the spec.
Now the audit refuses it with the other corpus fields, before any model runs.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf


@pytest.mark.parametrize("lacking_row", [1, 2])
def test_a_cluster_field_a_clip_lacks_is_refused_before_any_model_runs(tmp_path, cli, lacking_row):
    rows = []
    for i in range(2):
        sf.write(tmp_path / f"c{i}.wav", np.zeros(16_000, dtype=np.float32), 16_000)
        row = {"audio_filepath": f"c{i}.wav", "text": "well the vote", "sentence": "s1"}
        if i + 1 == lacking_row:
            del row["sentence"]
        rows.append(row)
    (tmp_path / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (tmp_path / "truth.json").write_text(json.dumps({}), encoding="utf-8")
    spec = tmp_path / "audit.toml"
    spec.write_text('[corpus]\nmanifest = "m.jsonl"\n[[model]]\nspec = "whisper-base"\n'
                    '[translation]\ntruth = "truth.json"\ncluster_field = "sentence"\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {tmp_path / 'm.jsonl'}, row {lacking_row}: clip 'c{lacking_row - 1}.wav' has no field "
        "'sentence' ([translation] cluster_field, the unit of its intervals): every clip needs it"])
