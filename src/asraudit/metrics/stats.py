"""Intervals: Wilson for proportions, clip-level bootstrap for ratios of sums.

WER, CER and accept-ref are all ratios of sums over clips (errors / reference
words, ref verdicts / eligible edits).  Words and edits inside one clip are not
independent, so the bootstrap resamples clips (or any other cluster), never
words: the interval then reflects how much the score depends on which clips
happened to be in the benchmark.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from asraudit.blas_threads import blas_on_calling_thread
from asraudit.errors import InputError
from asraudit.metrics.defaults import DEFAULT_BOOTSTRAP, DEFAULT_SEED, check_bootstrap_count

# Resamples drawn per numpy call: at most CHUNK, and at most MAX_INDICES indices in all,
# so a million-clip corpus draws two resamples at a time (16 MB of indices), not
# 64 (512 MB).  Below 32,768 units the chunk is 64, as it always was, so results of
# smaller corpora are unchanged.
_CHUNK = 64
_MAX_INDICES = 1 << 21
_REUSE_MAX = 4_000_000  # indices kept for reuse (32 MB): a few thousand units x the default resamples
_PREFETCH_MIN = 50_000_000  # indices in all; below this a second thread costs more than it saves


# Ratios over the same units whose columns are packed together (``_SharedColumns``) rather than gathered one
# ratio at a time: below this the packing costs more than it saves.
_SHARED_MIN = 4
# Distinct shared columns x units up to which their resample sums are one matrix product (``_SharedColumns``;
# 64 MB of float64), past which they are packed into int64 words and gathered.
_PRODUCT_MAX = 1 << 23


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    Chosen over the normal approximation because accept-ref is often 0 or 1
    on a few dozen edits, where the normal interval collapses to a point.
    Returns (0, 1) when n is 0: no data constrains the rate.
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got {successes}/{n}")
    if n == 0:
        return 0.0, 1.0
    z = _z(confidence)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _z(confidence: float) -> float:
    """Two-sided normal quantile; 95% uses the conventional 1.96 (as the paper's code does)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if confidence == 0.95:
        return 1.96
    # The standard library's inverse normal CDF (exact to double precision; no SciPy needed), imported here:
    # a run at 95% never loads ``statistics`` (and ``random`` with it), a couple of milliseconds of start-up.
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 + confidence / 2)


@dataclass(frozen=True, slots=True)
class Interval:
    """An estimate with its confidence interval: the one interval type of asraudit.

    ``method`` says how the interval was drawn (``wilson``: a binomial proportion,
    edits or words independent; ``bootstrap``: a percentile bootstrap over clips),
    ``level`` its coverage.  NaN marks what could not be estimated (no data); the
    summary writer turns it into null."""

    estimate: float
    low: float
    high: float
    level: float = 0.95
    method: str = "bootstrap"

    @property
    def bounds(self) -> tuple[float, float]:
        return self.low, self.high

    def to_json(self) -> dict:
        """The interval as every JSON asraudit writes spells it, ``{"low", "high", "level", "method"}``, under the
        key ``<field>_interval`` beside the estimate it bounds (so the estimate is not repeated here).  A bound that
        could not be estimated (NaN) is None, JSON's null, as every file asraudit writes has it: ``json.dumps`` of
        this is valid JSON (a NaN was written as the token ``NaN``, which JSON does not have)."""
        return {"low": json_number(self.low), "high": json_number(self.high), "level": self.level,
                "method": self.method}


def json_number(value: float | None) -> float | None:
    """``value`` as JSON can hold it: a NaN or an infinity (a rate over nothing, a bound not estimated) is None
    (null), the rule of every file asraudit writes (``report.plain.to_plain``)."""
    return value if value is None or math.isfinite(value) else None


def wilson(successes: int, n: int, confidence: float = 0.95) -> Interval:
    """The share ``successes / n`` (NaN when n is 0) with its Wilson interval."""
    low, high = wilson_interval(successes, n, confidence)
    return Interval(successes / n if n else float("nan"), low, high, confidence, "wilson")


