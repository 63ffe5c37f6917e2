"""The British-to-American spelling table of Whisper's English normalizer (its normalizer.json).

Shared by the Whisper normalizer (``normalize``) and the Open ASR
Leaderboard's (``leaderboard_english``), which starts from the same table;
a module of its own so that neither imports the other for it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path


def english_spelling_mapping() -> dict[str, str]:
    """The British-to-American spelling table the Whisper normalizer applies (a copy: callers may extend it)."""
    return dict(spelling_table())


@lru_cache(maxsize=1)
def spelling_table() -> dict[str, str]:
    """The table itself, read once from the whisper-normalizer package.

    Straight from the installed package's folder where it is one (as pip installs it): importlib.resources'
    readers (zipfile among them) cost a command several milliseconds of start-up; a zipped install reads
    the same file through them."""
    import whisper_normalizer

    path = Path(whisper_normalizer.__file__).parent / "normalizers" / "english.json"
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    from importlib import resources

    with resources.files("whisper_normalizer").joinpath("normalizers/english.json").open(encoding="utf-8") as fh:
        return json.load(fh)
