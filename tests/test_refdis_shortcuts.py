"""More of the refdis command's speed-ups, each checked against the plain path it replaces.

Models writing the same words on a clip share their cells, texts, verdicts and
WER counts; proposals no panel can mine are dropped early; a reading of either
version of the reference needs no distances; loading builds its rows through
the slots and reuses its first-seen references.  Every result must be the
plain path's, exactly.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from asraudit.data.predictions import ModelPredictions, Prediction, PredictionSet, load_predictions

PANEL = ["wav2vec2-base-960h", "whisper-tiny.en", "whisper-base.en", "whisper-small.en"]


# ------------------------------------------------------------ readings of either version


def _reading_by_distances(words, place) -> str:
    from rapidfuzz.distance import Levenshtein

    to_ref = Levenshtein.distance(words, place.ref_words)
    to_audio = Levenshtein.distance(words, place.audio_words)
    if to_ref == to_audio + place.apart:
        return "audio"
    if to_audio == to_ref + place.apart:
        return "ref"
    return "other"


def test_a_reading_of_either_version_is_the_reading_by_distances():
    from asraudit.probes.refdis_cells import place_of, reading_of

    rng = random.Random(6)
    seen = set()
    for _ in range(4000):
        ref = tuple(rng.choice("abc") for _ in range(rng.randint(1, 8)))
        start = rng.randint(0, len(ref))
        end = rng.randint(start, min(len(ref), start + 2))
        audio = tuple(rng.choice("abc") for _ in range(rng.randint(0, 2)))
        place = place_of(ref, (start, end, audio))  # audio may equal the span: versions the same, apart 0
        for words in (place.ref_words, place.audio_words, tuple(rng.choice("abc") for _ in range(rng.randint(0, 6)))):
            got = reading_of(words, place)
            assert got == _reading_by_distances(words, place), (ref, start, end, audio, words)
            seen.add((got, place.apart == 0))
    assert {("audio", True), ("audio", False), ("ref", False), ("other", False)} <= seen


# ------------------------------------------------------------ loading


def test_the_loaders_predictions_are_the_dataclasses_own():
    import dataclasses

    from asraudit.data.predictions import _prediction

    for args in (("a", "r", "h", None, 1), ("b", "", "", 2.5, 7), ("c", "r", None, None, 3)):
        fast, plain = _prediction(*args), Prediction(*args)
        assert type(fast) is Prediction and fast == plain and hash(fast) == hash(plain) and repr(fast) == repr(plain)
        assert dataclasses.astuple(fast) == args
        with pytest.raises(dataclasses.FrozenInstanceError):
            fast.hypothesis = "x"
    assert [f.name for f in dataclasses.fields(Prediction)] == ["clip_id", "reference", "hypothesis", "duration", "row"]


def test_references_come_from_the_conflict_pass_in_clip_order():
    """``references`` returns the conflict pass's first-seen references: the per-model walk's, in clip_ids order."""
    rng = random.Random(12)
    for _ in range(200):
        models = {}
        for m in range(rng.randint(1, 4)):
            rows = {}
            for c in rng.sample(range(8), rng.randint(0, 8)):
                rows[f"c{c}"] = Prediction(f"c{c}", rng.choice(["a b", "a  b", " a b"]), "x", None, c + 1)
            models[f"m{m}"] = ModelPredictions(f"m{m}", Path(f"m{m}.jsonl"), rows)
        pset = PredictionSet(models)
        plain: dict[str, str] = {}
        for preds in pset.models.values():
            for cid, p in preds.rows.items():
                plain.setdefault(cid, p.reference)
        refs = pset.references()
        assert refs == plain and list(refs) == pset.clip_ids()


# ------------------------------------------------------------ shared cells, pruned candidates

def _plain_cells(clip, made):
    from asraudit.probes.refdis_cells import HypCells

    return {m: made[m] if m in made else HypCells(clip.ref, h) for m, h in clip.hyps.items()}


def _plain_clip_cells(clip, made):
    """``refdis._clip_cells`` without sharing: a cells object of its own for every model."""
    from asraudit.probes.refdis_cells import HypCells

    cells = {m: HypCells(clip.ref, h) for m, h in clip.hyps.items()}
    return cells, list(cells.values()), list(range(len(cells)))


def _clips_with_repeats(seed: int, n_clips: int) -> list:
    """Clips whose seven models share planted edits, write their own errors, and often repeat each other's words."""
    from asraudit.probes.refdis import ClipInput

    rng = random.Random(seed)
    vocab = "a b c d e f g h".split()
    out = []
    for i in range(n_clips):
        ref = [rng.choice(vocab) for _ in range(rng.randint(0, 14))]
        truth = list(ref)
        for _ in range(rng.randint(0, 3)):  # the audio differs from the reference here
            at = rng.randint(0, len(truth))
            truth[at:at + rng.randint(0, 2)] = [rng.choice(vocab) for _ in range(rng.randint(0, 2))]
        hyps: dict[str, tuple[str, ...]] = {}
        for m in range(7):
            if hyps and rng.random() < 0.35:
                hyps[f"m{m}"] = rng.choice(list(hyps.values()))  # the same words as another model
                continue
            words = list(truth if rng.random() < 0.8 else ref)
            for _ in range(rng.randint(0, 2)):
                at = rng.randint(0, len(words))
                words[at:at + rng.randint(0, 1)] = [rng.choice(vocab)] * rng.randint(0, 1)
            hyps[f"m{m}"] = tuple(words)
        out.append(ClipInput(f"c{i}", tuple(ref), hyps))
    return out


