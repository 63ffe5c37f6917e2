"""The seconds this process spends inside model calls, so the audit can say what its own overhead costs.

An audit's time goes either to models (loading them, transcribing,
scoring, forced alignment, learning a steering direction) or to the audit
itself (the store, planning the grid, decoding and conditioning audio,
normalizing text, readouts and statistics, writing the report).  Every place
that calls a model wraps the call in ``model_call()``; the audit reads
``model_seconds()`` before and after each stage, and the difference from the
stage's own wall time is its overhead (``audit.timing``).

One counter per process, like a profiler's: calls nested inside another
(a factory that loads a model inside a transcribe call) count once, at the
outermost.  Wall time is ``time.perf_counter``; CPU time is
``time.process_time``, which counts every thread of this process (a
backend's own worker threads included) but no other process: where models
run in Ray actors, the driver's wait for them counts as model wall time and
their CPU is not seen here.  The package root holds it because every layer
that calls a model (audio's aligner loop, models, run, mechanism) must reach
it and it imports nothing.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator


@dataclass(frozen=True)
class ClockReading:
    """Seconds spent inside model calls since the process started: wall and this process's CPU."""

    wall: float
    cpu: float


# The clocks, as this module's own names: a test replaces them here without touching the time module that
# every other thread of the process reads (replacing time.perf_counter itself let any thread advance it).
_wall_clock = time.perf_counter
_cpu_clock = time.process_time
_lock = threading.Lock()
_depth = threading.local()
_wall = 0.0
_cpu = 0.0


@contextmanager
def model_call() -> Iterator[None]:
    """Count the time of the enclosed block as model time (once, however deeply nested)."""
    depth = getattr(_depth, "n", 0)
    _depth.n = depth + 1
    if depth:
        try:
            yield
        finally:
            _depth.n = depth
        return
    wall0, cpu0 = _wall_clock(), _cpu_clock()
    try:
        yield
    finally:
        wall, cpu = _wall_clock() - wall0, _cpu_clock() - cpu0
        _depth.n = depth
        global _wall, _cpu
        with _lock:
            _wall += wall
            _cpu += cpu


def model_seconds() -> ClockReading:
    """The running totals; subtract two readings for the model time between them."""
    with _lock:
        return ClockReading(_wall, _cpu)
