"""The fast paths of the miners give what the plain code they replace gives, on seeded random inputs.

Each optimisation here is an exact one (no tolerance): the compiled difflib
returns difflib's own opcodes, reused bootstrap draws are the draws a fresh
generator makes, and the miner's cells read from raw opcodes are the cells
built from ``text.align`` operations.
"""

from __future__ import annotations

import difflib
import json
import random

import pytest

from asraudit.metrics import stats
from asraudit.probes.refdis_cells import HypCells
from asraudit.text.align import align


def _seqs(rng: random.Random, n: int = 3000):
    for _ in range(n):
        a = [rng.choice("abcdefg") for _ in range(rng.randint(0, 25))]
        b = [rng.choice("abcdefg") for _ in range(rng.randint(0, 25))]
        if rng.random() < 0.3:  # near-copies, as most hypotheses are of their reference
            b = [w for w in a if rng.random() > 0.1] + b[: rng.randint(0, 2)]
        yield a, b


def test_the_compiled_sequence_matcher_gives_difflibs_own_opcodes_and_blocks():
    cydifflib = pytest.importorskip("cydifflib")
    for a, b in _seqs(random.Random(0)):
        ours = cydifflib.SequenceMatcher(None, a, b, autojunk=False)
        theirs = difflib.SequenceMatcher(None, a, b, autojunk=False)
        assert [tuple(o) for o in ours.get_opcodes()] == theirs.get_opcodes()
        assert [tuple(m) for m in ours.get_matching_blocks()] == [tuple(m) for m in theirs.get_matching_blocks()]


def test_a_hypothesis_equal_to_its_reference_gets_difflibs_opcodes_without_difflib():
    from asraudit.probes.refdis_compat import _DiffView

    for a, _ in _seqs(random.Random(3), 300):
        assert [tuple(o) for o in _DiffView(tuple(a), tuple(a)).opcodes] == \
            difflib.SequenceMatcher(None, a, list(a), autojunk=False).get_opcodes()


def _cells_from_alignment(ref, hyp) -> tuple[list[int], list[bool]]:
    """The cells as the miner built them from ``text.align`` operations before reading raw opcodes."""
    n = len(ref)
    gap, tok, same = [0] * (n + 1), [0] * n, [False] * n
    for op in align(ref, hyp).ops:
        if op.kind == "insert":
            gap[op.ref_start] += op.hyp_len
        elif op.kind != "delete":
            for i in range(op.ref_start, op.ref_end):
                tok[i], same[i] = 1, op.kind == "equal"
    bounds, diff, pos = [], [], 0
    for i in range(n):
        bounds.append(pos)
        pos += gap[i]
        diff.append(gap[i] > 0)
        bounds.append(pos)
        pos += tok[i]
        diff.append(not same[i])
    bounds += [pos, pos + gap[n]]
    diff.append(gap[n] > 0)
    return bounds, diff


def test_cells_read_from_raw_opcodes_are_the_cells_of_the_alignment():
    equal = [(a, list(a)) for a, _ in _seqs(random.Random(9), 300)]  # the shortcut for a hypothesis equal to its reference
    for a, b in [*_seqs(random.Random(1)), *equal]:
        cells = HypCells(a, b)
        bounds, diff = _cells_from_alignment(a, b)
        assert (cells.bounds, cells.diff, cells.hits) == (bounds, diff, len(a) - sum(diff[1::2]))


def test_reused_bootstrap_draws_give_the_intervals_fresh_draws_give():
    rng = random.Random(2)
    errors = [rng.randint(0, 5) for _ in range(300)]
    words = [rng.randint(1, 30) for _ in range(300)]
    first = stats.bootstrap_ratio(errors, words, n_boot=500, seed=7)
    again = stats.bootstrap_ratio(errors, words, n_boot=500, seed=7)  # the kept draws
    stats._drawn_indices.cache_clear()
    fresh = stats.bootstrap_ratio(errors, words, n_boot=500, seed=7)
    assert first == again == fresh
    assert stats.bootstrap_ratio(errors, words, n_boot=500, seed=8) != first  # another seed, other draws


