"""Case 9: `asraudit wer` streams a large prediction file instead of holding it 10x over.

On a 1,000,000-row, 192 MB file, ``wer`` peaked at 1.89 GB RSS.  Files are
now scored row by row, keeping per clip only its counts and two hashes;
benchmarks/wer_memory.py measures the full-size case (numbers in
docs/faults.md).  Here a 150,000-row file must add less memory than its own
size over a tiny file's run (the old reader added about ten times it; the
bounded memo of normalized references and the per-clip arrays add ~0.6x).
"""

from __future__ import annotations

import json
import os
import random

from conftest import asraudit_subprocess

WORDS = "the commission must present its report before the autumn madam president we have twenty".split()


def _write(path, rows: int) -> int:
    rng = random.Random(0)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(rows):
            ref = " ".join(rng.choices(WORDS, k=15))
            hyp = " ".join(w for w in ref.split() if rng.random() > 0.05)
            fh.write(json.dumps({"audio_filepath": f"audio/clip-{i:07d}.flac", "text": ref, "pred_text": hyp,
                                 "duration": 4.5}) + "\n")
    return path.stat().st_size


def _peak_rss_bytes(path, tmp_path) -> tuple[int, dict]:
    out = tmp_path / f"{path.stem}.json"
    proc = asraudit_subprocess("wer", "--preds", path, "--normalizer", "none", "--bootstrap", "0", "--json", out)
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own peak, not the largest of the session's children
    proc.returncode = os.waitstatus_to_exitcode(status)
    _, err = proc.communicate()
    assert proc.returncode == 0, err
    return usage.ru_maxrss * 1024, json.loads(out.read_text())["models"][path.stem]


def test_wer_memory_grows_by_less_than_the_file_size(tmp_path):
    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    _write(small, 1_000)
    size = _write(large, 150_000)
    base, _ = _peak_rss_bytes(small, tmp_path)
    peak, scores = _peak_rss_bytes(large, tmp_path)
    assert scores["clips"] == 150_000 and 0 < scores["wer"] < 0.2
    assert peak - base < size, f"peak {peak / 1e6:.0f} MB vs {base / 1e6:.0f} MB for a {size / 1e6:.0f} MB file"
