"""The WER cost's counts of a clip's distinct hypotheses in one ``cdist`` call, and its columns transposed
from per-clip rows, checked against the plain path (``word_errors`` called per hypothesis): the same
distances, columns and intervals, exactly."""

from __future__ import annotations

import random

import pytest

from asraudit.metrics.wer import clip_counts, word_errors
from asraudit.probes import inflation
from asraudit.probes.refdis import ClipInput, MinerParams, mine
from asraudit.probes.refdis_probe import measure_refdis


def _words(rng: random.Random, lo: int, hi: int) -> tuple[str, ...]:
    return tuple(rng.choice(["a", "b", "c", "the", "cat", "sat", ""]) or "x" for _ in range(rng.randint(lo, hi)))


def _clips(seed: int, n: int = 60, models: int = 7, holes: bool = True) -> list[ClipInput]:
    rng = random.Random(seed)
    names = [f"m{k}" for k in range(models)]
    clips = []
    for i in range(n):
        ref = _words(rng, 0 if i % 17 == 0 else 1, 9)  # an empty reference now and then
        hyps = {}
        for m in names:
            if holes and rng.random() < 0.1:
                continue  # a model that did not run the clip
            r = rng.random()
            hyps[m] = ref if r < 0.3 else (() if r < 0.35 else _words(rng, 0, 10))
        clips.append(ClipInput(f"c{i}", ref, hyps))
    return clips


def test_one_call_gives_word_errors_of_each_distinct_hypothesis():
    rng = random.Random(3)
    calls = []

    def counted(r, h):
        calls.append(h)
        return word_errors(r, h)

    plain_row = inflation._counter_of_clip(counted)
    for _ in range(300):
        ref = _words(rng, 1, 8)
        fixed = ref if rng.random() < 0.5 else _words(rng, 0, 8)
        row = [_words(rng, 0, 9) if rng.random() < 0.6 else (ref if rng.random() < 0.7 else None)
               for _ in range(rng.randint(0, 6))]
        got = inflation._errors_of_clip(ref, fixed, fixed == ref, row)
        want = ([None if h is None else word_errors(ref, h) for h in row],
                [None if h is None else word_errors(fixed, h) for h in row])
        assert got == want
        calls.clear()
        assert plain_row(ref, fixed, fixed == ref, row) == want
        distinct = list(dict.fromkeys(h for h in row if h is not None))
        assert calls == ([h for h in distinct for _ in (0, 1)] if fixed != ref else distinct)  # once each


@pytest.mark.parametrize("holes", [True, False])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_wer_cost_is_the_plain_paths(monkeypatch, seed, holes):
    clips = _clips(seed, holes=holes)
    models = [f"m{k}" for k in range(7)]
    mined = mine(clips, models[:4], MinerParams(majority=0.5, include_middle=True, min_ref_match=0.0), scored=models)
    fixed = {c.clip_id: c.ref[:-1] for c in clips[::3] if c.ref}  # corrected references on some clips
    for scored in (models, models[2:], models[::-1]):
        fast = inflation.wer_cost(clips, fixed, mined.edits, scored, n_boot=200, seed=seed)
        with monkeypatch.context() as mp:
            # every count by word_errors, one by one
            mp.setattr(inflation, "_errors_of_clip", inflation._counter_of_clip(word_errors))
            plain = inflation.wer_cost(clips, fixed, mined.edits, scored, n_boot=200, seed=seed)
        assert repr(fast) == repr(plain)
    assert any(c.n_echoed for c in fast.values())  # the gains' own path ran too


def test_another_scorer_keeps_its_own_counts(monkeypatch):
    calls = []

    def counts(r, h):
        calls.append((r, h))
        return clip_counts(r, h)

    clips = _clips(5, n=20)
    monkeypatch.setattr(inflation, "_errors_of_clip", lambda *a: pytest.fail("cdist used for another scorer"))
    result = measure_refdis(clips, ["m0", "m1", "m2", "m3"], MinerParams(majority=0.5), scored=["m0", "m4"],
                            n_boot=50, counts=counts)
    assert calls and set(result.cost) == {"m0", "m4"}


def test_an_edits_texts_are_text_at_of_its_key():
    """``mine_clip`` reads each edit's texts as the slice of cells 2 * start .. 2 * end, not by ``text_at``."""
    from asraudit.probes.refdis_cells import HypCells, text_at

    rng = random.Random(8)
    for _ in range(3000):
        ref = _words(rng, 0, 8)
        cells = HypCells(ref, _words(rng, 0, 10))
        start = rng.randint(0, len(ref))
        end = rng.randint(start, len(ref))
        key = (start, end, _words(rng, 0, 2))
        assert " ".join(cells.text(2 * start, 2 * end + 1)) == text_at(cells, key)
    clips = _clips(4, holes=False)
    mined = mine(clips, ["m0", "m1", "m2", "m3"], MinerParams(majority=0.5, include_middle=True, min_ref_match=0.0))
    by_id = {c.clip_id: c for c in clips}
    assert mined.edits
    for e in mined.edits:
        clip = by_id[e.clip_id]
        assert e.texts == {m: text_at(HypCells(clip.ref, h), e.key) for m, h in clip.hyps.items()}


@pytest.mark.parametrize("n_units", [40, 1800])
def test_a_shared_words_column_gives_the_intervals_of_copies(n_units):
    """``bootstrap_ratios`` converts an input object once; the intervals are those of separate copies, and
    those of each ratio alone."""
    from asraudit.metrics.stats import bootstrap_ratio, bootstrap_ratios

    rng = random.Random(n_units)
    words = [rng.randint(0, 30) for _ in range(n_units)]
    nums = [[rng.randint(0, 12) for _ in range(n_units)] for _ in range(5)] + [[rng.randint(-3, 3)
                                                                               for _ in range(n_units)]]
    shared = bootstrap_ratios([(num, words) for num in nums], n_boot=300, seed=4)
    copies = bootstrap_ratios([(list(num), list(words)) for num in nums], n_boot=300, seed=4)
    alone = [bootstrap_ratio(list(num), list(words), n_boot=300, seed=4) for num in nums]
    assert repr(shared) == repr(copies) == repr(alone)
