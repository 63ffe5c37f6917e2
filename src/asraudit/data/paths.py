"""Paths asraudit writes to: safe file stems for labels, and writability checked up front.

A model's *name* in an audit spec is a label (``openai/whisper-large-v3``,
``tiny (beam 5)``, ``../../x``, any Unicode string).  Files derived from it
must stay inside the output folder and must not collide, so the stem is the
label with every character outside a portable set replaced, plus a short hash
of the label whenever anything was replaced (two labels that sanitize to the
same text still get different stems).  A label that is already a portable
stem is used as it is, so ``whisper-tiny.en`` still writes
``whisper-tiny.en.jsonl``.

Output paths are checked before any model runs: a run that transcribes for an
hour and then fails to write its JSON because the parent is a file, or a
read-only folder, loses the hour.  The checks raise ``InputError`` naming the
path, which the CLI prints as one line.
"""

from __future__ import annotations

import argparse
import errno
import os
import re
import shutil
import socket
import stat
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

from asraudit.errors import InputError
from asraudit.processes import process_alive

# Characters every filesystem accepts in a name, with no meaning to a shell or a path.
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")
_MAX_STEM = 80  # well under any filesystem's 255-byte name limit, with room for suffixes


def _label_hash(label: str) -> str:
    import hashlib  # here: most commands never name a file after a label, and OpenSSL's bindings take ms to load

    return hashlib.sha256(label.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def safe_stem(label: str) -> str:
    """A file stem for ``label``: portable characters only, never a path, distinct per label.

    ``/`` becomes ``--`` (so a hub id ``org/name`` stays readable); any other
    run of unsafe characters becomes ``_``; leading dots are dropped (no
    hidden files, no ``..``).  If that changed anything, ``-`` and 8 hex
    digits of the label's SHA-256 are appended."""
    text = str(label)
    stem = _UNSAFE.sub("_", text.replace("/", "--")).lstrip(".")
    if stem == text and stem and len(stem) <= _MAX_STEM:
        return stem
    return f"{stem[:_MAX_STEM].rstrip('.') or 'model'}-{_label_hash(text)}"


def safe_stems(labels: Iterable[str]) -> dict[str, str]:
    """label -> stem for several labels, distinct even on a case-insensitive filesystem.

    ``Tiny`` and ``tiny`` are different labels but one file on macOS and
    Windows; where stems would meet after case folding, each gets its hash."""
    labels = list(dict.fromkeys(labels))
    stems = {label: safe_stem(label) for label in labels}
    folded: dict[str, list[str]] = {}
    for label, stem in stems.items():
        folded.setdefault(stem.casefold(), []).append(label)
    for group in folded.values():
        if len(group) > 1:
            for label in group:
                base = stems[label]
                stems[label] = base if base.endswith(_label_hash(label)) else f"{base[:_MAX_STEM]}-{_label_hash(label)}"
    return stems


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists() or candidate.is_symlink():
            return candidate
    return Path(path.anchor or ".")


def ensure_writable_dir(path: str | Path, what: str = "output folder") -> Path:
    """Check that ``path`` is, or can be created as, a folder asraudit can write; create nothing.

    Raises InputError naming the path: an existing file in its place, a file
    where a parent folder should be, or a folder without write permission
    (or on a read-only filesystem)."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise InputError(f"{what} must be a folder, but a file is there", path)
    existing = _nearest_existing(path)
    if not existing.is_dir():
        raise InputError(f"cannot create {what}: {existing} is a file, not a folder", path)
    if not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"cannot write {what}: no write permission in {existing}", path)
    return path


class _TypedPath(type(Path())):
    """A Path that can carry how it was typed (``Path("out/")`` is ``out``: the trailing separator is gone)."""


_EMPTY = "an empty path names no file or folder (it would be the working directory): give one"


def output_folder(text: str) -> Path:
    """The argparse type of an option naming an output folder: an empty name is refused.

    ``Path("")`` is the working directory: ``--out "$DIR"`` with ``DIR`` unset wrote a whole run's store and
    outputs among whatever the working directory held, where the user had meant a folder of its own."""
    if text == "":
        raise argparse.ArgumentTypeError(_EMPTY)
    return Path(text)


def output_file(text: str) -> Path:
    """The argparse type of an option naming an output file: a Path that remembers a trailing separator.

    ``--json out/`` names a folder; as a plain Path it is ``out``, and a file named ``out`` was written
    where the user expected a folder (or, where ``out`` was a folder, the error came only after the work).
    An empty name is refused like ``output_folder``'s."""
    if text == "":
        raise argparse.ArgumentTypeError(_EMPTY)
    path = _TypedPath(text)
    if text.endswith(("/", os.sep)) and len(text) > 1:
        path.typed_as_folder = True
    return path


def ensure_writable_file(path: str | Path, what: str = "output file") -> Path:
    """Check that a file can be written at ``path`` (its folder exists or can be made); create nothing."""
    if getattr(path, "typed_as_folder", False):
        raise InputError(f"{what} ends with {os.sep!r}, so it names a folder: give a file name", f"{path}{os.sep}")
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{what} is a folder; give a file name", path)
    if is_stream(path) and os.path.exists(path):  # /dev/stdout, a FIFO: written directly, its folder is not
        if not os.access(path, os.W_OK):
            raise InputError(f"cannot write {what}: no write permission", path)
        return path
    if path.exists() and not os.access(path, os.W_OK):
        raise InputError(f"cannot write {what}: no write permission", path)
    parent = path.parent
    if parent.exists() and not parent.is_dir():
        raise InputError(f"cannot write {what}: {parent} is a file, not a folder", path)
    existing = _nearest_existing(parent)
    if not existing.is_dir():
        raise InputError(f"cannot write {what}: {existing} is a file, not a folder", path)
    if not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"cannot write {what}: no write permission in {existing}", path)
    return path