def _voxpopuli_clips(shared_reference_dir) -> list:
    from asraudit.metrics.normalized_cache import NormalizedCache
    from asraudit.probes.refdis import prepare_clips
    from asraudit.text.normalize import get_normalizer

    pset = load_predictions(shared_reference_dir / "predictions")
    return prepare_clips(pset, NormalizedCache(get_normalizer("whisper")))


_MINER_SETTINGS = [
    dict(majority=0.75, include_middle=True),
    dict(majority=0.5, include_middle=True, min_panel=2),
    dict(majority=1.0, include_middle=True),
    dict(majority=0.75, include_middle=False, leave_one_out=False),
    dict(majority=0.6, include_middle=True, min_panel=4, min_ref_match=0.3),
]


@pytest.mark.parametrize("settings", _MINER_SETTINGS)
def test_shared_cells_and_pruned_candidates_mine_what_the_plain_path_mines(monkeypatch, shared_reference_dir,
                                                                            settings):
    """Models writing the same words share one cells object, and proposals that no panel could mine are
    neither kept nor read to the end; the edits, verdicts and texts are those of one cells object per model
    and every proposal read by every member."""
    from asraudit.probes import refdis, refdis_votes
    from asraudit.probes.refdis import MinerParams, mine

    params = MinerParams(**settings)
    runs = [(_voxpopuli_clips(shared_reference_dir), PANEL), (_clips_with_repeats(3, 400), ["m0", "m1", "m2", "m3", "m4"])]
    fast = [mine(clips, panel, params) for clips, panel in runs]
    every = refdis_votes.candidates
    monkeypatch.setattr(refdis, "_all_cells", _plain_cells)
    monkeypatch.setattr(refdis, "_clip_cells", _plain_clip_cells)
    monkeypatch.setattr(refdis, "candidates", lambda *a, min_votes=0: every(*a))
    for (clips, panel), got in zip(runs, fast):
        plain = mine(clips, panel, params)
        assert got.status == plain.status
        assert [e.to_json() for e in got.edits] == [e.to_json() for e in plain.edits]
    assert sum(len(r.edits) for r in fast) > 20


