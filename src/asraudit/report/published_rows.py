"""summary.json's ``published`` section: the paper's published accept-ref beside an audit that matches it.

Only a set mined on the audit's corpus, with the audit's panel and miner
settings, is comparable: accept-ref is a rate over the edits a panel mined,
so another panel or threshold makes another denominator.  These rows are
the release's counts with asraudit's own Wilson interval; they were
published, not re-measured by this audit.
"""

from __future__ import annotations

from dataclasses import dataclass

from asraudit.report.rows import Bounds

PUBLISHED_NOTE = "published, not re-measured"


@dataclass
class PublishedModelRow:
    """One model of a published set: its counts and the accept-ref they give."""

    model: str
    in_panel: bool
    accept_ref: float | None
    accept_ref_interval: Bounds
    n_ref: int
    n_eligible: int


@dataclass
class PublishedComparison:
    """A published set that matches the audit (corpus, panel and miner settings), with its rows."""

    name: str
    source: str                     # the release file, as the spec names its folder
    corpus: str
    panel: list[str]
    settings: dict[str, float | int | bool]  # the miner settings compared (majority, min_run_len, ...)
    rows: list[PublishedModelRow]
    note: str = PUBLISHED_NOTE
