"""Case 209: a pocketsphinx option of the right type but outside the range pocketsphinx gives it (case 188 checked
the type only).

A negative beam (`--option beam=-5`) is read by pocketsphinx as 0, no pruning at all, and one above 1 prunes every
path; a probability above 1 (`silprob=2`), a negative penalty (`wip=-1`, read as 0: every transcript empty) and a
count below -1 (`maxhmmpf=-5`, every HMM pruned) ran without a word, exit 0, the transcripts stored under the options
as written.  Others stopped the whole process with no line: `maxwpf=0` (SIGSEGV), `maxwpf=-5` (`PANIC: No worst
BPtable entry remaining`), `logbase=1` (SIGSEGV), `ds=0` (SIGFPE), `latsize=0` (`malloc(0) failed`).  Now each is
refused when the model loads, before any clip is decoded.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import PROJECT_ROOT, one_clip_manifest

pytest.importorskip("pocketsphinx")

BEAM = ("a beam width from 0 (no pruning) to 1, a ratio to the best path's probability (pocketsphinx reads a negative "
        "one as 0, and one above 1 prunes every path, the best too)")
SILENT = {
    "beam=-5": f"option beam must be {BEAM}, got -5",
    "wbeam=2.5": f"option wbeam must be {BEAM}, got 2.5",
    "silprob=2": "option silprob must be a probability, from 0 to 1, got 2",
    "wip=-1": "option wip must be 0 or above (pocketsphinx takes its logarithm, and reads a negative number as 0), "
              "got -1",
    "maxhmmpf=-5": "option maxhmmpf must be a count of at least 0, or -1 for no pruning, got -5",
}
CRASHING = {
    "maxwpf=0": "option maxwpf must be a count of at least 1, or -1 for no pruning (0 crashes pocketsphinx), got 0",
    "maxwpf=-5": "option maxwpf must be a count of at least 1, or -1 for no pruning (0 crashes pocketsphinx), got -5",
    "logbase=1": "option logbase must be above 1 (pocketsphinx: \"Base must be greater than 1.0\"; its decoder "
                 "crashes on a smaller one), got 1",
    "ds=0": "option ds must be a downsampling ratio of at least 1 (1 computes every frame; 0 crashes pocketsphinx), "
            "got 0",
    "latsize=0": "option latsize must be a table size of at least 1 (pocketsphinx cannot allocate a smaller one and "
                 "exits), got 0",
}


@pytest.mark.parametrize("option", sorted(SILENT))
def test_a_value_pocketsphinx_misreads_is_refused_when_the_model_loads(tmp_path, cli, option):
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", one_clip_manifest(tmp_path), "--option", option,
              "--out", tmp_path / "o", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: model 'pocketsphinx': {SILENT[option]}"])
    assert not any((tmp_path / "o").glob("*.jsonl"))


# Run in a child: on a pocketsphinx that takes them, these values end the process itself, not just a test.
CHILD = """
import json, sys, contextlib, io
from asraudit.cli import main
said = {}
for option in json.loads(sys.argv[2]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["transcribe", "--model", "pocketsphinx", "--corpus", sys.argv[1], "--option", option,
                     "--out", sys.argv[3], "--no-progress"])
    said[option] = [code, [l for l in err.getvalue().splitlines() if l.startswith("asraudit: error:")]]
print(json.dumps(said))
"""


def test_a_value_that_stops_pocketsphinx_dead_is_refused_first(tmp_path):
    import os

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PROJECT_ROOT / "src"), *sys.path])}
    ran = subprocess.run([sys.executable, "-c", CHILD, str(one_clip_manifest(tmp_path)), json.dumps(sorted(CRASHING)),
                          str(tmp_path / "o")], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert json.loads(ran.stdout) == {
        option: [2, [f"asraudit: error: model 'pocketsphinx': {said}"]] for option, said in CRASHING.items()}


def test_values_in_range_still_run(tmp_path, cli):
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", one_clip_manifest(tmp_path), "--option",
              "beam=0", "--option", "wbeam=1", "--option", "silprob=0.1", "--option", "maxhmmpf=-1", "--option",
              "maxwpf=-1", "--option", "logbase=1.0003", "--option", "ds=1", "--option", "wip=0.5",
              "--out", tmp_path / "o", "--no-progress")
    assert ran.code == 0, ran.err