def test_pruned_candidates_are_the_candidates_some_panel_can_mine():
    from asraudit.probes.refdis import MinerParams
    from asraudit.probes.refdis_cells import HypCells
    from asraudit.probes.refdis_votes import candidates

    params = MinerParams(majority=0.75, include_middle=True, min_panel=2)
    members = ["m0", "m1", "m2", "m3", "m4"]
    kept = 0
    for clip in _clips_with_repeats(9, 300):
        cells = {m: HypCells(clip.ref, clip.hyps[m]) for m in members}
        every = candidates(clip.ref, cells, members, params)
        for min_votes in (0, 2, 3, 5, 6):
            pruned = candidates(clip.ref, cells, members, params, min_votes=min_votes)
            assert pruned == {k: c for k, c in every.items() if len(c.voters) >= min_votes}
            kept += len(pruned)
    assert kept > 100


# ------------------------------------------------------------ WER cost counted once per distinct hypothesis


def _wer_cost_plainly(clips, corrected, edits, models, n_boot, seed):
    """Every clip x model counted on its own, as before the per-clip counts were shared."""
    from asraudit.metrics.stats import bootstrap_ratios
    from asraudit.metrics.wer import word_errors
    from asraudit.probes.inflation import follow_audio

    pairs, extra = [], []
    for m in models:
        orig, n, corr, n_corr, gain, echoed = [], [], [], [], [], 0
        for clip in clips:
            hyp = clip.hyps.get(m)
            if hyp is None or not clip.ref:
                continue
            fixed = corrected.get(clip.clip_id, clip.ref)
            mine = [e for e in edits if e.clip_id == clip.clip_id and e.verdicts.get(m) == "ref"]
            base = word_errors(clip.ref, hyp)
            orig.append(base)
            n.append(len(clip.ref))
            corr.append(word_errors(fixed, hyp))
            n_corr.append(len(fixed))
            gain.append(word_errors(clip.ref, follow_audio(clip.ref, hyp, mine)) - base if mine else 0)
            echoed += len(mine)
        pairs += [(orig, n), (corr, n_corr), (gain, n)]
        extra.append((len(n), sum(n), sum(n_corr), echoed))
    ivs = bootstrap_ratios(pairs, n_boot=n_boot, seed=seed)
    return {m: (extra[k], ivs[3 * k:3 * k + 3]) for k, m in enumerate(models)}


def test_wer_cost_counted_once_per_distinct_hypothesis_is_the_plain_count():
    from asraudit.probes.corrected import corrected_references
    from asraudit.probes.inflation import wer_cost
    from asraudit.probes.refdis import MinerParams, mine

    clips = _clips_with_repeats(11, 250)
    models = [f"m{k}" for k in range(7)] + ["absent", "m2"]  # a model never run, one named twice
    result = mine(clips, ["m0", "m1", "m2", "m3", "m4"], MinerParams(majority=0.6, min_panel=3), scored=models)
    fixed = corrected_references(result, None)
    assert sum(v == "ref" for e in result.edits for v in e.verdicts.values()) > 10
    assert any(fixed.get(c.clip_id, c.ref) != c.ref for c in clips)
    got = wer_cost(clips, fixed, result.edits, models, n_boot=60, seed=2)
    for m, ((n_clips, words, corrected_words, echoed), ivs) in _wer_cost_plainly(
            clips, fixed, result.edits, models, 60, 2).items():
        c = got[m]
        assert (c.clips, c.ref_words, c.corrected_words, c.n_echoed) == (n_clips, words, corrected_words, echoed)
        assert json.dumps([c.original.to_json(), c.corrected.to_json(), c.gained.to_json()]) == \
            json.dumps([iv.to_json() for iv in ivs])


# ------------------------------------------------------------ numpy without the BLAS thread pool