def _resample_index_chunks(n_units: int, n_boot: int, seed: int):
    """Resample indices, ``chunk`` resamples at a time, always drawn in the same order.

    For a large bootstrap (a million clips: drawing the indices is half the
    work) the next chunk is drawn on a second thread while the caller sums
    this one; numpy releases the GIL for both, and only that thread touches
    the generator, so the indices are the very same."""
    if n_units * n_boot <= _REUSE_MAX and isinstance(seed, int):  # a None seed draws anew each time
        yield from _drawn_indices(n_units, n_boot, seed)
        return
    chunks = _index_chunks(n_units, n_boot, seed)
    if n_units * n_boot < _PREFETCH_MIN:
        yield from chunks
        return
    from concurrent.futures import ThreadPoolExecutor  # only here: a couple of milliseconds of start-up otherwise

    with ThreadPoolExecutor(1) as pool:
        ahead = pool.submit(next, chunks, None)
        while (idx := ahead.result()) is not None:
            ahead = pool.submit(next, chunks, None)
            yield idx


@lru_cache(maxsize=2)
def _drawn_indices(n_units: int, n_boot: int, seed: int) -> tuple[np.ndarray, ...]:
    """The chunks of ``_index_chunks``, drawn once and kept (read-only) for the next interval of the same shape.

    One probe asks for many intervals over the same units with the same seed
    (three WER intervals per model, forty models); the draws are identical
    every time, so drawing them once gives the very same intervals at a
    fraction of the cost.  Only small draws are kept (``_REUSE_MAX``)."""
    chunks = tuple(_index_chunks(n_units, n_boot, seed))
    for c in chunks:
        c.flags.writeable = False
    return chunks


def check_resampling_args(*, none_means: Mapping[str, str] | None = None, **values) -> None:
    """Refuse a bootstrap count or seed below 0 (``n_boot=-1``, ``seed=-1``), naming the argument.

    The public functions call this before any work: numpy refuses a negative seed only when the first
    interval is drawn, with its own ``ValueError: expected non-negative integer`` that names nothing, after
    the prediction files were read and the edits mined; a negative count silently meant no intervals.
    None is refused too, except for the names in ``none_means`` (``accept_ref_boot``: "as n_boot"): ``n_boot=None``
    was a ``TypeError`` comparing None with an int, and ``seed=None`` drew every interval from fresh entropy,
    so the same call gave other bounds each time, with no word."""
    for name, value in values.items():
        if value is None:
            if none_means is not None and name in none_means:
                continue
            raise InputError(f"{name} must be an integer of at least 0, got None" + (
                ": the resamples are drawn from this seed, so that a rerun gives the same intervals"
                if name == "seed" else ""))
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise InputError(f"{name} must be an integer of at least 0, got {value!r}")
        if value < 0:
            raise InputError(f"{name} must be at least 0, got {value}")
        if name != "seed":
            check_bootstrap_count(value, name)


