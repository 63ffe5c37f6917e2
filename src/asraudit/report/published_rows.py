"""summary.json's ``published`` and ``published_switch`` sections: the paper's numbers beside an audit.

Only a set mined on the audit's corpus, with the audit's panel and miner
settings, is comparable: accept-ref is a rate over the edits a panel mined,
so another panel or threshold makes another denominator.  These rows are
the release's counts with asraudit's own Wilson interval; they were
published, not re-measured by this audit.  The switch-rate groups are
compared setting by setting (``audit.published_switch``): rows only when
nothing differs, otherwise the settings that do.
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


@dataclass
class PublishedSwitchModelRow:
    """One model's switch rate on a published convention group: measured by this audit, or published."""

    model: str
    source: str                        # "audited" (measured here) or "published, not re-measured"
    switch: float | None               # min over arms of P(model writes the arm | reference uses it)
    switch_interval: Bounds | None     # Wilson 95% on the limiting arm
    limiting_arm: str | None
    hits: int | None                   # the limiting arm's clips the model wrote it on ...
    n: int | None                      # ... of the clips whose reference uses it
    note: str = ""                     # why an audited model has no rate (too few clips per arm, ...)


@dataclass
class PublishedSwitchComparison:
    """A published switch-rate group and this audit: drawn together only when nothing in ``differs``.

    The settings compared: the corpus (the group's scope against ``[published] corpus``), the arms
    (a family or pool of the audit's catalogue with the same arms), how many families are pooled,
    ``min_per_arm`` and chance.  When one differs the rates are not comparable and ``rows`` is empty."""

    name: str                          # the release's group ("spacing", "hon_mister")
    source: str                        # the release file, as the spec names its folder
    scope: str                         # the release's words for where the group was measured
    arms: list[str]
    min_per_arm: int
    chance: float
    audit_group: str | None            # this audit's family or pool with the same arms (None: none has them)
    differs: list[str]                 # each setting that differs, in words; empty: comparable
    rows: list[PublishedSwitchModelRow]
    note: str = PUBLISHED_NOTE
