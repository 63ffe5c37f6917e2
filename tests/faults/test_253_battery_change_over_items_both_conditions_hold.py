"""Case 253: the battery's change from the original, and its contrasts, over items one condition lacks.

Every readout of the battery is a mean (or rate) over items (edits, masked targets), and its change from the
original (Δ) and its difference in differences are meant to be paired: each item compared with itself under the
other condition.  A condition can hold fewer items than another: a result the store lacks for one condition (a
clip whose variant failed, a model that answered no score), a masked target a condition does not keep.  Each
side's mean was taken over its own items, and ``n`` counted the items both held: item A at λ 1.0 under both
conditions and item B at 3.0 under the original alone read as Δ = -1.0 over n = 1, where the paired change is 0,
a silently wrong number in ``battery``'s table, ``--json`` and an audit's summary.  Both are now taken over the
items every compared condition holds; where they hold the same items, nothing changes (the second test).
"""

from __future__ import annotations

import numpy as np
import pytest

from asraudit.probes.battery import BatterySpec, ConditionSpec, ContrastSpec
from asraudit.probes.battery_readout import paired_samples, readout

SPEC = BatterySpec("t", ("lift",), (ConditionSpec("original", "original", {}),
                                    ConditionSpec("bench", "splice", {}), ConditionSpec("other", "splice", {})),
                   (ContrastSpec("bench vs other", "bench", "other"),))


def _cell(values: dict[str, float]) -> dict:
    return {key: (f"clip-{key}", value, 1.0) for key, value in values.items()}


def test_change_and_contrast_pair_each_item_with_itself():
    cells = {("m", "lift(r)", "original"): _cell({"a": 1.0, "b": 3.0, "c": 0.5}),
             ("m", "lift(r)", "bench"): _cell({"a": 1.0, "c": 0.5}),       # b missing under this condition
             ("m", "lift(r)", "other"): _cell({"a": 2.0, "b": 3.0, "c": 1.5})}
    result = readout(SPEC, cells, ["m"], n_boot=200, seed=0)
    rows = {r.condition: r for r in result.rows}
    # the value of each condition is still its own items' mean
    assert rows["original"].value.estimate == pytest.approx(1.5) and rows["bench"].value.estimate == pytest.approx(0.75)
    # the change is over a and c, which both hold: unchanged (before: 0.75 - 1.5 = -0.75 over "n = 2")
    assert rows["bench"].delta.estimate == pytest.approx(0.0) and rows["bench"].delta.n == 2
    assert rows["bench"].delta.low == pytest.approx(0.0) and rows["bench"].delta.high == pytest.approx(0.0)
    assert rows["other"].delta.estimate == pytest.approx(2 / 3) and rows["other"].delta.n == 3
    # the contrast is over a and c, the items all three hold: (0 - 0) - (1.0 - 0) = -1.0
    (did,) = result.contrasts
    assert did.did.estimate == pytest.approx(-1.0) and did.did.n == 2
    assert did.did.low == pytest.approx(-1.0) and did.did.high == pytest.approx(-1.0)


def test_conditions_of_the_same_items_read_as_before():
    """Control: where every condition holds the same items, the numbers are those of the shared resampling."""
    per = [_cell({"a": 1.0, "b": 3.0}), _cell({"a": 1.5, "b": 2.0}), _cell({"a": 0.0, "b": 3.0})]
    cells = {("m", "lift(r)", c.name): cell for c, cell in zip(SPEC.conditions, per)}
    result = readout(SPEC, cells, ["m"], n_boot=300, seed=4)
    samples = paired_samples(per, 300, 4)
    diff = samples[:, 1] - samples[:, 0]
    bench = next(r for r in result.rows if r.condition == "bench")
    assert bench.delta.estimate == pytest.approx(-0.25) and bench.delta.n == 2
    assert (bench.delta.low, bench.delta.high) == pytest.approx(tuple(np.quantile(diff[np.isfinite(diff)],
                                                                                  [0.025, 0.975])))


def test_conditions_sharing_no_item_give_no_change():
    cells = {("m", "lift(r)", "original"): _cell({"a": 1.0}), ("m", "lift(r)", "bench"): _cell({"b": 2.0}),
             ("m", "lift(r)", "other"): _cell({"a": 2.0})}
    result = readout(SPEC, cells, ["m"], n_boot=100, seed=0)
    rows = {r.condition: r for r in result.rows}
    assert rows["bench"].delta is None and rows["other"].delta.estimate == pytest.approx(1.0)
    assert result.contrasts == []