def _index_chunks(n_units: int, n_boot: int, seed: int):
    """The resample indices, ``chunk`` resamples at a time.

    Drawn as int32 where the units fit: numpy draws a bound below 2**32 with the
    same 32-bit Lemire sampler for either width (``rng.integers`` with int64 gives
    the very same numbers, and leaves the generator in the same state; a test
    checks that), and the narrower array is a third faster to draw and to gather
    with, which matters at a million clips."""
    check_resampling_args(n_boot=n_boot, seed=seed, none_means={"seed": "fresh entropy"})  # internal: None allowed
    rng = np.random.default_rng(seed)
    chunk = max(1, min(_CHUNK, _MAX_INDICES // max(n_units, 1)))
    dtype = np.int32 if n_units <= 2**31 else np.int64
    done = 0
    while done < n_boot:
        k = min(chunk, n_boot - done)
        yield rng.integers(0, n_units, size=(k, n_units), dtype=dtype)
        done += k


def _packed_counts(num: np.ndarray, den: np.ndarray) -> np.ndarray | None:
    """``num << 32 | den`` when both are counts small enough that any resample's sums fit their bits.

    Gathering resampled entries is most of a bootstrap over a million clips;
    packing the two counts into one int64 halves it.  Sums of such integers are
    exact in float64 too (below 2**53), so the ratios are bit-for-bit those of
    the float path; anything else (fractions, negatives, big totals) takes it."""
    if not len(num) or num.min() < 0 or den.min() < 0:
        return None
    if not (np.array_equal(num, np.floor(num)) and np.array_equal(den, np.floor(den))):
        return None
    if den.max() * len(den) >= 2**32 or num.max() * len(num) >= 2**31:
        return None
    return (num.astype(np.int64) << 32) | den.astype(np.int64)


class _RatioResamples:
    """One ratio's bootstrap fed a chunk of resample indices at a time, so ratios over the same units can share
    each draw (``bootstrap_ratios``) and get exactly what ``bootstrap_ratio`` gives each alone."""

    def __init__(self, numerators, denominators, n_boot: int):
        self.num = np.asarray(numerators, dtype=np.float64)
        self.den = np.asarray(denominators, dtype=np.float64)
        if self.num.shape != self.den.shape or self.num.ndim != 1:
            raise ValueError("numerators and denominators must be 1-D and the same length")
        total = self.den.sum()
        self.estimate = float(self.num.sum() / total) if total > 0 else float("nan")
        self.drawn = len(self.num) > 0 and total != 0 and n_boot > 0
        self.packed: np.ndarray | None = None
        self._packing = self.drawn  # packed on the first ``add``: ratios summed elsewhere (add_sums) never are
        self.ratios: list[np.ndarray] = []

    def add(self, idx: np.ndarray, buffers: dict) -> None:
        """Sum one chunk of resamples.  Gathers go into a buffer the caller reuses: a fresh megabyte-sized
        array per chunk is mapped and unmapped by the allocator each time, and the page faults cost more than
        the gather; mode="clip" because numpy buffers ``out`` again under "raise" (every index is in range)."""
        if self._packing:
            self.packed, self._packing = _packed_counts(self.num, self.den), False
        dtype = np.int64 if self.packed is not None else np.float64
        buffer = buffers.get(dtype)
        if buffer is None or buffer.shape != idx.shape:
            buffer = buffers[dtype] = np.empty(idx.shape, dtype)
        if self.packed is not None:  # one gather instead of two; the sums are the same integers
            both = np.take(self.packed, idx, out=buffer, mode="clip").sum(axis=1)  # releases the GIL
            n, d = (both >> 32).astype(np.float64), (both & 0xFFFFFFFF).astype(np.float64)
        else:
            d = np.take(self.den, idx, out=buffer, mode="clip").sum(axis=1)
            n = np.take(self.num, idx, out=buffer, mode="clip").sum(axis=1)
        ok = d > 0
        self.ratios.append(n[ok] / d[ok])

    def add_sums(self, n: np.ndarray, d: np.ndarray) -> None:
        """One chunk of resampled sums computed elsewhere (``_SharedColumns``): the same ratios ``add`` takes."""
        ok = d > 0
        self.ratios.append(n[ok] / d[ok])

    def interval(self, confidence: float) -> Interval:
        values = np.concatenate(self.ratios) if self.ratios else np.empty(0)
        if values.size == 0:
            return Interval(self.estimate, float("nan"), float("nan"), confidence)
        alpha = (1 - confidence) / 2
        low, high = _linear_quantiles(values, (alpha, 1 - alpha))
        return Interval(self.estimate, low, high, confidence)


def _linear_quantiles(values: np.ndarray, quantiles: tuple[float, ...]) -> tuple[float, ...]:
    """``np.quantile(values, quantiles)`` (its default, linear method) of a 1-D array, as floats.

    numpy's steps, on Python floats (the same IEEE operations, one at a time): the virtual index (n - 1) * q,
    its floor and the next index (both the last one from n - 1 on, both the first below 0), the weight
    v - floor, and the interpolation a + (b - a) * g, or b - (b - a) * (1 - g) from g = 0.5 on, between the
    order statistics (read from the sorted values: numpy's partition puts the same values there).  A miner
    takes 120 intervals a run, and np.quantile's first call also loads numpy.ma (about 8 ms of CPU);
    values with a NaN take np.quantile itself."""
    ordered = np.sort(values)
    n = ordered.size
    if n == 0 or ordered[-1] != ordered[-1]:  # empty, or a NaN (sorted last): numpy's own rules
        return tuple(float(x) for x in np.quantile(values, list(quantiles)))
    out = []
    for q in quantiles:
        virtual = (n - 1) * q
        if virtual >= n - 1:
            lo = hi = -1
        elif virtual < 0:
            lo = hi = 0
        else:
            lo = math.floor(virtual)
            hi = lo + 1
        a, b = float(ordered[lo]), float(ordered[hi])
        gamma = virtual - lo
        diff = b - a
        out.append(b - diff * (1 - gamma) if gamma >= 0.5 else a + diff * gamma)
    return tuple(out)


def bootstrap_ratio(
    numerators,
    denominators,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> Interval:
    """Percentile bootstrap interval of sum(numerators) / sum(denominators).

    One entry per resampling unit (a clip, or a cluster of edits).  Resamples
    whose denominator is zero are dropped, so the interval is over the
    resamples where the ratio is defined.
    """
    return bootstrap_ratios([(numerators, denominators)], n_boot, seed, confidence)[0]


def bootstrap_ratios(pairs, n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED,
                     confidence: float = 0.95) -> list[Interval]:
    """``bootstrap_ratio`` of each (numerators, denominators) pair, the very same intervals, with the
    resamples drawn once for all pairs of the same length (a probe's many models over one corpus: drawing
    the indices is most of the work, and the same seed draws the same indices for each anyway)."""
    # One float64 array per input object: a probe passes the same words column with many numerators (a
    # model's three WER ratios share its reference word counts), converted once instead of once per pair.
    # The arrays are only read, so sharing one gives every ratio the values its own conversion would.
    converted: dict[int, tuple[object, np.ndarray]] = {}

    def as_floats(values) -> np.ndarray:
        got = converted.get(id(values))
        if got is None:
            got = converted[id(values)] = (values, np.asarray(values, dtype=np.float64))  # kept alive: ids stay
        return got[1]

    states = [_RatioResamples(as_floats(num), as_floats(den), n_boot) for num, den in pairs]
    by_length: dict[int, list[_RatioResamples]] = {}
    for state in states:
        if state.drawn:
            by_length.setdefault(len(state.num), []).append(state)
    for n_units, group in by_length.items():
        shared = _SharedColumns([a for st in group for a in (st.num, st.den)], n_units) \
            if len(group) >= _SHARED_MIN else None
        joined = [j for j in range(len(group)) if shared and shared.has(2 * j) and shared.has(2 * j + 1)]
        alone = [st for j, st in enumerate(group) if j not in set(joined)]
        buffers: dict = {}
        for idx in _resample_index_chunks(n_units, n_boot, seed):
            if joined:
                sums = shared.sums(idx, buffers)
                for j in joined:
                    group[j].add_sums(sums[2 * j], sums[2 * j + 1])
            for st in alone:
                st.add(idx, buffers)
    return [state.interval(confidence) for state in states]


class _SharedColumns:
    """Many columns of small whole numbers over the same units, summed over every resample at once.

    A miner scores forty models with three ratios each over the same clips:
    gathering each ratio's resamples separately is most of its bootstrap.
    Equal columns (every model's reference word counts) are kept once.  Where
    the distinct columns are few enough (``_PRODUCT_MAX`` entries) and BLAS
    runs on the calling thread (``blas_threads``: the miner's command loads
    numpy so; a thread pool would cost more than the product saves), each chunk
    of resamples is turned into counts (how often each unit was drawn in each
    resample) and multiplied by the columns: one matrix product gives every
    column's sum in every resample.  The counts and the values are whole
    numbers and every partial sum stays below 2**53 (each column's largest
    magnitude times the units, checked here), so the float product is exact
    in any order of additions: the same integers the float path adds up.
    Past that size the columns are packed side by side into few int64 words
    instead, each getting the bits its largest possible resample sum needs
    (negative columns shifted up by their minimum, which every resample of
    ``n_units`` draws adds exactly ``n_units`` times), so one gather sums
    three or four columns.  Either way the intervals are bit-for-bit those of
    the float path."""

    def __init__(self, columns: list[np.ndarray], n_units: int):
        self.n_units = n_units
        self.slot: dict[int, int] = {}  # column -> its distinct column
        seen: dict[bytes, int] = {}  # a column's values -> its distinct column
        distinct: list[tuple[np.ndarray, int]] = []  # (values, offset)
        for c, col in enumerate(columns):
            if not len(col) or not np.array_equal(col, np.floor(col)):  # fractions, NaN, infinities
                continue
            key = col.tobytes()
            if key in seen:
                self.slot[c] = seen[key]
                continue
            offset = min(0, int(col.min()))
            if max(-offset, int(col.max())) * n_units >= 2**53:
                continue  # the float path's sums are not exact there: it rounds, and that is its answer
            self.slot[c] = seen[key] = len(distinct)
            distinct.append((col, offset))
        self.matrix: np.ndarray | None = None
        self.words: list[np.ndarray] = []
        self.fields: list[tuple[int, int, int, int]] = []  # per distinct column: (word, shift, bits, offset)
        if not distinct:
            return
        if n_units * len(distinct) <= _PRODUCT_MAX and blas_on_calling_thread():
            # In float32 where every column's largest magnitude times the units is below 2**24: its counts,
            # products and partial sums are whole numbers below 2**24 too, exact in float32 in any order (half
            # the product's work); the float64 bound above otherwise.
            small = all(max(-offset, int(col.max())) * n_units < 2**24 for col, offset in distinct)
            dtype = np.float32 if small else np.float64
            self.matrix = np.column_stack([col.astype(dtype) for col, _ in distinct])
            self.exact = [col.astype(np.int64) for col, _ in distinct]
            self.low = np.array([int(col.min()) * n_units for col, _ in distinct], np.float64)
            self.high = np.array([int(col.max()) * n_units for col, _ in distinct], np.float64)
            return
        words: list[list[tuple[np.ndarray, int, int]]] = [[]]  # per word: (values, shift, offset)
        used = 0
        for col, offset in distinct:
            bits = max(1, ((int(col.max()) - offset) * n_units).bit_length())
            if used + bits > 63:
                words.append([])
                used = 0
            words[-1].append((col, used, offset))
            self.fields.append((len(words) - 1, used, bits, offset))
            used += bits
        self.words = [_pack(w) for w in words if w]

    def has(self, column: int) -> bool:
        return column in self.slot

    def sums(self, idx: np.ndarray, buffers: dict) -> dict[int, np.ndarray]:
        """Each shared column's sum over every resample in ``idx`` (float64, exact)."""
        if self.matrix is not None:
            k, n = idx.shape
            # counts[r, u]: how often resample r drew unit u (each row's indices offset into its own stretch)
            flat = (idx + np.arange(0, k * n, n, dtype=np.intp)[:, None]).ravel()
            counts = np.bincount(flat, minlength=k * n).reshape(k, n).astype(self.matrix.dtype)
            totals = _product(counts, self.matrix).astype(np.float64, copy=False)  # whole numbers: exact either way
            if not _whole_and_in_range(totals, self.low, self.high):
                # A BLAS that got the product wrong.  Seen: numpy's float32 product of small matrices under an
                # emulated arm64 CPU with SVE (qemu 7.2's "max"; docs/development.md, "On arm64") returned 5.7e-38
                # for 2271.  The exact integer gather instead: the same sums the float path adds up.
                totals = np.column_stack([col[idx].sum(axis=1) for col in self.exact]).astype(np.float64)
            return {c: totals[:, j] for c, j in self.slot.items()}
        buffer = buffers.get(np.int64)
        if buffer is None or buffer.shape != idx.shape:
            buffer = buffers[np.int64] = np.empty(idx.shape, np.int64)
        idx = idx.astype(np.intp, copy=False)  # take converts narrower indices on every call: once here, not per word
        totals = [np.take(w, idx, out=buffer, mode="clip").sum(axis=1) for w in self.words]
        out = {}
        for c, j in self.slot.items():
            word, shift, bits, offset = self.fields[j]
            field = (totals[word] >> shift) & ((1 << bits) - 1)
            out[c] = (field + offset * self.n_units).astype(np.float64)
        return out


def _product(counts: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """The resample counts times the shared columns (one place, so a test can stand in for a wrong BLAS)."""
    return counts @ matrix


def _whole_and_in_range(totals: np.ndarray, low: np.ndarray, high: np.ndarray) -> bool:
    """Whether every resample sum is a whole number between its column's smallest and largest possible sum: what
    an exact product gives.  A check of plausibility, not a proof: a kernel that returned other whole numbers in
    range would pass it; the garbage of a broken one does not."""
    return bool(np.all(totals == np.floor(totals)) and np.all(totals >= low) and np.all(totals <= high))


def _pack(fields: list[tuple[np.ndarray, int, int]]) -> np.ndarray:
    word = np.zeros(len(fields[0][0]), np.int64)
    for values, shift, offset in fields:
        word |= (values.astype(np.int64) - offset) << shift
    return word


def paired_bootstrap(
    numerators_a,
    numerators_b,
    denominators,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
) -> float:
    """Probability that model A has the lower error rate than B on resampled clips.

    Both models are resampled with the same clip indices (paired), which is
    what makes small differences between two models on one benchmark
    testable.  Ties count one half.
    """
    a = np.asarray(numerators_a, dtype=np.float64)
    b = np.asarray(numerators_b, dtype=np.float64)
    den = np.asarray(denominators, dtype=np.float64)
    if not (a.shape == b.shape == den.shape) or a.ndim != 1:
        raise ValueError("paired bootstrap needs three 1-D arrays of the same length")
    if len(a) == 0:
        return float("nan")
    wins = 0.0
    total = 0
    buffer = None
    for idx in _resample_index_chunks(len(a), n_boot, seed):
        if buffer is None or buffer.shape != idx.shape:
            buffer = np.empty(idx.shape, np.float64)  # reused, as in bootstrap_ratio
        d = np.take(den, idx, out=buffer, mode="clip").sum(axis=1)
        ok = d > 0
        ra = np.take(a, idx, out=buffer, mode="clip").sum(axis=1)[ok] / d[ok]
        rb = np.take(b, idx, out=buffer, mode="clip").sum(axis=1)[ok] / d[ok]
        wins += float(np.sum(ra < rb)) + 0.5 * float(np.sum(ra == rb))
        total += int(ok.sum())
    return wins / total if total else float("nan")


def bootstrap_ratio_difference(
    numerators_a,
    denominators_a,
    numerators_b,
    denominators_b,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> Interval:
    """sum(num_a)/sum(den_a) - sum(num_b)/sum(den_b), with a paired percentile bootstrap.

    For two error rates over the same clips measured two ways (one model's
    WER against corrected references and against the truth): each resample
    draws the same clip indices for both, so clip difficulty cancels and the
    interval bounds the difference of the ways, not the spread of the clips.
    """
    arrays = [np.asarray(x, dtype=np.float64) for x in (numerators_a, denominators_a, numerators_b, denominators_b)]
    if len({a.shape for a in arrays}) != 1 or arrays[0].ndim != 1:
        raise ValueError("the four arrays must be 1-D and the same length")
    na, da, nb, db = arrays
    if da.sum() <= 0 or db.sum() <= 0:
        return Interval(float("nan"), float("nan"), float("nan"), confidence)
    estimate = float(na.sum() / da.sum() - nb.sum() / db.sum())
    if n_boot <= 0:
        return Interval(estimate, float("nan"), float("nan"), confidence)
    diffs = []
    for idx in _resample_index_chunks(len(na), n_boot, seed):
        sa, sb = da[idx].sum(axis=1), db[idx].sum(axis=1)
        ok = (sa > 0) & (sb > 0)
        diffs.append(na[idx].sum(axis=1)[ok] / sa[ok] - nb[idx].sum(axis=1)[ok] / sb[ok])
    values = np.concatenate(diffs) if diffs else np.array([])
    if values.size == 0:
        return Interval(estimate, float("nan"), float("nan"), confidence)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(values, [alpha, 1 - alpha])
    return Interval(estimate, float(low), float(high), confidence)
