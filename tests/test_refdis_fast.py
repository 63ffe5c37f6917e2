"""The miner's cells laid out by the compiled module (``asraudit.probes._refdis_fast``, when built) and by the
Python code it replaces, both against the cells of the alignment; the whole miner the same either way; each
edit's verdicts as read one model at a time."""

from __future__ import annotations

import random

import pytest

from asraudit.probes import refdis_cells
from asraudit.probes.refdis import MinerParams, mine
from asraudit.probes.refdis_cells import HypCells, place_of, reading

from test_refdis_shortcuts import _clips_with_repeats
from test_speed_paths import _cells_from_alignment, _seqs

PATHS = ["python"] + (["compiled"] if refdis_cells.COMPILED else [])


@pytest.fixture(params=PATHS)
def path(request, monkeypatch):
    if request.param == "python":
        monkeypatch.setattr(refdis_cells, "_fast", None)
    return request.param


def _regions_of(diff: list[bool]) -> list[tuple[int, int]]:
    out, c = [], 0
    while c < len(diff):
        if diff[c]:
            lo = c
            while c < len(diff) and diff[c]:
                c += 1
            out.append((lo, c))
        else:
            c += 1
    return out


def test_cells_are_the_cells_of_the_alignment(path):
    equal = [(a, list(a)) for a, _ in _seqs(random.Random(19), 300)]
    rng = random.Random(4)
    for a, b in [*_seqs(random.Random(11)), *equal]:
        cells = HypCells(a, b)
        bounds, diff = _cells_from_alignment(a, b)
        assert (cells.bounds, cells.diff, cells.hits) == (bounds, diff, len(a) - sum(diff[1::2]))
        assert cells.regions() == _regions_of(diff)
        lo = rng.randint(0, 2 * len(a) + 1)
        hi = rng.randint(lo, 2 * len(a) + 1)
        assert cells.text(lo, hi) == tuple(b[bounds[lo]:bounds[hi]])


@pytest.mark.skipif(not refdis_cells.COMPILED, reason="asraudit.probes._refdis_fast is not built")
def test_the_compiled_layout_refuses_what_is_not_opcodes():
    fast = refdis_cells._fast
    assert fast.layout([("equal", 0, 2, 0, 2)], 2) == (2, [0, 0, 1, 1, 2, 2])
    assert fast.layout([], 3) == (0, [0, 3])
    assert fast.layout([("delete", 0, 2, 0, 0), ("insert", 2, 2, 0, 1)], 1) == (0, [0, 0, 0, 0, 0, 1])
    for ops, n_hyp, error in (([("equal", 0, 1, 0)], 1, TypeError), ([["equal", 0, 1, 0, 1]], 1, TypeError),
                              ([(b"equal", 0, 1, 0, 1)], 1, TypeError), ([("equal", 0, 1, 0, 1.0)], 1, TypeError),
                              ([("equal", 1, 0, 0, 1)], 1, ValueError), ([("equal", 0, 2, 0, 2)], 1, ValueError),
                              (None, 1, TypeError)):
        with pytest.raises(error):
            fast.layout(ops, n_hyp)
    with pytest.raises(ValueError):
        fast.diff([("equal", 0, 3, 0, 3)], [0, 0, 1, 1, 2])
    assert fast.regions([False, True, True, False, 1, 0, "x"]) == [(1, 3), (4, 5), (6, 7)]


def test_the_miner_mines_the_same_with_either_layout(monkeypatch):
    clips = _clips_with_repeats(21, 400)
    panel = ["m0", "m1", "m2", "m3", "m4"]
    runs = []
    for off in (False, True):
        if off:
            monkeypatch.setattr(refdis_cells, "_fast", None)
        runs.append([[e.to_json() for e in mine(clips, panel, MinerParams(**settings)).edits]
                     for settings in (dict(majority=0.6, include_middle=True),
                                      dict(majority=0.75, include_middle=True, min_panel=2, leave_one_out=False))])
    assert runs[0] == runs[1]
    assert sum(map(len, runs[0])) > 50


@pytest.mark.parametrize("leave_one_out", [True, False])
def test_each_verdict_is_the_models_own_reading(path, leave_one_out):
    """The miner reads a verdict once per distinct cells object and words; each is the reading of that model's
    own cells, for exactly the models judged by a panel that mined the edit, in the order they were named."""
    clips = {c.clip_id: c for c in _clips_with_repeats(5, 300)}
    panel = ["m0", "m1", "m2", "m3", "m4"]
    scored = ["m6", "m1", "m5", "m0", "absent", "m3", "m2", "m4"]
    params = MinerParams(majority=0.6, include_middle=True, min_panel=3, leave_one_out=leave_one_out)
    result = mine(list(clips.values()), panel, params, scored=scored)
    partial = 0
    for e in result.edits:
        clip = clips[e.clip_id]
        place = place_of(clip.ref, e.key)
        need = params.min_ref_match * len(clip.ref)
        members = [m for m in panel if m in clip.hyps and HypCells(clip.ref, clip.hyps[m]).hits >= need]
        labels = ({None} if e.in_full_panel else set()) | set(e.loo_for)
        want = {}
        for m in scored:
            if m not in clip.hyps or (m if leave_one_out and m in members else None) not in labels:
                continue
            cells = HypCells(clip.ref, clip.hyps[m])
            want[m] = "ineligible" if cells.hits < need else reading(cells, place)
        partial += len(want) < sum(m in clip.hyps for m in scored)
        assert list(e.verdicts.items()) == list(want.items())
    assert len(result.edits) > 50 and (partial > 0 or not leave_one_out)


