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
        self._tokens: Callable[[str], tuple[str, ...]] | None = getattr(normalize, "tokens", None)

    @property
    def asraudit_normalizer(self) -> bool:
        """One of asraudit's own normalizers (``normalize.normalizer_argument``) when the one it memoizes is."""
        return getattr(self.normalize, "asraudit_normalizer", False) is True

    def tokens(self, text: str) -> tuple[str, ...]:
        """``tuple(self(text).split())``, through the normalizer's own ``tokens`` where it has one (the Whisper
        normalizer's builds the words without joining and splitting them again).  Not memoized: a caller
        tokenizing a corpus keeps its tuples per distinct string itself."""
        if self._tokens is None:
            return tuple(self(text).split())
        return self._tokens(text)

    def __call__(self, text: str) -> str:
        out = self._memo.get(text)
        if out is None:
            out = self.normalize(text)
            self._memo[text] = out
        return out
