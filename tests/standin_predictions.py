"""Prediction files that stand in for models in the calibration tests: each clip's "transcript" is a text the
test chooses from its manifest row (what was said, or the record), so an audit reads them with no model run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Iterable


def write_standin(path: Path, rows: Iterable[dict], text_of: Callable[[dict], str]) -> Path:
    """``path`` as a prediction JSONL: each manifest row's audio and reference, and ``text_of(row)`` as its hypothesis."""
    with path.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps({"audio_filepath": r["audio_filepath"], "text": r["text"],
                                 "pred_text": text_of(r)}) + "\n")
    return path
