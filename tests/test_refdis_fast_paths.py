"""The refdis command's speed-ups change nothing but the time: each is checked against the plain path.

``--compat hume`` loads neither numpy nor the report layer (start-up CPU on
every run), and its CLI output is the in-process ``run_hume`` result; the
bootstrap's packed columns give the intervals of one gather per ratio; cells
built on first use are the alignment's; loading builds each row once and
finds the conflicts the per-clip table finds.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from asraudit.data.predictions import (
    ModelPredictions,
    Prediction,
    PredictionSet,
    ReferenceConflict,
    iter_prediction_rows,
    load_prediction_file,
    load_predictions,
)
from asraudit.metrics import stats
from asraudit.probes.refdis_cells import HypCells
from asraudit.text.align import align
from asraudit.probes.refdis_compat import HumeParams
from asraudit.probes.refdis_compat_run import run_hume

PANEL = ["wav2vec2-base-960h", "whisper-tiny.en", "whisper-base.en", "whisper-small.en"]
SRC = Path(__file__).resolve().parents[1] / "src"

# Runs the CLI as ``python -m asraudit`` would and reports, at exit, which heavy modules it loaded.
_PROBE = (
    "import atexit, runpy, sys\n"
    "atexit.register(lambda: print('LOADED', sorted(m for m in ('numpy', 'asraudit.report.summary', "
    "'asraudit.metrics.stats', 'asraudit.text.basic_languages', 'concurrent.futures.process') "
    "if m in sys.modules), file=sys.stderr))\n"
    "sys.argv = ['asraudit'] + sys.argv[1:]\n"
    "runpy.run_module('asraudit', run_name='__main__')\n"
)


def _cli(args: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, env=env)


def test_compat_cli_loads_no_numpy_and_writes_the_in_process_result(shared_reference_dir, tmp_path):
    preds = shared_reference_dir / "predictions"
    out = tmp_path / "compat.json"
    proc = _cli(["refdis", "--preds", str(preds), "--panel", ",".join(PANEL), "--compat", "hume",
                 "--majority", "0.75", "--include-middle", "--json", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert "LOADED []" in proc.stderr
    expected = run_hume(load_predictions(preds), PANEL, HumeParams(majority=0.75, include_middle=True)).to_json()
    assert json.loads(out.read_text(encoding="utf-8")) == json.loads(json.dumps(expected))


def test_full_cli_still_loads_what_it_scores_with(shared_reference_dir, tmp_path):
    """The deferred imports are reached: the full miner runs and writes its JSON (bootstrap via numpy)."""
    preds = shared_reference_dir / "predictions"
    out = tmp_path / "full.json"
    proc = _cli(["refdis", "--preds", str(preds), "--panel", ",".join(PANEL), "--bootstrap", "50",
                 "--json", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert "'numpy'" in proc.stderr
    assert "'asraudit.report.summary'" not in proc.stderr  # its serializer comes from the light plain_json
    # An English run builds no language's normalizer and starts no worker pool.
    assert "'asraudit.text.basic_languages'" not in proc.stderr
    assert "'concurrent.futures.process'" not in proc.stderr
    payload = json.loads(out.read_text(encoding="utf-8"))
    assert payload["n_edits"] == len(payload["edits"]) > 0
    assert set(payload["wer_cost"]) == set(payload["models"])


# ------------------------------------------------------------ the bootstrap's packed columns


def _ratio_pairs(seed: int, n_units: int):
    """A miner's kind of ratios: per model errors, corrected errors and a signed gain over shared word counts,
    plus a fractional column and a huge one (both must take the plain gather)."""
    rng = np.random.default_rng(seed)
    words = rng.integers(0, 40, n_units).astype(float)
    pairs = []
    for _ in range(9):
        errors = rng.integers(0, 12, n_units).astype(float)
        gain = rng.integers(-3, 4, n_units).astype(float)
        pairs += [(errors, words), (errors + rng.integers(0, 2, n_units), words + 1), (gain, words)]
    pairs.append((rng.random(n_units), words))
    pairs.append((rng.integers(0, 2**58, n_units).astype(float), words))
    return pairs


@pytest.mark.parametrize("product", [True, False])
@pytest.mark.parametrize("n_units", [1, 5, 300, 2500])
def test_packed_columns_give_the_gathered_intervals(monkeypatch, n_units, product):
    pairs = _ratio_pairs(n_units, n_units)
    monkeypatch.setattr(stats, "blas_on_calling_thread", lambda: product)  # else packed into words and gathered
    shared = stats.bootstrap_ratios(pairs, n_boot=150, seed=4)
    monkeypatch.setattr(stats, "_SHARED_MIN", 10**9)  # every ratio gathered on its own, as before
    assert shared == stats.bootstrap_ratios(pairs, n_boot=150, seed=4)


@pytest.mark.parametrize("product", [True, False])
def test_packed_columns_share_words_and_leave_out_what_does_not_fit(monkeypatch, product):
    pairs = _ratio_pairs(0, 400)
    columns = [np.asarray(a, dtype=np.float64) for pair in pairs for a in pair]
    monkeypatch.setattr(stats, "blas_on_calling_thread", lambda: True)
    if not product:
        monkeypatch.setattr(stats, "_PRODUCT_MAX", 0)  # too many columns x units for the product
    shared = stats._SharedColumns(columns, 400)
    if product:  # equal columns once, one matrix column each
        distinct = {col.tobytes() for c, col in enumerate(columns) if shared.has(c)}
        assert shared.matrix is not None and not shared.words and shared.matrix.shape[1] == len(distinct)
        assert len(distinct) < len(columns) * 0.6
    else:  # equal columns once, several columns per word
        assert shared.matrix is None and len(shared.words) < len(columns) // 4
    assert not shared.has(len(columns) - 4) and not shared.has(len(columns) - 2)  # fractions, sums past 2**53
    idx = np.random.default_rng(1).integers(0, 400, size=(7, 400))
    sums = shared.sums(idx, {})
    for c, col in enumerate(columns):
        if shared.has(c):
            assert np.array_equal(sums[c], col[idx].sum(axis=1))


def test_resample_sums_by_matrix_product_are_exact_at_the_limit(monkeypatch):
    """Counts times values, summed in whatever order the matrix product adds: exact while every column's
    largest magnitude times the units stays below 2**53 (the bound the shared columns check)."""
    monkeypatch.setattr(stats, "blas_on_calling_thread", lambda: True)
    n_units = 64
    big = 2**53 // n_units - 1
    rng = np.random.default_rng(8)
    columns = [rng.integers(big - 1000, big, n_units).astype(np.float64),
               -rng.integers(big - 1000, big, n_units).astype(np.float64),
               rng.integers(-big, big, n_units).astype(np.float64)]
    shared = stats._SharedColumns(columns, n_units)
    assert shared.matrix is not None and all(shared.has(c) for c in range(3))
    idx = rng.integers(0, n_units, size=(50, n_units))
    sums = shared.sums(idx, {})
    for c, col in enumerate(columns):
        exact = col.astype(np.int64)[idx].sum(axis=1)  # integer sums: no rounding anywhere
        assert np.array_equal(sums[c], exact.astype(np.float64)) and np.all(np.abs(exact) < 2**53)


@pytest.mark.parametrize("margin", [-1, 0])
def test_resample_sums_in_float32_are_exact_below_two_to_the_24(monkeypatch, margin):
    """Where every column's largest magnitude times the units is below 2**24 the product runs in float32 (whole
    numbers below 2**24 are exact there in any order); at the bound it stays float64.  Exact either way."""
    monkeypatch.setattr(stats, "blas_on_calling_thread", lambda: True)
    n_units = 256
    top = 2**24 // n_units + margin  # the largest magnitude: top * n_units is 2**24 - 256 or 2**24
    rng = np.random.default_rng(9)
    columns = [rng.integers(top - 50, top + 1, n_units).astype(np.float64),
               -rng.integers(0, top + 1, n_units).astype(np.float64),
               rng.integers(0, 3, n_units).astype(np.float64)]
    columns[0][0], columns[1][0] = top, -top
    shared = stats._SharedColumns(columns, n_units)
    assert shared.matrix.dtype == (np.float32 if margin < 0 else np.float64)
    idx = np.zeros((40, n_units), np.intp)  # a resample drawing one unit every time: the largest sums
    idx[1:] = rng.integers(0, n_units, size=(39, n_units))
    sums = shared.sums(idx, {})
    for c, col in enumerate(columns):
        exact = col.astype(np.int64)[idx].sum(axis=1)
        assert sums[c].dtype == np.float64 and np.array_equal(sums[c], exact.astype(np.float64))
    assert abs(sums[0][0]) == top * n_units


# ------------------------------------------------------------ cells read where asked


def test_cells_built_on_first_use_are_the_cells_of_the_alignment():
    """Texts, spans and hits read before and after the bounds are built agree with ``text.align`` (the
    equal-sequence shortcut included); the bounds themselves are pinned to it in test_speed_paths."""
    rng = random.Random(5)
    for _ in range(3000):
        ref = [rng.choice("abcdef") for _ in range(rng.randint(0, 20))]
        hyp = [rng.choice("abcdef") for _ in range(rng.randint(0, 20))]
        if rng.random() < 0.4:
            hyp = [w for w in ref if rng.random() > 0.15] + hyp[: rng.randint(0, 3)]
        elif rng.random() < 0.2:
            hyp = list(ref)
        n = len(ref)
        same = [False] * n
        for op in align(ref, hyp).ops:
            if op.kind == "equal":
                same[op.ref_start:op.ref_end] = [True] * (op.ref_end - op.ref_start)
        lo = rng.randint(0, 2 * n + 1)
        hi = rng.randint(lo, 2 * n + 1)
        fresh = HypCells(ref, hyp)
        assert fresh.hits == sum(same)  # before anything else is read
        span = fresh.hyp_span(lo, hi)
        assert fresh.text(lo, hi) == tuple(hyp[span[0]:span[1]])
        assert fresh.diff[1::2] == [not x for x in same]


# ------------------------------------------------------------ loading


def test_loaded_rows_are_the_checked_rows_as_predictions(tmp_path):
    rows = [
        {"audio_filepath": "a", "text": "one two", "pred_text": "one too"},
        {"audio_filepath": 7, "text": "three", "pred_text": "three", "duration": 1.5},  # the general path
        {"id": "c", "reference": "four", "hypothesis": None},  # not run: counted, not kept
        {"audio_filepath": "d", "text": "five", "pred_text": ""},
    ]
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    loaded = load_prediction_file(path)
    expected = {r.clip_id: Prediction(r.clip_id, r.reference, r.hypothesis, r.duration, r.row)
                for r in iter_prediction_rows(path) if r.hypothesis is not None}
    assert loaded.rows == expected and list(loaded.rows) == list(expected) == ["a", "7", "d"]
    assert all(type(p) is Prediction for p in loaded.rows.values())
    assert loaded.skipped_missing_hypothesis == 1


def _conflicts_plainly(pset: PredictionSet) -> list[ReferenceConflict]:
    refs: dict[str, dict[str, str]] = {}
    for m, preds in pset.models.items():
        for cid, p in preds.rows.items():
            refs.setdefault(cid, {})[m] = p.reference
    return [ReferenceConflict(cid, by) for cid, by in refs.items()
            if len(set(by.values())) > 1 and len({" ".join(r.split()) for r in by.values()}) > 1]


def test_reference_conflicts_are_those_of_the_per_clip_table():
    rng = random.Random(8)
    for _ in range(200):
        models = {}
        for m in range(rng.randint(1, 4)):
            rows = {}
            for c in rng.sample(range(8), rng.randint(0, 8)):
                ref = rng.choice(["a b", "a  b", "a c", "", "b"])
                rows[f"c{c}"] = Prediction(f"c{c}", ref, "x", None, c + 1)
            models[f"m{m}"] = ModelPredictions(f"m{m}", Path(f"m{m}.jsonl"), rows)
        pset = PredictionSet(models)
        assert pset.reference_conflicts() == _conflicts_plainly(pset)


# ------------------------------------------------------------ alpha2digit skipped without number words

_NUMBER_LIKE = """trillion quadrillion dozen dozens half quarter a an couple pair score nil none naught oh double
triple percent minus plus negative point dot and th st nd rd hundreds thousands twice once zeroth trillionth
hundredths tens teens twenties seconds minutes thirds fifths o'clock first-class twenty-something""".split()
_CONTEXTS = ["{w}", "{w} {w}", "the {w} cars", "{w} five", "five {w}", "twenty {w}", "{w} twenty", "one {w}",
             "{w} one hundred", "{w}-five", "five-{w}", "two {w} three", "{w} point five", "{w} o six"]


