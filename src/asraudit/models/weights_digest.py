"""Content digests of model files: exact, and paid once per version of a file in a process.

The result store keys a model's transcripts and scores by its config hash.
If that hash missed a change to the weights, a model retrained or fine-tuned
into the same folder would be answered with the old model's results,
silently.  A digest of a file's first and last megabyte (what asraudit used
before) misses exactly that: a fine-tune changes tensors in the middle of
the file, and every tiny.en organism gave the same fingerprint.  So the
whole file is hashed.  Reading a few gigabytes costs seconds, small beside
loading and running the model, and the digest is kept per (path, size,
mtime, ctime, inode): a process that loads a model many times reads it once,
and any rewrite of the file changes its stat and is hashed again.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterable

_MEMO: dict[tuple, str] = {}


def file_digest(path: Path) -> str:
    """sha256 of the file's whole content (hex)."""
    status = path.stat()
    key = (str(path.resolve()), status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino, status.st_dev)
    digest = _MEMO.get(key)
    if digest is None:
        with path.open("rb") as handle:
            digest = _MEMO[key] = hashlib.file_digest(handle, "sha256").hexdigest()
    return digest


def files_digest(folder: Path, names: Iterable[str]) -> str:
    """One digest over the named files of ``folder`` that exist, each by name and content."""
    digest = hashlib.sha256()
    for name in sorted(set(names)):
        path = folder / name
        if path.is_file():
            digest.update(f"{name}\0{file_digest(path)}\n".encode())
    return digest.hexdigest()


def folder_digest(folder: Path) -> str:
    """One digest over every file directly in ``folder`` (weights, configs, tokenizer), hidden ones left out."""
    return files_digest(folder, (p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")))
