"""``NormalizedCache``: a normalizer memoized on raw strings, in a module without numpy.

References repeat across models (every model of a benchmark carries the
same reference text), so a run normalizes each distinct string once.  The
cache lives as long as the object, one run; it holds nothing between runs.
"""

from __future__ import annotations

from typing import Callable


class NormalizedCache:
    """Memoizes a normalizer on raw strings (references repeat across models)."""

    def __init__(self, normalize: Callable[[str], str]):
        self.normalize = normalize
        self._memo: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        out = self._memo.get(text)
        if out is None:
            out = self.normalize(text)
            self._memo[text] = out
        return out