def _alpha2digit_plain():
    text_to_num = pytest.importorskip("text_to_num")

    def plain(text: str) -> str:
        try:
            return text_to_num.alpha2digit(text, "en")
        except Exception:
            return text

    return plain


def _same_with_and_without_the_filter(texts) -> int:
    from asraudit.probes.refdis_compat import _alpha2digit

    plain, filtered = _alpha2digit_plain(), _alpha2digit()
    changed = 0
    for t in texts:
        assert filtered(t) == plain(t), t
        changed += plain(t) != t
    return changed


def test_number_like_words_outside_the_list_leave_alpha2digit_unchanged():
    from asraudit.probes.refdis_compat_numbers import NUMBER_WORDS

    texts = [c.format(w=w) for w in _NUMBER_LIKE + sorted(NUMBER_WORDS) for c in _CONTEXTS]
    assert _same_with_and_without_the_filter(texts) > 100  # the listed words do get converted


def test_real_and_noisy_strings_give_what_alpha2digit_gives(shared_reference_dir):
    rng = random.Random(0)
    noise = list(".,;:!?'\"-()/&%$#*+= \t\u00a0\u2019\u2014éüßİK…0123")
    texts = []
    for path in sorted((shared_reference_dir / "predictions").glob("*.jsonl"))[:3]:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            for t in (row["text"], row["pred_text"]):
                chars = list(t.lower())
                for _ in range(rng.randint(0, 4)):
                    chars.insert(rng.randint(0, len(chars)), rng.choice(noise))
                texts += [t, t.lower(), "".join(chars)]
    assert _same_with_and_without_the_filter(texts) > 0


