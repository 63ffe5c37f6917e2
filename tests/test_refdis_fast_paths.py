"""The refdis command's speed-ups change nothing but the time: each is checked against the plain path.

``--compat hume`` loads neither numpy nor the report layer (start-up CPU on
every run), and its CLI output is the in-process ``run_hume`` result.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from asraudit.data.predictions import load_predictions
from asraudit.probes.refdis_compat import HumeParams
from asraudit.probes.refdis_compat_run import run_hume

PANEL = ["wav2vec2-base-960h", "whisper-tiny.en", "whisper-base.en", "whisper-small.en"]
SRC = Path(__file__).resolve().parents[1] / "src"

# Runs the CLI as ``python -m asraudit`` would and reports, at exit, which heavy modules it loaded.
_PROBE = (
    "import atexit, runpy, sys\n"
    "atexit.register(lambda: print('LOADED', sorted(m for m in ('numpy', 'asraudit.report.summary', "
    "'asraudit.metrics.stats') if m in sys.modules), file=sys.stderr))\n"
    "sys.argv = ['asraudit'] + sys.argv[1:]\n"
    "runpy.run_module('asraudit', run_name='__main__')\n"
)


def _cli(args: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, env=env)


def test_compat_cli_loads_no_numpy_and_writes_the_in_process_result(shared_reference_dir, tmp_path):
    preds = shared_reference_dir / "predictions"
    out = tmp_path / "compat.json"
    proc = _cli(["refdis", "--preds", str(preds), "--panel", ",".join(PANEL), "--compat", "hume",
                 "--majority", "0.75", "--include-middle", "--json", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert "LOADED []" in proc.stderr
    expected = run_hume(load_predictions(preds), PANEL, HumeParams(majority=0.75, include_middle=True)).to_json()
    assert json.loads(out.read_text(encoding="utf-8")) == json.loads(json.dumps(expected))


def test_full_cli_still_loads_what_it_scores_with(shared_reference_dir, tmp_path):
    """The deferred imports are reached: the full miner runs and writes its JSON (bootstrap via numpy)."""
    preds = shared_reference_dir / "predictions"
    out = tmp_path / "full.json"
    proc = _cli(["refdis", "--preds", str(preds), "--panel", ",".join(PANEL), "--bootstrap", "50",
                 "--json", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert "'numpy'" in proc.stderr
    payload = json.loads(out.read_text(encoding="utf-8"))
    assert payload["n_edits"] == len(payload["edits"]) > 0
    assert set(payload["wer_cost"]) == set(payload["models"])