@pytest.mark.skipif(not refdis_cells.COMPILED, reason="asraudit.probes._refdis_fast is not built")
def test_the_compiled_reading_is_reading_of_the_words_in_the_cells():
    """Random places over a small vocabulary (one-character words, a non-ASCII one, repeats): the compiled
    reading of a hypothesis's cells is ``reading_of`` of its words, with the versions' distance given or
    computed; its distance is rapidfuzz's, which compares a one-character str by its code point and anything
    else by its hash (so the int 97 is the word "a" to both)."""
    from rapidfuzz.distance import Levenshtein

    fast = refdis_cells._fast
    rng = random.Random(6)
    vocab = ["a", "b", "the", "cat", "sat", "é", "ab", "x"]
    seen = set()
    for _ in range(20000):
        ref = tuple(rng.choice(vocab) for _ in range(rng.randint(1, 10)))
        hyp = tuple(rng.choice(vocab) for _ in range(rng.randint(0, 12)))
        start = rng.randint(0, len(ref))
        end = rng.randint(start, len(ref))
        audio = tuple(rng.choice(vocab) for _ in range(rng.randint(0, 3)))
        place = place_of(ref, (start, end, audio))
        cells = HypCells(ref, hyp)
        want = refdis_cells.reading_of(cells.text(place.lo, place.hi), place)
        for apart in (place.apart, -1):
            assert fast.reading(cells.hyp, cells.bounds, place.lo, place.hi, place.ref_words, place.audio_words,
                                apart) == want
        assert reading(cells, place) == want
        assert fast.distance(place.ref_words, place.audio_words) == place.apart
        seen.add(want)
    assert seen == {"audio", "ref", "other"}
    long_a, long_b = tuple("ab"[i % 2] * 2 for i in range(90)), tuple("ba"[i % 3 == 0] * 2 for i in range(70))
    for a, b in ((("a",), (97,)), (("ab",), (hash("ab"),)), ((b"a",), (97,)), (("a", "b"), ()), (long_a, long_b)):
        assert fast.distance(a, b) == Levenshtein.distance(a, b)
    with pytest.raises(TypeError):
        fast.reading(["a"], [0, 1], 0, 1, ("a",), ("b",), -1)
    with pytest.raises(IndexError):
        fast.reading(("a",), [0, 0, 1], 0, 3, ("a",), ("b",), -1)


@pytest.mark.skipif(not refdis_cells.COMPILED, reason="asraudit.probes._refdis_fast is not built")
def test_the_compiled_texts_and_verdicts_of_many_cells_are_each_ones():
    fast = refdis_cells._fast
    rng = random.Random(12)
    vocab = ["a", "b", "the", "cat", "sat", "é"]
    for _ in range(3000):
        ref = tuple(rng.choice(vocab) for _ in range(rng.randint(1, 9)))
        many = [HypCells(ref, tuple(rng.choice(vocab) for _ in range(rng.randint(0, 10)))) for _ in range(4)]
        start = rng.randint(0, len(ref))
        end = rng.randint(start, len(ref))
        place = place_of(ref, (start, end, tuple(rng.choice(vocab) for _ in range(rng.randint(0, 2)))))
        eligible = [rng.random() < 0.8 for _ in many]
        hyps, bounds = [c.hyp for c in many], [c.bounds for c in many]
        assert fast.texts(hyps, bounds, 2 * start, 2 * end + 1) == \
            [" ".join(c.text(2 * start, 2 * end + 1)) for c in many]
        assert fast.verdicts(hyps, bounds, eligible, place.lo, place.hi, place.ref_words, place.audio_words,
                             place.apart) == [refdis_cells.reading_of(c.text(place.lo, place.hi), place) if ok
                                              else "ineligible" for c, ok in zip(many, eligible)]
    with pytest.raises(ValueError):
        fast.texts([("a",)], [], 0, 1)
    with pytest.raises(IndexError):
        fast.texts([("a",)], [[0, 0, 1, 1]], 0, 4)


