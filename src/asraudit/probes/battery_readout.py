"""The battery's readout: value per condition, change from the original, difference in differences.

Every probe's measurement of one item (an edit, a masked target) is a
(cluster, numerator, denominator) triple: a rate is Σ num / Σ den (accept-ref:
1 of 1 when the model wrote the reference, 0 of 1 when it followed the audio,
0 of 0 for a third reading), a mean has denominators of 1 (λ).  Items are
clustered by clip, and every interval comes from resampling clips: edits and
targets of one clip share its speaker and sentence.  All conditions are
resampled with the same clip indices, so changes and contrasts are paired.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED, Interval, wilson_interval
from asraudit.probes.battery import READOUTS, READOUT_PROBE, BatterySpec
from asraudit.plain_json import to_plain

# One measurement of one item: (cluster = clip id, numerator, denominator).
Cell = dict[str, tuple[str, float, float]]


@dataclass(frozen=True)
class Value:
    """One readout's estimate and its interval over ``n`` items (Wilson for a rate, paired bootstrap otherwise)."""

    estimate: float
    low: float
    high: float
    n: int
    method: str = "bootstrap"

    @property
    def interval(self) -> Interval:
        return Interval(self.estimate, self.low, self.high, 0.95, self.method)


def cell_value(cell: Cell, kind: str, n_boot: int, seed: int) -> Value:
    num = sum(v[1] for v in cell.values())
    den = sum(v[2] for v in cell.values())
    n = int(sum(1 for v in cell.values() if v[2] > 0))
    if kind == "rate":
        k = int(round(num))
        low, high = wilson_interval(k, int(den))
        return Value(num / den if den else float("nan"), low, high, n, "wilson")
    samples = paired_samples([cell], n_boot, seed)[:, 0]
    low, high = _percentiles(samples)
    return Value(num / den if den else float("nan"), low, high, n)


def paired_samples(cells: Sequence[Cell], n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED) -> np.ndarray:
    """Bootstrap ratios ``[n_boot, len(cells)]`` from one shared resampling of clips.

    Every condition is resampled with the same clip indices, so a change
    between conditions is measured on the same clips: the paired design that
    makes Δ and the difference in differences tighter than comparing two
    separate intervals.  NaN where a resample has no item of a condition."""
    clusters = sorted({v[0] for cell in cells for v in cell.values()})
    if not clusters or n_boot <= 0:
        return np.full((max(n_boot, 0), len(cells)), np.nan)
    index = {c: k for k, c in enumerate(clusters)}
    num = np.zeros((len(cells), len(clusters)))
    den = np.zeros((len(cells), len(clusters)))
    for c, cell in enumerate(cells):
        for cluster, a, b in cell.values():
            num[c, index[cluster]] += a
            den[c, index[cluster]] += b
    rng = np.random.default_rng(seed)
    out = np.empty((n_boot, len(cells)))
    for start in range(0, n_boot, 256):
        idx = rng.integers(0, len(clusters), size=(min(256, n_boot - start), len(clusters)))
        n_sum = num[:, idx].sum(axis=2).T
        d_sum = den[:, idx].sum(axis=2).T
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:start + len(idx)] = np.where(d_sum > 0, n_sum / np.where(d_sum > 0, d_sum, 1), np.nan)
    return out


