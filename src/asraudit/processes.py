"""Whether a process of this host still runs: the one test behind "its owner is gone".

Two places ask it, on different floors: the store's job claims (``run.claims``: a claim whose run was killed is
taken over) and the cache builders' staging folders (``data.paths.sweep_stale_staging``: a folder whose builder was
killed is removed).  It lives at the bottom so that both can ask it without the data layer importing the job grid.
"""

from __future__ import annotations

import os


def process_alive(pid: int) -> bool:
    """Whether a process of this host is running (a zombie, killed but not yet reaped, is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            state = fh.read().rsplit(b")", 1)[1].split()[0]
        return state not in (b"Z", b"X")
    except (OSError, IndexError):
        return True  # no /proc (macOS): kill(pid, 0) is the answer
