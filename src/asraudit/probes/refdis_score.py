"""accept-ref: how often a model writes the reference's error instead of the audio.

accept-ref = ref / (ref + audio) over the edits a model is eligible on.  A
third reading (``other``) is in neither count: it sides with neither the
reference nor the audio, so it says nothing about reference-following.  The
counts always travel with the rate, because models are eligible on different
edits and the denominators differ.

Two intervals: Wilson (edits treated as independent) and, on request, a
percentile bootstrap that resamples clips.  Edits in one clip share a speaker,
a transcriber and often one rewritten sentence, so they are not independent;
the clip bootstrap is the honest interval when a few clips carry many edits.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import compress
from typing import Callable, Iterable, Sequence

from asraudit.metrics.stats import DEFAULT_SEED, Interval, bootstrap_ratio, json_number, wilson_interval
from asraudit.probes.refdis import Edit


@dataclass(frozen=True)
class AcceptRef:
    """One model's accept-ref over a set of edits."""

    model: str
    n_ref: int
    n_audio: int
    n_other: int
    n_ineligible: int
    low: float
    high: float
    boot_low: float | None = None
    boot_high: float | None = None
    n_clips: int = 0  # clips with at least one ref/audio verdict (the bootstrap's units)

    @property
    def n_eligible(self) -> int:
        return self.n_ref + self.n_audio

    @property
    def rate(self) -> float:
        return self.n_ref / self.n_eligible if self.n_eligible else float("nan")

    @property
    def interval(self) -> Interval:
        """accept-ref with its Wilson interval (edits treated as independent)."""
        return Interval(self.rate, self.low, self.high, 0.95, "wilson")

    def to_json(self) -> dict:
        """The layout of summary.json's and ``refdis --json``'s accept-ref, ready for ``json.dumps``: a rate over no
        eligible edit is None (null), not NaN."""
        return {
            "rate": json_number(self.rate),
            "n_ref": self.n_ref,
            "n_eligible": self.n_eligible,
            "n_audio": self.n_audio,
            "n_other": self.n_other,
            "n_ineligible": self.n_ineligible,
            "rate_interval": self.interval.to_json(),
            "rate_bootstrap_interval": None if self.boot_low is None else
            Interval(self.rate, self.boot_low, self.boot_high, 0.95, "bootstrap").to_json(),
            "n_clips": self.n_clips,
        }


def accept_ref(
    edits: Iterable[Edit],
    models: Sequence[str],
    n_boot: int = 0,
    seed: int = DEFAULT_SEED,
) -> dict[str, AcceptRef]:
    """accept-ref of each model over ``edits``; ``n_boot > 0`` adds the clip bootstrap."""
    counts = {m: {"ref": 0, "audio": 0, "other": 0, "ineligible": 0} for m in models}
    per_clip: dict[str, dict[str, list[int]]] = {m: defaultdict(lambda: [0, 0]) for m in models}
    for e in edits:  # tens of thousands of edits x forty verdicts at leaderboard scale: a lean loop
        clip_id = e.clip_id
        for m, v in e.verdicts.items():
            c = counts.get(m)
            if c is None:
                continue
            c[v] += 1
            if v == "ref":
                cell = per_clip[m][clip_id]
                cell[0] += 1
                cell[1] += 1
            elif v == "audio":
                per_clip[m][clip_id][1] += 1
    out = {}
    for m in models:
        c = counts[m]
        n = c["ref"] + c["audio"]
        low, high = wilson_interval(c["ref"], n)
        boot_low = boot_high = None
        clips = per_clip[m]
        if n_boot > 0 and n > 0:
            iv = bootstrap_ratio([k for k, _ in clips.values()], [d for _, d in clips.values()], n_boot=n_boot, seed=seed)
            boot_low, boot_high = iv.low, iv.high
        out[m] = AcceptRef(m, c["ref"], c["audio"], c["other"], c["ineligible"], low, high, boot_low, boot_high, len(clips))
    return out


def _summary(model: str, cells: list[tuple[int, int, int, int, set[str]]]) -> AcceptRef:
    """One model's ``AcceptRef`` (no bootstrap) from per-cell counts and eligible clips (``accept_ref_tables``)."""
    n_ref = sum(c[0] for c in cells)
    n_audio = sum(c[1] for c in cells)
    clips = cells[0][4] if len(cells) == 1 else set().union(*(c[4] for c in cells))
    low, high = wilson_interval(n_ref, n_ref + n_audio)
    return AcceptRef(model, n_ref, n_audio, sum(c[2] for c in cells), sum(c[3] for c in cells), low, high,
                     None, None, len(clips))


def accept_ref_tables(
    edits: Sequence[Edit],
    models: Sequence[str],
    ways: Sequence[tuple[Callable[[Edit], str], Sequence[str]]],
) -> tuple[dict[str, AcceptRef], list[dict[str, dict[str, AcceptRef]]]]:
    """``accept_ref(edits, models)`` and ``breakdown(edits, models, by, groups)`` for each ``(by, groups)`` of
    ``ways``, reading each verdict once instead of once per table (no bootstrap: ``n_boot`` 0).

    The edits are split into cells of equal group values (e.g. kind x position: nine); per cell and model the
    four verdict counts and the clips with a ``ref`` or ``audio`` verdict are taken with C-level passes over
    the cell's verdicts, and every table's entry is the sum of its cells' counts with the union of their
    clips: the numbers ``accept_ref`` counts one verdict at a time."""
    cells: dict[tuple[str, ...], list[Edit]] = {}
    for e in edits:
        cells.setdefault(tuple([by(e) for by, _ in ways]), []).append(e)
    models = list(dict.fromkeys(models))
    per_cell: dict[tuple[str, ...], dict[str, tuple[int, int, int, int, set[str]]]] = {}
    eligible = frozenset(("ref", "audio")).__contains__
    for key, members in cells.items():
        clip_ids = [e.clip_id for e in members]
        counted = per_cell[key] = {}
        # each edit's verdict of every model (None: not judged on that edit), turned into one column per model
        # by a transposition in C
        columns = zip(*[list(map(e.verdicts.get, models)) for e in members])
        for m, col in zip(models, columns):
            counted[m] = (col.count("ref"), col.count("audio"), col.count("other"), col.count("ineligible"),
                          set(compress(clip_ids, map(eligible, col))))
    empty = (0, 0, 0, 0, set())
    overall = {m: _summary(m, [c[m] for c in per_cell.values()] or [empty]) for m in models}
    tables = []
    for w, (_, groups) in enumerate(ways):
        tables.append({g: {m: _summary(m, [c[m] for key, c in per_cell.items() if key[w] == g] or [empty])
                           for m in models} for g in groups})
    return overall, tables


def breakdown(
    edits: Sequence[Edit],
    models: Sequence[str],
    by: Callable[[Edit], str],
    groups: Sequence[str],
    n_boot: int = 0,
    seed: int = DEFAULT_SEED,
) -> dict[str, dict[str, AcceptRef]]:
    """accept-ref per group of edits (e.g. ``by=lambda e: e.kind``), every group listed."""
    return {g: accept_ref([e for e in edits if by(e) == g], models, n_boot, seed) for g in groups}