def _threads_after(code: str, env: dict) -> list[str]:
    import os
    import subprocess
    import sys

    src = str(Path(__file__).resolve().parents[1] / "src")
    full = {**{k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}, **env,
            "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    every_core = set(range(os.cpu_count() or 1))  # the suite's workers are pinned (conftest); OpenBLAS counts these
    out = subprocess.run([sys.executable, "-c", code + "\nimport os\nfrom asraudit.blas_threads import "
                          "blas_on_calling_thread as b\nprint(len(os.listdir('/proc/self/task')), "
                          "os.environ.get('OPENBLAS_NUM_THREADS'), b())"],
                         env=full, capture_output=True, text=True, check=True,
                         preexec_fn=lambda: os.sched_setaffinity(0, every_core))
    return out.stdout.split()


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_numpy_imported_for_the_miner_starts_no_blas_threads():
    """The plain import starts OpenBLAS's pool (one thread per core); the miner's import starts none, leaves the
    environment as it was, and keeps a user's own setting."""
    import os

    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: OpenBLAS starts no pool either way")
    plain = _threads_after("import numpy", {})
    assert int(plain[0]) > 1 and plain[1:] == ["None", "False"]
    helper = "from asraudit.blas_threads import import_numpy_single_threaded as f\nf()\nimport numpy"
    assert _threads_after(helper, {}) == ["1", "None", "True"]
    assert _threads_after(helper, {"OPENBLAS_NUM_THREADS": "2"}) == ["2", "2", "False"]
    assert _threads_after(helper, {"OPENBLAS_NUM_THREADS": "1"}) == ["1", "1", "True"]
    late = "import numpy\nfrom asraudit.blas_threads import import_numpy_single_threaded as f\nf()"
    assert _threads_after(late, {})[1:] == ["None", "False"]  # numpy loaded before: its pool stays, no product


# ------------------------------------------------------------ clips tokenized by the normalizer's own token path


def test_prepared_clips_are_those_of_the_split_normalized_strings(shared_reference_dir):
    """``prepare_clips`` takes the Whisper normalizer's ``tokens`` (no join and split again): the clips are those
    of ``tuple(normalize(text).split())``, here on the shared predictions and perturbed copies of them."""
    from asraudit.metrics.normalized_cache import NormalizedCache
    from asraudit.probes.refdis import prepare_clips
    from asraudit.text.normalize import get_normalizer, normalize_whisper

    pset = load_predictions(shared_reference_dir / "predictions")
    rng = random.Random(5)
    for name, preds in list(pset.models.items())[:2]:  # two more models: the same texts, words dropped and doubled
        rows = {}
        for cid, p in preds.rows.items():
            words = [w for w in p.hypothesis.split() if rng.random() > 0.05 for w in [w] * rng.choice([1, 1, 2])]
            rows[cid] = Prediction(cid, p.reference, " ".join(words), None, p.row)
        pset.models[name + "~x"] = ModelPredictions(name + "~x", preds.source, rows)
    fast = prepare_clips(pset, NormalizedCache(get_normalizer("whisper")))
    plain = prepare_clips(pset, lambda text: normalize_whisper(text))  # a lambda has no ``tokens``
    assert fast == plain and len(fast) >= 150 and sum(len(c.hyps) for c in fast) >= 150 * 7


# ------------------------------------------------------------ the command with the cycle collector paused


@pytest.mark.parametrize("compat", [False, True])
def test_the_command_runs_with_the_cycle_collector_paused_and_resumes_it(monkeypatch, tmp_path, shared_reference_dir,
                                                                         compat):
    """``asraudit refdis`` runs paused (no collection walks what its stages built) and resumes the collector
    after its data is gone; a caller that paused it keeps it paused."""
    import gc

    from asraudit.cli import main
    from asraudit.commands import refdis as command

    seen = []
    inner = command._run
    monkeypatch.setattr(command, "_run", lambda args: seen.append(gc.isenabled()) or inner(args))
    argv = ["refdis", "--preds", str(shared_reference_dir / "predictions"), "--panel", ",".join(PANEL),
            "--json", str(tmp_path / "out.json")] + (["--compat", "hume"] if compat else ["--bootstrap", "50"])
    was = gc.isenabled()
    gc.enable()
    try:
        assert main(argv) == 0 and gc.isenabled()
        gc.disable()
        assert main(argv) == 0 and not gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
    assert seen == [False, False]
    assert json.loads((tmp_path / "out.json").read_text())["n_clips"] == 150


# ------------------------------------------------------------ accept-ref tables from one reading of the verdicts


def test_accept_ref_tables_are_accept_ref_and_its_breakdowns():
    """Overall, by kind and by position in one pass: the same AcceptRef (counts, Wilson bounds, clips) as
    ``accept_ref`` and ``breakdown`` give table by table; models never judged, judged on some edits only,
    named twice or not scored, and edits whose group is not listed, included."""
    from asraudit.probes.refdis import KINDS, POSITIONS, Edit
    from asraudit.probes.refdis_score import accept_ref, accept_ref_tables, breakdown

    def as_json(table):
        return json.dumps({m: s.to_json() for m, s in table.items()}, sort_keys=False)

    rng = random.Random(31)
    verdicts = ["ref", "audio", "audio", "audio", "other", "ineligible"]
    models = ["a", "b", "c", "never", "b"]
    checked = 0
    for trial in range(150):
        edits = []
        for k in range(rng.randint(0, 40)):
            judged = {m: rng.choice(verdicts) for m in ("a", "b", "c", "unscored") if rng.random() < 0.85}
            kind = rng.choice(KINDS + ("odd",) if trial % 3 == 0 else KINDS)
            edits.append(Edit(f"c{rng.randint(0, 9)}", kind, rng.choice(POSITIONS), 0, 1, "r", "a", 3, 4, 3, (),
                              None, verdicts=judged))
        ways = [(lambda e: e.kind, KINDS), (lambda e: e.position, POSITIONS)]
        overall, (by_kind, by_position) = accept_ref_tables(edits, models, ways)
        assert as_json(overall) == as_json(accept_ref(edits, models))
        for got, (by, groups) in zip((by_kind, by_position), ways):
            plain = breakdown(edits, models, by, groups)
            assert list(got) == list(plain) and all(as_json(got[g]) == as_json(plain[g]) for g in groups)
        assert list(overall) == ["a", "b", "c", "never"]
        checked += len(edits)
    assert checked > 2000


def test_clips_by_columns_are_the_clips_built_clip_by_clip(monkeypatch, shared_reference_dir):
    """Where every model ran every clip in one order, ``prepare_clips`` builds the clips from per-model columns;
    they are the clip-by-clip lookups' clips.  A model missing a clip, rows in another order or a model named
    twice: the same clips either way (the columns are taken only where they apply)."""
    from asraudit.metrics.normalized_cache import NormalizedCache
    from asraudit.probes import refdis
    from asraudit.probes.refdis import prepare_clips
    from asraudit.text.normalize import get_normalizer

    full = load_predictions(shared_reference_dir / "predictions")
    names = full.model_names
    first = names[0]
    missing = PredictionSet(dict(full.models))
    rows = dict(full.models[first].rows)
    rows.pop(next(iter(rows)))
    missing.models[first] = ModelPredictions(first, full.models[first].source, rows)
    reordered = PredictionSet(dict(full.models))
    flipped = dict(reversed(list(full.models[names[1]].rows.items())))
    reordered.models[names[1]] = ModelPredictions(names[1], full.models[names[1]].source, flipped)
    cases = [(full, names, True), (full, names[:2] + names[:1], True), (missing, names, False),
             (reordered, names, False), (full, [], False)]
    normalize = NormalizedCache(get_normalizer("whisper"))
    columns = refdis._clips_by_columns
    for pset, models, by_columns in cases:
        taken = []
        monkeypatch.setattr(refdis, "_clips_by_columns", lambda *a: taken.append(columns(*a)) or taken[-1])
        fast = prepare_clips(pset, normalize, models)
        monkeypatch.setattr(refdis, "_clips_by_columns", lambda *a: None)
        plain = prepare_clips(pset, normalize, models)
        assert fast == plain and (len(plain) == 150 if models else not plain)
        assert [list(c.hyps) for c in fast] == [list(c.hyps) for c in plain]
        assert (taken[0] is not None) == by_columns
