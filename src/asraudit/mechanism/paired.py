"""Paired change in accept-ref between an intervention and its baseline.

Two accept-ref rates with overlapping Wilson intervals can still differ
reliably when they are measured on the *same* edits: an intervention that
flips 12 of 40 edits from the audio's words to the reference's and none back
is a clear effect even if 55% vs 85% on 40 edits looks noisy side by side.
So every variant's verdicts are compared edit by edit with the baseline's,
over the edits both can be judged on (verdict ``ref`` or ``audio`` in both):

* ``to_ref`` / ``to_audio``: edits that flipped towards the reference / the audio;
* ``delta``: the change in accept-ref on those edits, ``(to_ref - to_audio) / n``;
* its interval: a percentile bootstrap over clips (edits of one clip share a
  transcript, so the clip is the unit that is resampled).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from asraudit.probes.refdis import Edit

JUDGED = ("ref", "audio")


@dataclass(frozen=True)
class PairedDelta:
    label: str
    n: int          # edits judged (ref or audio) under both the variant and the baseline
    to_ref: int     # audio under the baseline, ref under the variant
    to_audio: int   # ref under the baseline, audio under the variant
    low: float
    high: float

    @property
    def delta(self) -> float:
        return (self.to_ref - self.to_audio) / self.n if self.n else float("nan")


def paired_deltas(edits: Sequence[Edit], baseline: str, labels: Sequence[str], *, n_boot: int = 1000,
                  seed: int = 0) -> dict[str, PairedDelta]:
    """Each label's paired change in accept-ref against ``baseline`` over ``edits``."""
    out = {}
    for label in labels:
        per_clip: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # clip -> [net flips, judged]
        to_ref = to_audio = 0
        for e in edits:
            a, b = e.verdicts.get(baseline), e.verdicts.get(label)
            if a not in JUDGED or b not in JUDGED:
                continue
            cell = per_clip[e.clip_id]
            cell[1] += 1
            if a == "audio" and b == "ref":
                to_ref += 1
                cell[0] += 1
            elif a == "ref" and b == "audio":
                to_audio += 1
                cell[0] -= 1
        n = sum(d for _, d in per_clip.values())
        low = high = float("nan")
        if n and n_boot > 0:
            net = np.array([k for k, _ in per_clip.values()], dtype=np.float64)
            den = np.array([d for _, d in per_clip.values()], dtype=np.float64)
            rng = np.random.default_rng(seed)
            idx = rng.integers(0, len(net), size=(n_boot, len(net)))
            totals = den[idx].sum(axis=1)
            ok = totals > 0
            ratios = net[idx].sum(axis=1)[ok] / totals[ok]
            if ratios.size:
                low, high = (float(x) for x in np.quantile(ratios, [0.025, 0.975]))
        out[label] = PairedDelta(label, n, to_ref, to_audio, low, high)
    return out
