"""The model clock and the audit's per-stage timing: model time vs the audit's own overhead.

No assertion here depends on how fast this machine is: the clocks are
replaced by counters that advance one second per reading, and the audit's
timing is checked for its arithmetic (overhead = wall - model, the total is
the sum of the stages), never for a duration.
"""

from __future__ import annotations

import itertools

import pytest

from asraudit import model_clock
from asraudit.audit.timing import audit_timing, stage_timing

# A difference of two running totals of up to ~10^4 s: doubles there are exact to ~2e-12 s; 1e-9 s is far
# above that and far below the one-second steps the tests count.
_TOLERANCE = 1e-9


@pytest.fixture
def ticking(monkeypatch):
    """The model clock's wall and CPU clocks advance by exactly 1.0 per reading.

    Its own clock names are replaced, not ``time.perf_counter``, which every other thread of the test
    process reads too.  The totals are process-wide and hold the real model time of the tests that ran
    before in the same worker (25.78 s, say), so a difference of two readings is 1.0 only to within a
    rounding of that total: compared within ``_TOLERANCE``, not ``==`` (which failed in a
    full run, where the totals were not zero, and passed alone, where they were)."""
    wall, cpu = itertools.count(), itertools.count()
    # totals as a worker that ran models before has them (the values of that failed run), whatever ran here
    monkeypatch.setattr(model_clock, "_wall", 25.781727929006593)
    monkeypatch.setattr(model_clock, "_cpu", 15.010945696999967)
    monkeypatch.setattr(model_clock, "_wall_clock", lambda: float(next(wall)))
    monkeypatch.setattr(model_clock, "_cpu_clock", lambda: float(next(cpu)))


def test_a_model_call_inside_another_counts_once(ticking):
    before = model_clock.model_seconds()
    with model_clock.model_call():
        with model_clock.model_call():  # a factory loading a model inside a transcribe call
            pass
    after = model_clock.model_seconds()
    # one outer reading pair: start at t, stop at t+1; the inner call reads no clock at all
    assert after.wall - before.wall == pytest.approx(1.0, abs=_TOLERANCE)
    assert after.cpu - before.cpu == pytest.approx(1.0, abs=_TOLERANCE)


def test_a_model_call_that_raises_still_counts_and_leaves_the_nesting_clean(ticking):
    before = model_clock.model_seconds()
    with pytest.raises(RuntimeError):
        with model_clock.model_call():
            raise RuntimeError("model failed")
    with model_clock.model_call():
        pass
    # both calls counted as outermost
    assert model_clock.model_seconds().wall - before.wall == pytest.approx(2.0, abs=_TOLERANCE)


def test_overhead_is_wall_minus_model_and_the_total_is_the_sum_of_the_stages():
    a = stage_timing(wall=10.0, model=9.5, cpu=12.0, model_cpu=11.0)
    assert (a.overhead_s, a.overhead_share) == (0.5, 0.05)
    b = stage_timing(wall=2.0, model=0.0, cpu=1.0, model_cpu=0.0)
    total = audit_timing({"transcribe": a, "report": b}).total
    assert (total.wall_s, total.model_s, total.overhead_s) == (12.0, 9.5, 2.5)
    assert total.overhead_share == round(2.5 / 12.0, 3)  # the share of the sum, not the mean of the shares
    assert stage_timing(0.0, 0.0, 0.0, 0.0).overhead_share is None
    # clocks read at different instants can put a hair more model time than wall time: never a negative overhead
    assert stage_timing(1.0, 1.0004, 1.0, 1.0).overhead_s == 0.0
