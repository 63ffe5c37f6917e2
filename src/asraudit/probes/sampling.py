"""A seeded, spread-out subset of a probe's items, for the caps a spec or a command puts on the work.

A cap (``max_targets``, ``max_edits``) keeps the items whose seeded hash of
their id ranks first: the same items on every run and every machine, spread
over the corpus rather than its first clips.  A reader is told the counts
found and used, so the denominator is known to be sampled.
"""

from __future__ import annotations

import hashlib
from typing import Callable, Sequence, TypeVar

T = TypeVar("T")


def sample(items: Sequence[T], key: Callable[[T], str], limit: int | None, seed: int) -> list[T]:
    """At most ``limit`` items, chosen by a seeded hash of ``key(item)`` and returned in their original order."""
    if not limit or len(items) <= limit:
        return list(items)
    rank = sorted(range(len(items)),
                  key=lambda i: hashlib.sha256(f"{seed}:{key(items[i])}".encode("utf-8")).hexdigest())
    keep = set(rank[:limit])
    return [item for i, item in enumerate(items) if i in keep]
