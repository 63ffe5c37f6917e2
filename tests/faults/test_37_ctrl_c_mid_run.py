"""Case 37: Ctrl-C in the middle of a run is one line and exit 130; the rerun resumes from what was stored.

SIGINT during ``asraudit transcribe`` printed a 40-line ``KeyboardInterrupt``
traceback ending in CTranslate2's ``generate``.  The stored results were kept
(a rerun said ``16 job(s) run now, 4 already stored``), so only the message
was wrong.  Here the interrupt is raised from the second model call (what a
Ctrl-C during it does), in this process.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import soundfile as sf

import asraudit.run.executor as executor


def test_ctrl_c_is_one_line_and_the_rerun_keeps_what_was_stored(tmp_path, cli, monkeypatch):
    t = np.arange(16_000) / 16_000
    rows = []
    for i in range(3):
        sf.write(tmp_path / f"c{i}.wav", (0.3 * np.sin(2 * np.pi * (200 + 50 * i) * t)).astype(np.float32), 16_000)
        rows.append(json.dumps({"audio_filepath": f"c{i}.wav", "text": "a tone"}) + "\n")
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(rows), encoding="utf-8")
    out = tmp_path / "out"
    args = ("transcribe", "--model", "pocketsphinx", "--corpus", manifest, "--out", out, "--batch-size", 1,
            "--no-progress")

    real_run_unit, calls = executor.run_unit, []

    def interrupted_on_the_second_call(*a, **kw):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_run_unit(*a, **kw)

    monkeypatch.setattr(executor, "run_unit", interrupted_on_the_second_call)
    ran = cli(*args)
    assert (ran.code, ran.err.splitlines()) == (130, [
        "asraudit: interrupted; a command that runs models keeps every result it stored, and running it again "
        "resumes from them"])
    with sqlite3.connect(out / "asraudit.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM results").fetchone() == (1,)

    monkeypatch.setattr(executor, "run_unit", real_run_unit)
    ran = cli(*args)
    assert ran.code == 0, ran.err
    assert "2 job(s) run now, 1 already stored" in ran.err
    assert len((out / "pocketsphinx.jsonl").read_text().splitlines()) == 3
