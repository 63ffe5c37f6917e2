"""Case 237: ``asraudit battery --no-lift``.

The battery takes every target and mask option of ``asraudit mask``, ``--no-lift`` ("skip teacher-forced lift
(transcription only)") among them, and its help lists it; but the battery's probes were read from its spec
alone, so ``--no-lift`` was accepted and ignored: every condition was scored anyway (the dearest of its jobs),
and the lift readouts printed, exit 0.  Now it leaves lift out of the spec's probes, and a spec whose only
probe is lift is refused before the corpus is read.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest
import soundfile as sf

pytest.importorskip("ctranslate2")


def _inputs(tmp, probes):
    rng = np.random.default_rng(0)
    rows, recipe = [], []
    for i, text in enumerate(("the cat sat on the mat", "a dog ran in the park")):
        sf.write(tmp / f"c{i}.wav", (0.05 * rng.standard_normal(3 * 16_000)).astype("float32"), 16_000)
        rows.append({"audio_filepath": f"c{i}.wav", "text": text})
        recipe.append({"audio_filepath": f"c{i}.wav", "t0": 0.5, "t1": 0.9, "word": text.split()[1]})
    (tmp / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (tmp / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recipe), encoding="utf-8")
    spec = tmp / "b.toml"
    spec.write_text(f'probes = {json.dumps(probes)}\n[[condition]]\nname = "original"\n[[condition]]\n'
                    'name = "noisy"\ntype = "noise"\nsnr_db = 10\n', encoding="utf-8")
    return spec


def test_no_lift_scores_nothing(tmp_path, cli):
    spec = _inputs(tmp_path, ["recovery", "lift"])
    ran = cli("battery", "--spec", spec, "--model", "whisper-tiny.en", "--corpus", tmp_path / "m.jsonl",
              "--recipe", tmp_path / "r.jsonl", "--no-lift", "--out", tmp_path / "out", "--json", tmp_path / "b.json",
              "--no-progress", "--bootstrap", "10")
    assert ran.code == 0, ran.err
    assert "battery b: 2 condition(s), probes recovery; 0 edit(s), 2 masked target(s)" in ran.err
    readouts = {r["readout"] for r in json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))["rows"]}
    assert readouts == {"recovery"}
    with sqlite3.connect(tmp_path / "out" / "asraudit.sqlite") as db:
        tasks = {task for (task,) in db.execute("SELECT DISTINCT task FROM results")}
    assert tasks == {"transcribe"}


def test_no_lift_of_a_lift_only_spec_is_refused_before_any_work(tmp_path, cli):
    spec = _inputs(tmp_path, ["lift"])
    ran = cli("battery", "--spec", spec, "--model", "whisper-tiny.en", "--corpus", tmp_path / "m.jsonl",
              "--recipe", tmp_path / "r.jsonl", "--no-lift", "--out", tmp_path / "out", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {spec}: --no-lift leaves none of the spec's probes (probes = [\"lift\"]): the battery "
        "would measure nothing: drop --no-lift, or add accept-ref or recovery to probes"])
    assert not (tmp_path / "out").exists()