def _same_file_key(path: Path):
    """What makes two paths one file: device and inode for a file that is there (a symlink or hard link to an
    input is that input), else the path with every symlink resolved."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        try:
            return ("path", os.path.realpath(path))
        except ValueError:  # a NUL in the path: no file is there, and none can be
            return ("path", str(path))
    return ("file", st.st_dev, st.st_ino)


def ensure_outputs_apart(outputs: Iterable[tuple[str, str | Path | None]],
                         inputs: Iterable[tuple[str, str | Path | None]],
                         fix: str = "write it to another file") -> None:
    """Refuse, before any work, an output file that is one of the inputs or another output's file.

    ``outputs`` and ``inputs`` are (what the user named it, path) pairs; a None path is an option not given.
    ``--json`` named after the prediction file it reads would replace that file with the scores (the
    benchmark's predictions lost), and two outputs on one path keep only the last one written."""
    named: dict[tuple, str] = {}
    for what, path in inputs:
        if path is not None:
            named.setdefault(_same_file_key(Path(path)), what)
    written: dict[tuple, str] = {}
    for what, path in outputs:
        if path is None:
            continue
        key = _same_file_key(Path(path))
        if key in named:
            raise InputError(f"{what} would overwrite {named[key]}, an input: {fix}", path)
        if key in written:
            raise InputError(f"{what} and {written[key]} name the same file: give each its own", path)
        written[key] = what


def ensure_outputs_apart_from_audio(outputs: Iterable[tuple[str, str | Path | None]], clips: Iterable,
                                    fix: str = "write it to another file") -> None:
    """Refuse, once the corpus is read and before any model runs, an output file that is a clip's audio file.

    A corpus's audio files are inputs the command line does not name: ``translate --out a.wav`` ran, then
    replaced the clip's audio with its outcome rows, exit 0.  Only outputs that are there already are looked
    up (a path with no file names no clip's audio), so a fresh output costs nothing; a link to the audio is
    the audio (``_same_file_key``)."""
    there: dict[tuple, tuple[str, str | Path]] = {}
    for what, path in outputs:
        if path is not None and os.path.isfile(path):
            there.setdefault(_same_file_key(Path(path)), (what, path))
    if not there:
        return
    for clip in clips:
        if isinstance(clip.audio, Path):
            hit = there.get(_same_file_key(clip.audio))
            if hit is not None:
                raise InputError(f"{hit[0]} would overwrite the audio of clip {clip.id!r}, an input: {fix}", hit[1])


def unique_temp_path(path: Path) -> Path:
    """A temporary name next to ``path``, unique to this process and call.

    Writers replace their file atomically from a temporary one; a fixed name
    such as ``x.jsonl.tmp`` is shared by concurrent runs into one folder, and
    one run's rename then finds the other's file gone."""
    return path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")


# Paths that are another name of an open file descriptor, not files: ``/dev/stdout``, ``/dev/fd/3`` (a shell's
# ``>(...)``), ``/proc/self/fd/1``.  They resolve, through ``/proc``, to a pipe, a terminal or a file the shell
# opened.  (A regular file elsewhere under ``/dev``, such as ``/dev/shm/x.json``, is a file like any other.)
_DESCRIPTOR_PATH = re.compile(r"/dev/(?:stdin|stdout|stderr|fd/\d+)|/proc/[^/]+/fd/\d+")


def is_stream(path: str | Path) -> bool:
    """Whether ``path`` is written as a stream, not replaced as a file: it is there and, its links followed, not a
    regular file (a FIFO, ``/dev/null``, a terminal), or it names a file descriptor (``/dev/stdout`` when the
    shell sent standard output to a file: that file is held open by the shell, and replacing it would leave the
    shell's later output in a file no name reaches)."""
    text = os.fspath(path)
    if _DESCRIPTOR_PATH.fullmatch(text):
        return True
    try:
        mode = os.stat(text).st_mode
    except (OSError, ValueError):
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


@contextmanager
def written_whole(path: str | Path) -> Iterator[Path]:
    """The path to write ``path``'s new content to, moved into place when the block ends without an error: a
    reader never sees half a file, and a run stopped while writing leaves the last whole one.

    The temporary file sits beside the file ``path`` reaches: through a symbolic link, beside the link's
    target, which is replaced (a rename onto the link replaced the link itself with a file, and the file the user
    keeps the link to kept its old content).  A stream (``is_stream``: a FIFO, ``/dev/null``, ``/dev/stdout``,
    ``/dev/fd/N``) is appended to, once the content is whole: renaming onto it replaced a FIFO's reader's path,
    and, as root, the system's ``/dev/null`` or ``/dev/stdout`` with a regular file.  The content waits in a
    temporary file of the system's temporary folder (a stream has no folder of its own), removed after, and is
    appended after what the command printed so far: ``--json /dev/stdout > all.txt`` opened anew for writing
    would truncate ``all.txt`` and lose the table printed before it."""
    path = Path(path)
    if is_stream(path):
        handle, name = tempfile.mkstemp(prefix=".asraudit-", suffix=".tmp")
        os.close(handle)
        tmp = Path(name)
        try:
            yield tmp
            sys.stdout.flush()
            sys.stderr.flush()
            with tmp.open("rb") as source, open(path, "ab") as stream:
                shutil.copyfileobj(source, stream)
        except OSError as exc:
            _raise_naming(exc, path)
        finally:
            tmp.unlink(missing_ok=True)
        return
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    tmp = unique_temp_path(target)
    try:
        yield tmp
        tmp.replace(target)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            _raise_naming(exc, path)
        raise


# What a write into a file reports when the disk, not the path, is at fault: no file name comes with it.
_DISK_ERRNOS = frozenset(getattr(errno, n) for n in ("ENOSPC", "EDQUOT", "EFBIG", "EIO") if hasattr(errno, n))


def _raise_naming(exc: OSError, path: Path) -> None:
    """Re-raise ``exc`` naming ``path`` when it is a disk's error that names no file (case 309): a full disk, a
    quota, a file past the size the file system takes.  Writing an output on a full disk (``schema --out``,
    ``wer --json``, ``preds --export``, every output written whole) was ``OSError: [Errno 28] No space left on
    device`` as a traceback, naming no file; the command line's handler reports an error naming its path in one
    line.  Any other error goes up as it came."""
    if exc.filename is None and exc.errno in _DISK_ERRNOS:
        raise OSError(exc.errno, f"cannot write it: {exc.strerror or exc}; the file is left as it was (free some "
                      "space, or write it elsewhere)", str(path)) from exc
    raise exc


def write_text_whole(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all (``written_whole``)."""
    with written_whole(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def write_lines_whole(path: Path, lines: Iterable[str]) -> Path:
    """Write ``lines`` (each ended with a newline here) to ``path`` whole or not at all (``written_whole``): a
    rows file written in place was left cut short by a run stopped while writing it (Ctrl-C, SIGTERM, a full
    disk), and two runs writing one file at once mixed their rows."""
    with written_whole(path) as tmp, tmp.open("w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(line + "\n")
    return Path(path)


def _staging_prefix(target: Path) -> str:
    """The start of the name of a folder this process builds ``target`` in (or moves an old ``target`` aside to):
    ``.NAME.staging-HOST-PID-``; ``sweep_stale_staging`` reads the owner back from it.  HOST is the host name and,
    on Linux, the process-id namespace (containers sharing a cache and a host name each number their processes)."""
    host = re.sub(r"[^A-Za-z0-9.]", "_", socket.gethostname())
    try:
        host += f"_{os.stat('/proc/self/ns/pid').st_ino}"
    except OSError:
        pass
    return f".{target.name}.staging-{host}-{os.getpid()}-"


def sweep_stale_staging(target: Path) -> list[Path]:
    """Remove the staging folders of ``target`` whose owner, a process of this host, is gone; returns them.

    A cache folder is built in a staging folder beside it and renamed into place (``publish_dir``); a run killed
    with SIGKILL (or the machine losing power) cannot remove its staging folder, which stayed in the cache, hidden,
    for ever (a white-box conversion's is the size of the model).  Each staging folder is named for its owner
    (``_staging_prefix``), so the next build of the same target removes those of processes that are no longer
    running.  A folder whose owner still runs (another conversion of the same model at this moment), whose owner
    is this process, or that another host or process-id namespace made (a cache on a shared disk, or shared by
    containers: no process table to ask) is left alone, as is any name this scheme did not make."""
    prefix = _staging_prefix(target)
    ours = prefix[: prefix.rindex("-", 0, -1) + 1]  # .NAME.staging-HOST-
    removed = []
    try:
        entries = list(target.parent.iterdir())
    except OSError:
        return removed
    for entry in entries:
        match = re.fullmatch(r"(\d+)-[a-z0-9_]{8}", entry.name[len(ours):]) if entry.name.startswith(ours) else None
        if match is None or int(match[1]) == os.getpid() or process_alive(int(match[1])):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


def make_staging_dir(target: Path) -> Path:
    """A new, empty folder beside ``target`` to build it in, named for this process; first the staging folders
    of ``target`` left by processes that are gone are removed (``sweep_stale_staging``)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    sweep_stale_staging(target)
    return Path(tempfile.mkdtemp(prefix=_staging_prefix(target), dir=target.parent))


def publish_dir(staging: Path, target: Path, finished) -> Path:
    """Move the finished folder ``staging`` to ``target``, unless a concurrent process got there first.

    A model cache (a conversion, a merged organism) is filled by whichever
    process needs it first, and two may build it at once (two audits, two
    test workers on a cold cache).  Each builds into its own ``staging``
    folder and renames it into place; the rename is atomic and fails on a
    non-empty ``target``.  A ``target`` that ``finished`` accepts holds the
    same content, so ours is dropped: a finished copy is never deleted under
    a process that may be reading it.  Only an unfinished one (left by an
    older layout) is moved aside and replaced.
    """
    for _ in range(3):
        try:
            staging.rename(target)
            return target
        except OSError:
            if finished(target):
                shutil.rmtree(staging, ignore_errors=True)
                return target
            if not target.exists():
                raise
            aside = target.with_name(_staging_prefix(target) + os.urandom(4).hex())  # swept if we are killed
            try:
                target.rename(aside)
            except FileNotFoundError:  # another process moved it first
                continue
            shutil.rmtree(aside, ignore_errors=True)
    staging.rename(target)
    return target