# ------------------------------------------------------------ the full JSON's edits


def test_plain_edit_is_to_plain_of_the_edit_rows(shared_reference_dir):
    from asraudit.metrics.normalized_cache import NormalizedCache
    from asraudit.probes.refdis import Edit, MinerParams, mine, plain_edit, prepare_clips
    from asraudit.report.summary import to_plain
    from asraudit.text.normalize import get_normalizer

    pset = load_predictions(shared_reference_dir / "predictions")
    clips = prepare_clips(pset, NormalizedCache(get_normalizer("whisper")))
    edits = mine(clips, PANEL, MinerParams(majority=0.75, include_middle=True), scored=pset.model_names).edits
    assert len(edits) > 50
    odd = Edit("c", "delete", "start", 0, 1, "x", "", 3, 4, 3, ("a",), float("nan"))
    for e in edits + [odd]:
        row = e.to_json()
        assert json.dumps(plain_edit(row)) == json.dumps(to_plain(row))


# ------------------------------------------------------------ the cycle collector paused while building


def test_the_cycle_collector_is_paused_inside_and_restored_after(tmp_path):
    import gc

    from asraudit.bulk import builds_in_bulk, cycle_collector_paused

    seen = []

    @builds_in_bulk
    def build(fail: bool):
        seen.append(gc.isenabled())
        if fail:
            raise ValueError("boom")
        return "built"

    assert gc.isenabled()
    assert build(False) == "built" and seen == [False] and gc.isenabled()
    with pytest.raises(ValueError):
        build(True)
    assert gc.isenabled()
    with cycle_collector_paused():  # nested: the inner block leaves it paused for the outer one
        build(False)
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:  # a caller that turned it off keeps it off
        build(False)
        assert not gc.isenabled()
    finally:
        gc.enable()
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps({"audio_filepath": "a", "text": "x", "pred_text": "x"}) + "\n", encoding="utf-8")
    assert list(load_predictions(tmp_path).models["m"].rows) == ["a"] and gc.isenabled()


