"""Case 280: an audit's ``out`` that holds, where the audit writes, a folder in place of one of its files
(``summary.json``, ``report.html``, ``tables/clips.parquet``, ``preds/<model>.jsonl``) or a file in place of one of
its folders (``tables``, ``preds``), left by another audit, a tool or a user.  ``audit --check`` passed, and the run
failed once its models had run, naming a temporary file: ``o/.summary.json.4985.74b88070.tmp: Is a directory``,
``o/tables: File exists``.  Now ``audit.prepare`` checks each before any model runs: a model's export once the
models are loaded (the file is named after the model), every other place before any model loads."""

from __future__ import annotations

import pytest

from tests.faults.conftest import one_clip_manifest, two_pocketsphinx_audit

pytest.importorskip("pocketsphinx")

SPEC = two_pocketsphinx_audit()


@pytest.mark.parametrize("folder, place, line", [
    (True, "summary.json", "o/summary.json: the audit's summary is a folder; give a file name"),
    (True, "report.html", "o/report.html: the audit's report is a folder; give a file name"),
    (True, "tables/clips.parquet", "o/tables/clips.parquet: the audit's table 'clips' is a folder; give a file name"),
    (True, "preds/ps2.jsonl", "o/preds/ps2.jsonl: the audit's export of model 'ps2' is a folder; give a file name"),
    (False, "tables", "o/tables: the audit's tables folder must be a folder, but a file is there"),
    (False, "preds", "o/preds: the audit's exports folder must be a folder, but a file is there"),
])
@pytest.mark.parametrize("check", [True, False])
def test_refused_before_any_model_runs(tmp_path, monkeypatch, cli, folder, place, line, check):
    from asraudit.audit import prepare

    loaded = []
    real = prepare.load_model
    monkeypatch.setattr(prepare, "load_model", lambda *a, **k: loaded.append(a) or real(*a, **k))
    monkeypatch.chdir(tmp_path)
    one_clip_manifest(tmp_path)
    (tmp_path / "s.toml").write_text(SPEC, encoding="utf-8")
    target = tmp_path / "o" / place
    if folder:
        target.mkdir(parents=True)
    else:
        target.parent.mkdir(parents=True)
        target.write_text("x", encoding="utf-8")
    ran = cli("audit", *(["--check"] if check else []), "s.toml")
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {line}"])
    assert "job(s) run now" not in ran.err
    assert not (tmp_path / "o" / "asraudit.sqlite").exists()
    assert (place.startswith("preds/")) == bool(loaded)  # only the export's place waits for the models' names