@pytest.mark.skipif(not refdis_cells.COMPILED, reason="asraudit.probes._refdis_fast is not built")
def test_the_compiled_proposals_are_the_canonical_proposals():
    """Small vocabularies make repeated words (insertions and deletions that shift left) and long groups of
    regions (more than MAX_JOIN); equal words that are distinct objects shift as equal ones do."""
    from asraudit.probes.refdis_votes import MAX_JOIN, _proposals, canonical

    fast = refdis_cells._fast
    rng = random.Random(14)
    long_groups = shifted = 0
    for _ in range(6000):
        vocab = ["a", "b", "c"] if rng.random() < 0.5 else ["a", "b", "the", "cat", "sat", "é"]
        ref = tuple("".join(list(rng.choice(vocab))) for _ in range(rng.randint(0, 14)))  # new str objects
        hyp = tuple(rng.choice(vocab) for _ in range(rng.randint(0, 16)))
        cells = HypCells(ref, hyp)
        want = [canonical(ref, (lo // 2, hi // 2, cells.text(lo, hi))) for lo, hi in _proposals(cells)]
        got = fast.proposals(cells.diff, cells.bounds, cells.hyp, ref, MAX_JOIN)
        assert got == want
        assert [tuple(map(id, k[2])) for k in got] == [tuple(map(id, k[2])) for k in want]  # the same objects
        long_groups += any(len(g) > MAX_JOIN for g in cells.region_groups())
        shifted += any(k[:2] != (lo // 2, hi // 2) for k, (lo, hi) in zip(got, _proposals(cells)))
    assert long_groups > 10 and shifted > 100
    with pytest.raises(TypeError):
        fast.proposals([True], [0, 1], ["a"], ("a",), MAX_JOIN)


@pytest.mark.skipif(not refdis_cells.COMPILED, reason="asraudit.probes._refdis_fast is not built")
def test_the_compiled_followers_are_the_reading_loops():
    """Members read in order until more than ``allowed`` refuse: the followers, or None, as the Python loop
    of ``candidates`` finds them with ``reading``."""
    from asraudit.probes.refdis_cells import WINDOW

    fast = refdis_cells._fast
    rng = random.Random(15)
    vocab = ["a", "b", "the", "cat", "é"]
    outcomes = set()
    for _ in range(5000):
        ref = tuple(rng.choice(vocab) for _ in range(rng.randint(1, 12)))
        start = rng.randint(0, len(ref))
        end = rng.randint(start, len(ref))
        audio = tuple(rng.choice(vocab) for _ in range(rng.randint(0 if end > start else 1, 3)))
        truth = ref[:start] + audio + ref[end:]
        members = [HypCells(ref, truth if rng.random() < 0.5 else tuple(rng.choice(vocab) for _ in range(len(ref))))
                   for _ in range(rng.randint(1, 5))]
        order = rng.sample(range(len(members)), len(members))
        allowed = rng.randint(-1, len(members))
        place = place_of(ref, (start, end, audio))
        want, refused = [], 0
        for i in order:
            if reading(members[i], place) == "audio":
                want.append(i)
            else:
                refused += 1
                if refused > allowed:
                    want = None
                    break
        got = fast.followers(ref, start, end, audio, [c.hyp for c in members], [c.bounds for c in members], order,
                             allowed, WINDOW)
        assert got == want
        outcomes.add(None if want is None else len(want) > 0)
    assert outcomes == {None, True, False}
    with pytest.raises(IndexError):
        fast.followers(("a",), 0, 2, (), [], [], [], 0, WINDOW)


@pytest.mark.skipif(not refdis_cells.COMPILED, reason="asraudit.probes._refdis_fast is not built")
def test_the_layout_of_the_editops_is_the_layout_of_the_opcodes(monkeypatch):
    """rapidfuzz's opcodes are its editops' ``as_opcodes()``: laid out from either, the same hits, bounds and
    cells; cells made by the compiled path answer the Python code too (the opcodes made when it asks)."""
    from rapidfuzz.distance import Levenshtein

    fast = refdis_cells._fast
    rng = random.Random(16)
    made = []
    for _ in range(20000):
        vocab = ["a", "b", "c", "dd", "é"][:rng.randint(1, 5)]
        ref = tuple(rng.choice(vocab) for _ in range(rng.randint(0, 15)))
        hyp = tuple(rng.choice(vocab) for _ in range(rng.randint(0, 18)))
        ops, edits = Levenshtein.opcodes(ref, hyp).as_list(), Levenshtein.editops(ref, hyp).as_list()
        laid = fast.layout(ops, len(hyp))
        assert fast.layout_edits(edits, len(ref), len(hyp)) == laid
        assert fast.diff_edits(edits, laid[1]) == fast.diff(ops, laid[1])
        if len(made) < 500:
            made.append((ref, hyp, HypCells(ref, hyp)))
    monkeypatch.setattr(refdis_cells, "_fast", None)  # the same cells objects, now read by the Python code
    for ref, hyp, cells in made:
        plain = HypCells(ref, hyp)
        assert (cells.bounds, cells.hits, cells.diff, cells.regions()) == \
            (plain.bounds, plain.hits, plain.diff, plain.regions())
        assert cells._opcodes() == plain._opcodes()
    for edits, n_ref, n_hyp in (([("replace", 0, 0)], 0, 1), ([("insert", 0, 1)], 1, 1), ([("delete", 1, 0)], 1, 1),
                                ([("equal", 0, 0)], 1, 1), ([("replace", 0, 0, 0)], 1, 1), ([], 2, 1)):
        with pytest.raises((ValueError, TypeError)):
            fast.layout_edits(edits, n_ref, n_hyp)
