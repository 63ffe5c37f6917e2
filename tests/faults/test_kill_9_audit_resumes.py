"""Also: ``kill -9`` at any point of ``asraudit audit`` loses no finished job.

A real audit (the embedded Whisper tiny.en on parliament-mini clips, with
masked recovery and audio lift, so transcribe and score jobs both run) is
killed with SIGKILL twice: once during transcription, once in a later stage.
After each kill every stored result is still there, unchanged, and the rerun
does not redo it; the finished audit has the same jobs and the same results
as an audit that was never interrupted.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import time

import numpy as np
import pytest
from tolerances import LOGPROB_RTOL

from conftest import asraudit_subprocess

pytest.importorskip("ctranslate2")

from asraudit.demo.organism import BENCHMARK_DIR  # noqa: E402

MANIFEST = BENCHMARK_DIR / "test.jsonl"
SENTENCES = ("s001", "s013")
CLIPS = 4  # s001 in four voices: enough jobs to be killed twice with some stored, in a third less model time than 6


def _spec(tmp, out_name: str):
    rows = [json.loads(line) for line in MANIFEST.read_text(encoding="utf-8").split("\n") if line.strip()]
    rows = [r for r in rows if r["sentence"] in SENTENCES][:CLIPS]
    spoken = tmp / "spoken.jsonl"
    spoken.write_text("".join(json.dumps({"audio_filepath": r["audio_filepath"], "text": r["text"],
                                          "pred_text": r["spoken"]}) + "\n" for r in rows), encoding="utf-8")
    ids = json.dumps(sorted({r["sentence"] for r in rows}))
    spec = tmp / f"{out_name}.toml"
    spec.write_text(
        f'name = "kill"\nout = "{tmp / out_name}"\nbootstrap = 20\n'
        f'[corpus]\nmanifest = "{MANIFEST}"\nsaid_field = "spoken"\nlimit = {CLIPS}\n'
        f'select = {{ field = "sentence", values = {ids} }}\n'
        '[executor]\nbatch_size = 1\n'
        '[[model]]\nspec = "whisper-tiny.en"\npanel = true\noptions = { beam_size = 1 }\n'
        f'[[model]]\npredictions = "{spoken}"\nname = "spoken"\npanel = true\n'
        '[refdis]\nmajority = 0.66\nmin_panel = 2  # a two-member panel (the defaults want three)\n'
        '[masked]\ntargets = "numbers"\nalign = "pocketsphinx"\nmax_targets = 2\n'
        '[lift]\nmax_edits = 2\n'
        '[report]\naudio = false\nalign = "none"\n', encoding="utf-8")  # the page's audio is not what is tested
    return spec, tmp / out_name / "asraudit.sqlite"


def _results(store) -> dict[str, tuple]:
    if not store.exists():
        return {}
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30) as db:
        return {k: (b, t, s) for k, b, t, s in db.execute("SELECT job_key, batch_id, text, scores FROM results")}


def _count(store) -> int:
    try:
        return len(_results(store))
    except sqlite3.Error:
        return 0


def _kill_when(spec, store, stored_at_least: int, deadline_s: float = 600) -> dict:
    proc = asraudit_subprocess("audit", spec, "--no-progress")
    started = time.monotonic()
    while _count(store) < stored_at_least:
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() - started < deadline_s
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return _results(store)


def _run(spec) -> str:
    proc = asraudit_subprocess("audit", spec, "--no-progress")
    _, err = proc.communicate(timeout=900)
    assert proc.returncode == 0, err
    return err


@pytest.mark.slow
def test_an_audit_killed_in_transcription_and_in_a_later_stage_resumes_losing_nothing(tmp_path):
    from asraudit.models.registry import available_models

    if not any(e.name == "whisper-tiny.en" and e.present for e in available_models().embedded):
        pytest.skip("the embedded whisper-tiny.en is not installed")
    whole_spec, whole_store = _spec(tmp_path, "whole")
    _run(whole_spec)
    whole = _results(whole_store)
    transcribe_jobs = 2 * CLIPS  # two models (one replayed) x the clips
    assert len(whole) > transcribe_jobs + 2  # the later stages stored score/masked jobs too

    spec, store = _spec(tmp_path, "killed")
    first = _kill_when(spec, store, 3)                    # during transcription
    assert 3 <= len(first) < transcribe_jobs
    second = _kill_when(spec, store, transcribe_jobs + 2)  # in masked recovery or lift
    assert {k: second[k] for k in first} == first         # nothing finished was lost or redone
    assert len(second) < len(whole)
    _run(spec)
    final = _results(store)
    assert {k: final[k] for k in second} == second
    assert set(final) == set(whole)                        # the same jobs as the uninterrupted audit
    for key, (_, text, scores) in final.items():           # and the same results
        assert text == whole[key][1]
        assert (scores is None) == (whole[key][2] is None)
        if scores is not None:  # another process: equal up to float32 rounding (tests/tolerances.py)
            for a, b in zip(json.loads(scores), json.loads(whole[key][2])):
                np.testing.assert_allclose(a["logprobs"], b["logprobs"], rtol=LOGPROB_RTOL, atol=1e-5)
    assert json.loads((tmp_path / "killed" / "summary.json").read_text())["models"].keys() == \
        json.loads((tmp_path / "whole" / "summary.json").read_text())["models"].keys()
