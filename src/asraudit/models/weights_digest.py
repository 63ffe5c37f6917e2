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

from asraudit.errors import InputError

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


def content_identified_folder(spec: str) -> Path | None:
    """The folder a model spec names when the model is known by ``folder_digest`` of it (a transformers folder:
    ``DIR``, ``hf:DIR``, ``whitebox:DIR``, ``whitebox:hf:DIR``); None for anything else.  A CTranslate2 folder
    (``model.bin``) is known by its four files (``ct2_whisper``, ``whitebox.sources.Ct2Source.identity``)."""
    if not isinstance(spec, str) or spec.startswith(("ct2:", "replay:", "http://", "https://")):
        return None
    target = spec.strip().removeprefix("whitebox:").removeprefix("hf:")
    folder = Path(target).expanduser()
    if not target or not folder.is_dir() or (folder / "model.bin").is_file():
        return None
    return folder.resolve()


def refuse_outputs_in_model_folders(models, files=(), folders=(), redo: str = "everything") -> None:
    """An output written into the folder of a model known by its folder's content (fault cases 274, 277): every
    file directly in it is part of the model's identity, so a file written there (a result store, a prediction
    file, a readout) gave the model another config hash, and the next run computed ``redo`` again beside the last
    run's results in the store, none reused, exit 0.  ``models``: (label, spec) pairs, the label as the error
    names the model (``--model hf``); ``files``: (option, path) pairs of files written; ``folders``: (option, path)
    pairs of folders files are written into.  None paths are skipped; hidden names are not in the digest."""
    homes = [(label, home) for label, spec in models if (home := content_identified_folder(spec)) is not None]
    if not homes:
        return
    written = [(what, Path(path), Path(path).resolve()) for what, path in folders if path is not None]
    written += [(what, Path(path), Path(path).resolve().parent) for what, path in files
                if path is not None and not Path(path).name.startswith(".")]
    for what, path, where in written:
        for label, home in homes:
            if where == home:
                raise InputError(f"{what} is in the folder of {label}, whose every file is part of the model's "
                                 "identity: a file written there gives the model another config hash, and the next "
                                 f"run would compute {redo} again instead of reusing the result store: write it "
                                 "outside the model's folder", path)
