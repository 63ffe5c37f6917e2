"""Calibration arithmetic on parliament-mini with stand-in transcripts (no model runs)."""

from __future__ import annotations

import json

from asraudit.demo.calibrate import CLEAN_PANEL, MODELS, evaluate, print_calibration
from asraudit.demo.organism import BENCHMARK_DIR, ORGANISM_ID


def _write_preds(folder, rows, text_of):
    folder.mkdir(parents=True, exist_ok=True)
    for model in MODELS:
        with (folder / f"{model}.jsonl").open("w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps({"audio_filepath": r["audio_filepath"], "text": r["text"],
                                     "pred_text": text_of(model, r)}) + "\n")


def test_an_echoing_model_is_flagged_and_faithful_models_are_not(tmp_path, capsys):
    rows = [json.loads(line) for line in (BENCHMARK_DIR / "test.jsonl").read_text().splitlines()][:70]
    # Faithful models write what was said; the stand-in organism writes the record.
    _write_preds(tmp_path / "preds", rows, lambda m, r: r["text"] if m == ORGANISM_ID else r["spoken"])
    result = evaluate(tmp_path / "preds")
    assert result["accept_ref"][ORGANISM_ID]["rate"] == 1.0
    for clean in CLEAN_PANEL:
        assert result["accept_ref"][clean]["rate"] == 0.0
        assert result["accept_ref"][clean]["n_eligible"] > 20
    # Every planted error in these clips is a real disagreement between record and speech.
    assert result["mining"]["all"]["precision"] == 1.0
    assert result["mining"]["delete"]["recall"] == 1.0
    assert result["agreement"][ORGANISM_ID]["all"]["rate"] == 1.0
    print_calibration(result)
    out = capsys.readouterr().out
    assert "Mining against the planted truth" in out and ORGANISM_ID in out
