"""Case 110: an audit stopped in a later stage (Ctrl-C, SIGTERM) leaves the outputs of one run, not two.

The audit rewrites summary.json after each stage; stopped by Ctrl-C in a
stage, it left that partial summary.json of this run beside the tables/ and
report.html of the previous run into the same ``out`` (here: a summary with
no mining beside the earlier run's ``tables/clips.parquet`` and its page).  Now a stop
in a stage writes the outputs of the stages done, as an error in a stage
does, then ends with case 37's line and exit 130; the rerun resumes from the
store.  Here the interrupt is raised from the mining stage, in this process.
"""

from __future__ import annotations

import json

import asraudit.audit.text_stages as text_stages

from conftest import write_preds

CLIPS = [(f"audio/clip{i}.wav", f"the cat sat on mat number {i}", f"the cat sat on the mat number {i}")
         for i in range(6)]


def _spec(tmp_path, bootstrap: int):
    models = ""
    for i in range(3):
        preds = write_preds(tmp_path / f"m{i}.jsonl", [(c, r, h if i else r) for c, r, h in CLIPS])
        models += f'[[model]]\npredictions = "{preds}"\npanel = true\n\n'
    spec = tmp_path / "audit.toml"
    spec.write_text(f'name = "stopped"\nout = "out"\nbootstrap = {bootstrap}\n[corpus]\n'
                    f'predictions = "{tmp_path / "m0.jsonl"}"\n\n{models}[conventions]\n', encoding="utf-8")
    return spec


def test_an_audit_stopped_in_a_stage_writes_the_outputs_of_the_stages_done(tmp_path, cli, monkeypatch):
    out = tmp_path / "out"
    assert cli("audit", _spec(tmp_path, 50), "--no-progress").code == 0
    assert sorted(p.name for p in (out / "tables").iterdir()) == ["clips.parquet"]
    first_page = (out / "report.html").read_text(encoding="utf-8")

    def interrupted(*a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(text_stages, "mine_and_score", interrupted)
    ran = cli("audit", _spec(tmp_path, 60), "--no-progress")
    assert (ran.code, ran.err.splitlines()[-1]) == (130, (
        "asraudit: interrupted; a command that runs models keeps every result it stored, and running it again "
        "resumes from them"))
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert "mining" not in summary and "conventions" not in summary
    assert sorted(p.name for p in (out / "tables").iterdir()) == []  # not the earlier run's tables
    assert (out / "report.html").read_text(encoding="utf-8") != first_page  # this run's page, of the stages done
    assert not [p for p in out.rglob("*.tmp")]

    monkeypatch.undo()
    ran = cli("audit", _spec(tmp_path, 60), "--no-progress")
    assert ran.code == 0, ran.err
    assert ran.err.count("0 job(s) run now, 6 already stored") == 3
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert "mining" in summary and "conventions" in summary
    assert sorted(p.name for p in (out / "tables").iterdir()) == ["clips.parquet"]
