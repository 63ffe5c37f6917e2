"""Paths as a user should see them: relative to the spec or the working directory, never the machine's layout.

A report is mailed, a summary.json is attached to a model card, a terminal
table is pasted into an issue.  An absolute path in them says where one
machine kept its files (often a home folder with a user name) and nothing the
reader can use, while the same path relative to the spec's folder names the
file the way the spec did.  Internally asraudit keeps absolute paths (they
survive a change of working directory); only what is shown goes through
here.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["display_path", "display_model_spec"]


def display_path(path: str | Path, *bases: str | Path) -> str:
    """``path`` relative to the first of ``bases`` it lies under, else as given.

    A relative path is already what the user wrote and is returned unchanged;
    a path under no base (a model cache, another disk) stays absolute rather
    than becoming a ``../../..`` chain that is only valid from one folder."""
    p = Path(path)
    if not p.is_absolute():
        return str(path)
    try:
        resolved = p.resolve()
    except (OSError, RuntimeError, ValueError):  # a link that loops (RuntimeError before 3.13); a NUL in the path
        resolved = p
    for base in bases:
        b = Path(base).resolve()
        for candidate in (p, resolved):
            if candidate == b:
                return "."
            if candidate.is_relative_to(b):
                return candidate.relative_to(b).as_posix()
    return str(path)


def display_model_spec(spec: str, *bases: str | Path) -> str:
    """A model spec (``replay:/abs/x.jsonl``, ``ct2:/abs/dir``, ``/abs/dir``) with its path shown relative.

    Names without a path (``whisper-tiny.en``, ``hf:openai/whisper-base``,
    ``http://host/v1``) come back unchanged."""
    if os.path.isabs(spec):
        return display_path(spec, *bases)
    scheme, sep, rest = spec.partition(":")
    if sep and os.path.isabs(rest) and not rest.startswith("//"):
        return f"{scheme}:{display_path(rest, *bases)}"
    return spec