def test_prepared_clips_are_each_string_normalized_and_split(shared_reference_dir):
    from asraudit.probes.refdis import prepare_clips
    from asraudit.text.normalize import get_normalizer

    pset = load_predictions(shared_reference_dir / "predictions")
    normalize = get_normalizer("whisper")
    calls = []

    def counted(text: str) -> str:
        calls.append(text)
        return normalize(text)

    names = pset.model_names[:3]
    clips = prepare_clips(pset, counted, names)
    refs = pset.references()
    plain = [(cid, tuple(normalize(refs[cid]).split()),
              {m: tuple(normalize(pset.models[m].rows[cid].hypothesis).split()) for m in names
               if cid in pset.models[m]}) for cid in pset.clip_ids()]
    assert [(c.clip_id, c.ref, dict(c.hyps)) for c in clips] == [p for p in plain if p[2]]
    assert len(calls) == len(set(calls))  # each distinct string once



def test_linear_quantiles_are_numpys():
    """The bootstrap's percentiles on Python floats: np.quantile's linear method, bit for bit (repr), on
    ratios, ties, signed zeros, infinities, NaN (numpy's own path), one value and many."""
    rng = np.random.default_rng(17)
    arrays = [np.array([0.5]), np.array([-0.0, 0.0]), np.array([1.0, np.inf]), np.array([-np.inf, 0.0, np.inf]),
              np.array([np.nan, 1.0, 2.0]), np.array([3.0, 3.0, 3.0])]
    for n in (2, 3, 7, 40, 999, 1000, 1001, 2500):
        arrays.append(rng.random(n))
        arrays.append(rng.integers(0, 5, n) / rng.integers(1, 9, n))  # ratios with ties
        arrays.append(np.round(rng.normal(size=n), 2))
    qs = [(0.025000000000000022, 0.975), (0.0, 1.0), (0.005, 0.995), (0.5,), (0.1, 0.25, 0.75, 0.9)]
    for a in arrays:
        for q in qs:
            ours = stats._linear_quantiles(a, q)
            with np.errstate(invalid="ignore"):
                theirs = np.quantile(a, list(q))
            assert [repr(x) for x in ours] == [repr(float(x)) for x in theirs], (a, q)


