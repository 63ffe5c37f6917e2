"""The README's Python quick start runs as written.

The snippets are read from README.md (the ```python blocks under "## Python")
and run in a fresh interpreter in a folder holding the files they name, the
way a user would paste them: a snippet that drifts from the API fails here,
not in a newcomer's notebook.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from asraudit.cli import main
from asraudit.demo.organism import BENCHMARK_DIR

ROOT = Path(__file__).resolve().parents[1]
PANEL = ["wav2vec2-base-960h", "whisper-tiny.en", "whisper-base.en", "whisper-small.en"]
SUSPECT = "distil-small.en"
LINE = re.compile(r"^(\S+)\s+accept-ref\s+(\S+)% \[(\S+)%, (\S+)%\] (\d+)/(\d+)$")


def readme_snippets() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def run_snippet(code: str, cwd: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture
def predictions_folder(tmp_path: Path) -> Path:
    """The files the snippets name, from parliament-mini: the panel writes what was said, the suspect the record."""
    rows = [json.loads(line) for line in (BENCHMARK_DIR / "test.jsonl").read_text(encoding="utf-8").splitlines()][:70]
    folder = tmp_path / "predictions"
    folder.mkdir()
    for model in PANEL + [SUSPECT]:
        field = "text" if model == SUSPECT else "spoken"
        (folder / f"{model}.jsonl").write_text(
            "".join(json.dumps({"audio_filepath": r["audio_filepath"], "text": r["text"], "pred_text": r[field],
                                "duration": r["duration"]}) + "\n" for r in rows), encoding="utf-8")
    return tmp_path


def test_the_readme_has_two_short_python_snippets():
    snippets = readme_snippets()
    assert len(snippets) == 2
    assert all(len(s.strip().splitlines()) <= 10 for s in snippets)
    assert all(s.startswith("from asraudit import ") for s in snippets)  # the public API only


def _accept_ref_lines(stdout: str) -> dict[str, tuple[float, int, int]]:
    found = {}
    for line in stdout.splitlines():
        m = LINE.match(line.strip())
        if m:
            found[m[1]] = (float(m[2]), int(m[5]), int(m[6]))
    return found


def test_the_text_only_snippet_finds_the_echoing_model(predictions_folder):
    out = run_snippet(readme_snippets()[0], predictions_folder)
    scores = _accept_ref_lines(out)
    assert set(scores) == set(PANEL) | {SUSPECT}
    rate, n_ref, n_eligible = scores[SUSPECT]
    assert rate == 100.0 and n_ref == n_eligible > 10
    assert all(scores[m][0] == 0.0 for m in PANEL)


def test_the_text_only_snippet_on_voxpopuli_prints_what_asraudit_refdis_prints(shared_predictions, tmp_path, capsys):
    folder = tmp_path / "predictions"
    folder.mkdir()
    for f in shared_predictions.glob("*.jsonl"):  # linked, never copied
        (folder / f.name).symlink_to(f)
    out = run_snippet(readme_snippets()[0], tmp_path)
    assert main(["refdis", "--preds", str(shared_predictions), "--panel", ",".join(PANEL),
                 "--json", str(tmp_path / "r.json")]) == 0
    capsys.readouterr()
    cli = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert f"{cli['n_edits']} reference errors" in out
    scores = _accept_ref_lines(out)
    assert set(scores) == set(cli["accept_ref"])
    for model, (rate, n_ref, n_eligible) in scores.items():
        expected = cli["accept_ref"][model]
        assert (n_ref, n_eligible) == (expected["n_ref"], expected["n_eligible"])
        assert rate == float(f"{expected['rate']:.1%}".rstrip("%"))  # the same rate, printed the same way


def test_the_audit_snippet_flags_the_echoing_model_and_writes_no_absolute_path(predictions_folder):
    out = run_snippet(readme_snippets()[1], predictions_folder)
    verdicts = dict(line.split(" ", 1) for line in out.strip().splitlines())
    assert verdicts[SUSPECT].startswith("FLAGGED accept-ref 100.0%")
    assert all(verdicts[m].strip() == "ok" for m in PANEL)
    written = predictions_folder / "audit-out"
    summary = json.loads((written / "summary.json").read_text(encoding="utf-8"))
    assert summary["models"][SUSPECT]["flagged"] and summary["models"][SUSPECT]["accept_ref"] == 1.0
    for name in ("summary.json", "report.html"):
        assert str(predictions_folder) not in (written / name).read_text(encoding="utf-8")
