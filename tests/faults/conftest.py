"""Helpers of the fault suite: hostile-but-realistic input, one test per case.

Each case asserts the exact message a user sees (one line naming the file,
row, field or path; exit 2 for an error) and that nothing finished is lost.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from asraudit.cli import main

PROJECT_ROOT = Path(__file__).resolve().parents[2]


class Ran:
    """What a CLI run printed, and its exit code."""

    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    @property
    def error_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.startswith("asraudit: error:")]


@pytest.fixture()
def cli(capsys):
    """Run ``asraudit ARGS`` in this process; returns Ran(code, stdout, stderr)."""

    def run(*args) -> Ran:
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Ran(code, captured.out, captured.err)

    return run


def write_preds(path: Path, rows, *, duration: bool = False) -> Path:
    """A prediction file in the leaderboard layout from (clip id, reference, hypothesis) rows."""
    with path.open("w", encoding="utf-8") as fh:
        for i, (cid, ref, hyp) in enumerate(rows):
            rec = {"audio_filepath": cid, "text": ref, "pred_text": hyp}
            if duration:
                rec["duration"] = 1.0 + i
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path


def one_clip_manifest(folder: Path, *, tone: bool = True, text: str = "a tone") -> Path:
    """``folder/m.jsonl`` naming one second of audio ``a.wav`` (a 220 Hz tone, or silence) with ``text``."""
    import numpy as np
    import soundfile as sf

    t = np.arange(16_000) / 16_000
    samples = 0.3 * np.sin(2 * np.pi * 220 * t) if tone else np.zeros(16_000)
    sf.write(folder / "a.wav", samples.astype(np.float32), 16_000)
    manifest = folder / "m.jsonl"
    manifest.write_text(json.dumps({"audio_filepath": "a.wav", "text": text}) + "\n", encoding="utf-8")
    return manifest


def silent_clips_manifest(folder: Path, n: int = 2) -> Path:
    """``folder/corpus.jsonl`` naming ``n`` short silent clips ``c0.wav``... (0.1, 0.2 s): a corpus for a model
    server stub, which never listens to the audio."""
    import numpy as np
    import soundfile as sf

    rows = []
    for i in range(n):
        sf.write(folder / f"c{i}.wav", np.zeros(1600 * (i + 1), dtype=np.float32), 16000)
        rows.append(json.dumps({"audio_filepath": f"c{i}.wav", "text": f"clip {i}"}))
    (folder / "corpus.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return folder / "corpus.jsonl"


PANEL = ("m1", "m2", "m3")


def panel_files(folder: Path, rows) -> Path:
    """``folder`` (made if missing) holding one prediction file per model of ``PANEL``, each with ``rows``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in PANEL:
        write_preds(folder / f"{name}.jsonl", rows)
    return folder


def files_under(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def asraudit_subprocess(*args, cwd: Path | None = None, env: dict | None = None, **kw) -> subprocess.Popen:
    """``python -m asraudit ARGS`` in a child process with this checkout's sources first on the path."""
    import os

    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(PROJECT_ROOT / "src") + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.update(env or {})
    return subprocess.Popen([sys.executable, "-m", "asraudit", *map(str, args)], cwd=cwd, env=full_env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