@pytest.mark.parametrize("dtype_margin", [-1, 0])
def test_a_blas_that_gets_the_product_wrong_is_not_believed(monkeypatch, dtype_margin):
    """numpy's float32 product of small matrices returned 5.7e-38 and 1.8e31 for sums of about 2200 under an
    emulated arm64 CPU with SVE (docs/development.md, "On arm64"): the intervals were nonsense, silently.  Sums
    that are not whole numbers within their column's range now send the resamples to the exact gather."""
    monkeypatch.setattr(stats, "blas_on_calling_thread", lambda: True)
    n_units = 256
    top = 2**24 // n_units + dtype_margin  # float32 below the bound, float64 at it
    rng = np.random.default_rng(3)
    columns = [rng.integers(0, top + 1, n_units).astype(np.float64), -rng.integers(0, 12, n_units).astype(np.float64)]
    columns[0][0] = top  # the largest magnitude the dtype is chosen on
    shared = stats._SharedColumns(columns, n_units)
    assert shared.matrix is not None and shared.matrix.dtype == (np.float32 if dtype_margin < 0 else np.float64)
    idx = rng.integers(0, n_units, size=(30, n_units))

    def broken(counts, matrix):
        out = counts @ matrix
        out[3, 0], out[7, 1] = 5.65e-38, 1.8e31  # as the emulated kernel wrote them
        return out

    monkeypatch.setattr(stats, "_product", broken)
    sums = shared.sums(idx, {})
    for c, col in enumerate(columns):
        assert np.array_equal(sums[c], col.astype(np.int64)[idx].sum(axis=1).astype(np.float64))
    pairs = [(columns[0], np.full(n_units, float(top))), (-columns[1], np.full(n_units, 12.0))]
    with_broken_product = stats.bootstrap_ratios(pairs, n_boot=100, seed=2)
    monkeypatch.setattr(stats, "_SHARED_MIN", 10**9)  # every ratio gathered on its own
    assert with_broken_product == stats.bootstrap_ratios(pairs, n_boot=100, seed=2)