def test_narrow_resample_indices_are_the_indices_numpy_draws_as_int64():
    import numpy as np

    for n_units, n_boot in ((1, 10), (2, 70), (7, 130), (1000, 65), (65_537, 40), (1_100_000, 10)):
        ours = list(stats._index_chunks(n_units, n_boot, seed=11))
        rng = np.random.default_rng(11)
        reference = [rng.integers(0, n_units, size=c.shape) for c in ours]  # int64, numpy's default
        assert sum(len(c) for c in ours) == n_boot
        assert all(np.array_equal(a, b) for a, b in zip(ours, reference))
        narrow = np.random.default_rng(11)
        for c in ours:
            narrow.integers(0, n_units, size=c.shape, dtype=np.int32)
        assert narrow.bit_generator.state == rng.bit_generator.state  # the same generator state after


def test_the_refdis_json_with_one_line_per_edit_is_the_same_json():
    from asraudit.commands.refdis import _dumps

    nan = float("nan")
    for payload in ({"n": 1, "params": {"majority": 0.75}, "edits": [{"kind": "delete", "verdict": {"m": None}},
                                                                      {"text": "é \u2028 \"q\"", "cer": nan}]},
                    {"edits": [{"kind": "insert"}]}, {"n": 0, "edits": []}, {"n": 0}):
        text = _dumps(payload)
        assert json.dumps(json.loads(text), sort_keys=True) == json.dumps(payload, sort_keys=True)
        if payload.get("edits"):
            lines = [line.strip().rstrip(",") for line in text.split("\n")]  # "\n" only: U+2028 stays raw
            assert all(json.dumps(e, ensure_ascii=False) in lines for e in payload["edits"])  # one line per edit


def test_word_errors_are_the_error_count_of_the_alignment():
    from asraudit.metrics.wer import clip_counts, word_errors

    for a, b in _seqs(random.Random(4), 2000):
        assert word_errors(tuple(a), tuple(b)) == clip_counts(a, b).errors


def test_ratios_bootstrapped_together_are_the_ratios_bootstrapped_one_at_a_time():
    rng = random.Random(5)
    pairs = []
    for n in (300, 300, 120, 0, 300):
        errors = [rng.randint(0, 5) for _ in range(n)]
        words = [rng.randint(0, 30) for _ in range(n)]
        pairs.append((errors, words))
    pairs.append(([0.5] * 120, [2.0] * 120))   # fractions: not packed
    pairs.append(([1] * 50, [0] * 50))          # no words at all: no interval
    together = stats.bootstrap_ratios(pairs, n_boot=300, seed=3)
    stats._drawn_indices.cache_clear()
    alone = [stats.bootstrap_ratio(n, d, n_boot=300, seed=3) for n, d in pairs]
    assert [repr(iv) for iv in together] == [repr(iv) for iv in alone]  # repr: NaN equals NaN there
    assert together[0].low == together[0].low and together[-1].low != together[-1].low  # measured; NaN


def test_a_plain_json_row_is_what_json_loads_reads_or_left_to_it():
    from asraudit.data.rows import duplicate_key, plain_object

    lines = ['{"a": 1}', '  {"a": [1, 2.5e3, null, true]}\r\n', '{"a": 1, "a": 2}', '{"t": "x\u2028y é"}', '{"n": NaN}',
             '{"big": 123456789012345678901234567890}', '[1, 2]', '"s"', '{"a": 1} {"b": 2}', '{"a": 1',
             '\ufeff{"a": 1}', '', ' \t ', '{"a": 1}\x0c', '{"a": "\\ud800"}', '{"a":1}\n\n']
    for line in lines:
        ours = plain_object(line)
        try:
            theirs = json.loads(line)
        except json.JSONDecodeError:
            theirs = None
        if ours is None:  # left to json.loads, which rejects it or reads no object; or a key twice (case 178)
            assert not isinstance(theirs, dict) or duplicate_key(line) == "a"
        else:
            assert json.dumps(ours) == json.dumps(theirs)  # dumps: NaN equals NaN there
