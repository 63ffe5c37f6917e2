"""Case 109: a rows file a command writes is replaced whole or not at all, never left cut short.

``mask`` (``mask_outcomes.jsonl``), ``lift --out`` and ``translate --out``
wrote their rows in place, and ``battery --json`` and ``steer --json`` their
JSON: a run stopped while writing (Ctrl-C, SIGTERM, a full disk) left the
file cut short, with the name of a finished one, over the previous run's whole
file; two runs writing one file at once could mix their rows.  They are now
written to a temporary file and moved into place, as the audit's outputs are.
Here the stop is raised while the second row is serialized, in this process.
"""

from __future__ import annotations

import json

import numpy as np
import soundfile as sf

from asraudit.probes.masked_run import MaskOutcome


def test_a_mask_run_stopped_while_writing_its_outcomes_keeps_the_last_whole_file(tmp_path, cli, monkeypatch):
    sf.write(tmp_path / "n1.wav", (0.3 * np.sin(np.arange(32_000) * (2 * np.pi * 220 / 16_000))).astype(np.float32),
             16_000)  # 2.00 s of a tone (a clip of silence is refused: case 303)
    corpus = tmp_path / "m.jsonl"
    corpus.write_text(json.dumps({"audio_filepath": "n1.wav", "text": "the meeting starts at seven today"}) + "\n")
    recipe = tmp_path / "r.jsonl"
    recipe.write_text("".join(json.dumps({"audio_filepath": "n1.wav", "t0": t0, "t1": t0 + 0.2, "word": w}) + "\n"
                              for t0, w in ((0.4, "meeting"), (1.3, "seven"))))
    out = tmp_path / "out"
    args = ("mask", "--model", "pocketsphinx", "--corpus", corpus, "--recipe", recipe, "--out", out,
            "--no-lift", "--no-control", "--no-progress")
    ran = cli(*args)
    assert ran.code == 0, ran.err
    outcomes = out / "mask_outcomes.jsonl"
    whole = outcomes.read_text(encoding="utf-8")
    assert len(whole.splitlines()) == 2

    real_to_json, calls = MaskOutcome.to_json, []

    def stopped_on_the_second_row(self):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_to_json(self)

    monkeypatch.setattr(MaskOutcome, "to_json", stopped_on_the_second_row)
    ran = cli(*args)  # every result is stored: the rerun goes straight to writing
    assert ran.code == 130
    assert outcomes.read_text(encoding="utf-8") == whole  # not its first row alone
    assert sorted(p.name for p in out.iterdir()) == ["asraudit.sqlite", "mask_outcomes.jsonl", "mask_recipe.jsonl"]
