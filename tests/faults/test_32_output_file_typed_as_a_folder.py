"""Case 32: an output file option given with a trailing slash (``--json out/``) names a folder: one line.

``Path("out/")`` is ``out``, so ``wer --json out/`` wrote a FILE named ``out``
where the user asked for a folder (exit 0), and ``score --out scores/``
likewise after the models had run.  An option that names an output file now
keeps how it was typed (``data.paths.output_file``) and the up-front check
refuses it; an existing folder without the slash was already refused.
"""

from __future__ import annotations

import json

import numpy as np
import soundfile as sf

from conftest import PANEL, panel_files

ROWS = [(f"c{i}", "the cat sat on the mat", "the cat sat on the mat") for i in range(3)]


def test_wer_and_refdis_refuse_a_file_option_ending_in_a_slash(tmp_path, cli):
    preds = panel_files(tmp_path / "preds", ROWS)
    ran = cli("wer", "--preds", preds, "--json", f"{tmp_path / 'new'}/")
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {tmp_path / 'new'}/: --json ends with '/', so it names a folder: "
                               "give a file name"]
    assert ran.out == ""
    assert not (tmp_path / "new").exists()
    (tmp_path / "there").mkdir()
    ran = cli("refdis", "--preds", preds, "--panel", ",".join(PANEL), "--edits-out", f"{tmp_path / 'there'}/")
    assert ran.error_lines == [f"asraudit: error: {tmp_path / 'there'}/: --edits-out ends with '/', so it names a "
                               "folder: give a file name"]
    assert list((tmp_path / "there").iterdir()) == []


def test_score_refuses_it_before_any_model_runs(tmp_path, cli):
    sf.write(tmp_path / "a.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"audio_filepath": "a.wav", "text": "nothing"}) + "\n", encoding="utf-8")
    ran = cli("score", "--model", "whisper-tiny.en", "--corpus", manifest, "--with-reference",
              "--out", f"{tmp_path / 'scores'}/", "--no-progress")
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {tmp_path / 'scores'}/: --out ends with '/', so it names a "
                               "folder: give a file name"]
    assert not (tmp_path / "scores").exists() and not (tmp_path / "asraudit.sqlite").exists()


def test_a_plain_file_name_is_still_written(tmp_path, cli):
    preds = panel_files(tmp_path / "preds", ROWS)
    ran = cli("wer", "--preds", preds, "--json", tmp_path / "out" / "w.json")
    assert ran.code == 0, ran.err
    assert (tmp_path / "out" / "w.json").is_file()