def _percentiles(samples: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    ok = samples[np.isfinite(samples)]
    if ok.size == 0:
        return float("nan"), float("nan")
    alpha = (1 - confidence) / 2
    low, high = np.quantile(ok, [alpha, 1 - alpha])
    return float(low), float(high)


def _point(cell: Cell) -> float:
    den = sum(v[2] for v in cell.values())
    return sum(v[1] for v in cell.values()) / den if den else float("nan")


@dataclass(frozen=True)
class Row:
    """One model, one readout, one condition."""

    model: str
    readout: str
    condition: str
    value: Value
    delta: Value | None  # change from the baseline condition


@dataclass(frozen=True)
class ContrastRow:
    model: str
    readout: str
    contrast: str
    did: Value


@dataclass
class BatteryResult:
    spec: BatterySpec
    rows: list[Row]
    contrasts: list[ContrastRow]
    notes: list[str] = field(default_factory=list)
    edits: int = 0      # mined edits probed under every condition
    targets: int = 0    # masked targets probed under every condition

    def to_json(self) -> dict:
        def v(x: Value | None):
            return None if x is None else {"estimate": x.estimate, "estimate_interval": x.interval.to_json(), "n": x.n}

        return to_plain({"battery": self.spec.name, "source": self.spec.source,
                "rows": [{"model": r.model, "readout": r.readout, "condition": r.condition, "value": v(r.value),
                          "delta_from_original": v(r.delta)} for r in self.rows],
                "contrasts": [{"model": c.model, "readout": c.readout, "contrast": c.contrast, "did": v(c.did)}
                              for c in self.contrasts],
                "notes": list(self.notes)})


def readout(spec: BatterySpec, cells: Mapping[tuple[str, str, str], Cell], models: Sequence[str],
            n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED, baseline: str = "original") -> BatteryResult:
    """Values, changes from ``baseline`` and contrasts from cells keyed (model, readout, condition)."""
    names = [c.name for c in spec.conditions]
    rows, contrasts = [], []
    for model in models:
        for name in READOUTS:
            if READOUT_PROBE[name] not in spec.probes:
                continue
            kind = READOUTS[name]
            per_condition = [cells.get((model, name, c), {}) for c in names]
            if not any(per_condition):
                continue
            samples = paired_samples(per_condition, n_boot, seed)
            base = names.index(baseline) if baseline in names else None
            for c, cond in enumerate(names):
                cell = per_condition[c]
                value = cell_value(cell, kind, n_boot, seed) if cell else Value(float("nan"), float("nan"),
                                                                                 float("nan"), 0)
                delta = None
                if base is not None and c != base and cell and per_condition[base]:
                    delta = _paired_change(per_condition, samples, c, base, n_boot, seed)
                rows.append(Row(model, name, cond, value, delta))
            for contrast in spec.contrasts:
                t, k, b = names.index(contrast.treatment), names.index(contrast.control), names.index(contrast.baseline)
                if not (per_condition[t] and per_condition[k] and per_condition[b]):
                    continue
                did = _paired_contrast(per_condition, samples, t, k, b, n_boot, seed)
                if did is not None:
                    contrasts.append(ContrastRow(model, name, contrast.name, did))
    return BatteryResult(spec, rows, contrasts)


def _shared(per_condition: Sequence[Cell], samples: np.ndarray, chosen: Sequence[int], n_boot: int,
            seed: int) -> tuple[list[Cell], np.ndarray]:
    """The ``chosen`` conditions' cells cut to the items every one of them holds, with their bootstrap columns.

    A change or a contrast is paired: each item is compared with itself under the other condition.  A condition
    can hold fewer items than another (a truncation keeps only the masked targets inside its window; a result
    missing from the store), and each side's mean over its own items compared different items: item A at 1.0
    under both conditions and item B at 3.0 under the original alone read as a change of -1.0 over n = 1 item,
    where the paired change is 0.  Where every chosen cell holds the same items, the columns already drawn for
    every condition are kept (the same numbers as before)."""
    cells = [per_condition[i] for i in chosen]
    keys = set(cells[0]).intersection(*cells[1:])
    if all(len(cell) == len(keys) for cell in cells):
        return cells, samples[:, list(chosen)]
    cut = [{key: cell[key] for key in cell if key in keys} for cell in cells]
    return cut, paired_samples(cut, n_boot, seed)


def _paired_change(per_condition: Sequence[Cell], samples: np.ndarray, c: int, base: int, n_boot: int,
                   seed: int) -> Value | None:
    """Condition ``c``'s change from ``base`` over the items both hold (``_shared``); None when they share none."""
    (cell, base_cell), cols = _shared(per_condition, samples, (c, base), n_boot, seed)
    if not cell:
        return None
    low, high = _percentiles(cols[:, 0] - cols[:, 1])
    return Value(_point(cell) - _point(base_cell), low, high, len(cell))


def _paired_contrast(per_condition: Sequence[Cell], samples: np.ndarray, t: int, k: int, b: int, n_boot: int,
                     seed: int) -> Value | None:
    """Δ(treatment) − Δ(control), both from baseline, over the items all three conditions hold; None when none."""
    (treated, control, base), cols = _shared(per_condition, samples, (t, k, b), n_boot, seed)
    if not treated:
        return None
    low, high = _percentiles((cols[:, 0] - cols[:, 2]) - (cols[:, 1] - cols[:, 2]))
    point = (_point(treated) - _point(base)) - (_point(control) - _point(base))
    return Value(point, low, high, len(treated))
