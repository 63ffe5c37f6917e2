"""Which clips a mechanism experiment learns from and which it is tested on.

A steering direction is learned from (positive, negative) pairs and then
applied to other clips.  Both choices are made here from clip metadata,
without torch, so an audit can check them against its corpus before any
model runs:

* a ``Selection`` is "clips whose field takes one of these values"
  (``voice_role = benchmark``), read from the manifest's extra fields, the
  speaker, or the clip id;
* ``clip_pairs`` pairs the positive and negative clips that share a value of
  ``pair_by`` (the same sentence in a benchmark voice and a fresh voice), so
  that the paired difference cancels the words and keeps the contrast;
* ``split_groups`` holds some pair groups (sentences) out of learning.  The
  interventions are then read out on the held-out groups only, so a
  direction is never tested on the very clips it was averaged from.

Why pairs are formed by cycling rather than as every combination: each
positive clip is used once, so the learning cost is one encoder pass per
clip and the direction is not dominated by the group with most voices.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Sequence

from asraudit.data.corpus import Clip
from asraudit.data.group_values import MISSING_GROUP, MixedSpellings, group_label


def clip_field(clip: Clip, name: str) -> str | None:
    """The value of ``name`` for ``clip`` as text: ``id``, ``speaker``, or a manifest field."""
    if name == "id":
        return clip.id
    if name == "speaker" and clip.speaker is not None:
        return str(clip.speaker)
    value = clip.metadata.get(name) if clip.metadata else None
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class Selection:
    """Clips whose ``field`` takes one of ``values``; an empty field selects every clip."""

    field: str = ""
    values: tuple[str, ...] = ()

    @property
    def everything(self) -> bool:
        return not self.field

    def matches(self, clip: Clip) -> bool:
        return self.everything or clip_field(clip, self.field) in self.values

    def select(self, clips: Sequence[Clip]) -> list[Clip]:
        return [c for c in clips if self.matches(c)]

    @property
    def id(self) -> str:
        return "all" if self.everything else f"{self.field}={'|'.join(self.values)}"

    def describe(self) -> str:
        return "every clip" if self.everything else f"{self.field} {' or '.join(self.values)}"

    def to_json(self) -> Any:
        return "all" if self.everything else {"field": self.field, "values": list(self.values)}


@dataclass(frozen=True)
class ClipPair:
    """One learning pair: a positive clip and a negative clip (or the positive's own condition)."""

    group: str
    positive: Clip
    negative: Clip | None  # None: the negative is a condition applied to the positive

    @property
    def label(self) -> str:
        return f"{self.positive.id} vs {self.negative.id if self.negative is not None else 'condition'}"


def pair_value(clip: Clip, pair_by: str) -> str | None:
    """The clip's ``pair_by`` value as a group (``data.group_values.group_label``): a sentence ``1.0`` (a pandas
    column with a gap) is ``1``, and a missing value (null, empty, NaN) is None, not a group "nan" that paired
    every clip without a sentence with every other one."""
    if pair_by == "id":
        return clip.id
    label = group_label(clip.field(pair_by), pair_by, clip.source, clip.row)
    return None if label == MISSING_GROUP else label


def group_of(clip: Clip, pair_by: str | None) -> str:
    """The clip's pair group: its ``pair_by`` value, else the clip itself."""
    if not pair_by:
        return clip.id
    value = pair_value(clip, pair_by)
    return value if value is not None else f"<no {pair_by}>:{clip.id}"


def clip_pairs(clips: Sequence[Clip], positive: Selection, negative: Selection | None,
               pair_by: str | None) -> list[ClipPair]:
    """Pairs in corpus order of their groups.

    With a negative selection, positives and negatives sharing a ``pair_by``
    value are paired, cycling through the negatives (a group without a
    negative contributes nothing).  Without one, every positive clip is a
    pair with its own condition (silence, noise), made at learning time.
    """
    if pair_by and pair_by != "id":  # a sentence 1 and a sentence "1": one group or two (case 316)
        mixed = MixedSpellings(pair_by)
        for clip in clips:
            value = clip.field(pair_by)
            mixed.add(group_label(value, pair_by, clip.source, clip.row), value, clip.source, clip.row, clip.id)
    positives = positive.select(clips)
    if negative is None:
        return [ClipPair(group_of(c, pair_by), c, None) for c in positives]
    if not pair_by:
        raise ValueError("pairing two selections of clips needs pair_by (a field both members share)")
    pos_ids = {c.id for c in positives}
    by_group: dict[str, tuple[list[Clip], list[Clip]]] = {}
    for clip in clips:
        value = pair_value(clip, pair_by)
        if value is None:
            continue
        if clip.id in pos_ids:
            by_group.setdefault(value, ([], []))[0].append(clip)
        elif negative.matches(clip):
            by_group.setdefault(value, ([], []))[1].append(clip)
    out = []
    for group, (pos, neg) in by_group.items():
        if not pos or not neg:
            continue
        for i, clip in enumerate(pos):
            out.append(ClipPair(group, clip, neg[i % len(neg)]))
    return out


def unpaired_positives(clips: Sequence[Clip], positive: Selection, pairs: Sequence[ClipPair]) -> list[Clip]:
    """The positive clips no pair holds (no ``pair_by`` value, or no negative with theirs), in corpus order."""
    paired = {p.positive.id for p in pairs}
    return [c for c in positive.select(clips) if c.id not in paired]


def split_groups(groups: Sequence[str], holdout: float, seed: int = 0) -> tuple[set[str], set[str]]:
    """``(learn, held_out)``: a seeded, order-independent split of the distinct groups.

    Each group's side is decided by ranking a hash of (seed, group), so the
    split does not depend on corpus order and adding a group moves no other.
    ``holdout = 0`` learns from every group and holds none out.
    """
    distinct = sorted(set(groups))
    if holdout <= 0 or len(distinct) < 2:
        return set(distinct), set()
    ranked = sorted(distinct, key=lambda g: hashlib.sha256(f"{seed}\x00{g}".encode()).hexdigest())
    n_out = min(len(distinct) - 1, max(1, round(holdout * len(distinct))))
    return set(ranked[n_out:]), set(ranked[:n_out])
