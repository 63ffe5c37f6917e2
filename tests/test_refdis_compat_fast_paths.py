"""``--compat hume``'s speed-ups change nothing but the time: each is checked against the plain path it replaces.

The text2num filter read from a string's words answers what the filter of the
joined string answers; ``hume_tokens`` is the split of ``hume_normalize``; a
diff view built by a matcher reused across a clip's hypotheses is the view of a
fresh matcher and of difflib itself, its counts those of the plain reading of the
opcodes; and ``run_hume``'s per-model columns give the clips of the clip-by-clip
lookups.
"""

from __future__ import annotations

import difflib
import json
import random

import pytest

from asraudit.data.predictions import load_predictions
from asraudit.probes import refdis_compat_numbers, refdis_compat_run
from asraudit.probes.refdis_compat import HumeParams, _DiffView, hume_normalize, hume_tokens, mine_clip_hume
from asraudit.probes.refdis_compat_numbers import NUMBER_WORDS, may_hold_number, tokens_may_hold_number
from asraudit.probes.refdis_compat_run import run_hume

PANEL = ["wav2vec2-base-960h", "whisper-tiny.en", "whisper-base.en", "whisper-small.en"]
_NOISE = list(".,;:!?'\"-()/&%$#*+= \t\u00a0\u2019\u2014éüßİK…0123（）中文ｓ£€")


def _texts(shared_reference_dir, rng: random.Random) -> list[str]:
    """Every raw string of three prediction files, lower-cased, and with noise (brackets, CJK, symbols)."""
    texts = []
    for path in sorted((shared_reference_dir / "predictions").glob("*.jsonl"))[:3]:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            for t in (row["text"], row["pred_text"]):
                chars = list(t)
                for _ in range(rng.randint(0, 4)):
                    chars.insert(rng.randint(0, len(chars)), rng.choice(_NOISE))
                texts += [t, t.lower(), "".join(chars)]
    words = sorted(NUMBER_WORDS) + ["fives", "twoss", "ss", "s", "hundreds", "o'clock", "1st", "twenty-one"]
    texts += [" ".join(rng.choice(words + ["cat", "(one)", "two（three）"]) for _ in range(rng.randint(0, 6)))
              for _ in range(2000)]
    return texts + ["", " ", "（applause）", "one hundred and twenty pounds", "二十 twenty"]


def test_the_number_filter_on_words_is_the_filter_on_the_joined_string(shared_reference_dir, monkeypatch):
    assert not any(w.endswith("s") for w in NUMBER_WORDS)  # the run's trailing "s" rule reads the word alone
    texts = _texts(shared_reference_dir, random.Random(0))
    for limit in (400_000, 7):  # and when the remembered words are forgotten, again and again
        monkeypatch.setattr(refdis_compat_numbers, "_WORDS_LIMIT", limit)
        monkeypatch.setattr(refdis_compat_numbers, "_known", (set(), set()))
        hits = 0
        for t in texts:
            for words in (tuple(t.split()), tuple(t.lower().split())):
                want = may_hold_number(" ".join(words))
                assert tokens_may_hold_number(words) == want, words
                hits += want
        assert hits > 100


def test_hume_tokens_are_the_split_of_hume_normalize(shared_reference_dir):
    pytest.importorskip("text_to_num")  # the conversion path too (without it both skip text2num alike)
    texts = _texts(shared_reference_dir, random.Random(1))
    changed = 0
    for t in texts:
        assert hume_tokens(t) == tuple(hume_normalize(t).split()), t
        changed += hume_tokens(t) != tuple(t.split())
    assert changed > 1000
    assert hume_tokens("one hundred and twenty pounds") == tuple(hume_normalize("one hundred and twenty pounds").split())


def _plain_view(ref, hyp):
    """The view as first written: difflib's opcodes read one by one, the matched words counted from "equal"."""
    opcodes = difflib.SequenceMatcher(None, list(ref), list(hyp), autojunk=False).get_opcodes()
    missed, matched, inserted = set(), 0, {}
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            matched += i2 - i1
        elif tag == "insert":
            inserted.setdefault(i1, []).extend(hyp[j1:j2])
        else:
            missed.update(range(i1, i2))
    return opcodes, missed, matched, inserted


def test_views_of_a_reused_matcher_are_difflibs_plain_views():
    pytest.importorskip("cydifflib")
    from cydifflib import SequenceMatcher

    rng = random.Random(4)
    for _ in range(400):
        ref = tuple(rng.choice("abcdefg") for _ in range(rng.randint(1, 20)))
        hyps = []
        for _ in range(rng.randint(1, 12)):
            h = tuple(w for w in ref if rng.random() > 0.15) + tuple(rng.choice("abcxyz") for _ in range(rng.randint(0, 2)))
            hyps.append(h if rng.random() > 0.2 else tuple(rng.choice("abcdefg") for _ in range(rng.randint(0, 20))))
            if rng.random() < 0.2:
                hyps.append(ref)
            if rng.random() < 0.2:
                hyps.append(hyps[rng.randrange(len(hyps))])  # the same tuple again: the matcher's cached answer
        matcher = SequenceMatcher(None, (), (), autojunk=False)
        for h in hyps:
            view = _DiffView(ref, h, matcher)
            fresh = _DiffView(ref, h)
            opcodes, missed, matched, inserted = _plain_view(ref, h)
            for v in (view, fresh):
                assert [tuple(o) for o in v.opcodes] == opcodes
                assert (v.missed, v.matched, v.inserted) == (missed, matched, inserted)


def _clips_plainly(pset, words):
    rows_of = [(m, pset.models[m].rows) for m in pset.model_names]
    for cid in pset.clip_ids():
        yield cid, {m: words(rows[cid].hypothesis) for m, rows in rows_of if cid in rows}


def test_clip_hypotheses_by_columns_are_the_clip_by_clip_lookups(shared_reference_dir, tmp_path):
    pset = load_predictions(shared_reference_dir / "predictions")
    assert all(list(p.rows) == pset.clip_ids() for p in pset.models.values())  # the columns path is taken
    for got, want in ((pset, pset), (pset, pset)):
        assert list(refdis_compat_run._clip_hypotheses(got, hume_tokens)) == list(_clips_plainly(want, hume_tokens))
    # Files with holes and another order take the lookups; the same clips either way.
    rng = random.Random(2)
    for i, path in enumerate(sorted((shared_reference_dir / "predictions").glob("*.jsonl"))):
        lines = path.read_text(encoding="utf-8").splitlines()
        if i == 1:
            lines = [ln for ln in lines if rng.random() > 0.1]
        if i == 2:
            rng.shuffle(lines)
        (tmp_path / path.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    holes = load_predictions(tmp_path)
    assert list(refdis_compat_run._clip_hypotheses(holes, hume_tokens)) == list(_clips_plainly(holes, hume_tokens))


def test_run_hume_mines_what_the_string_miner_mines_clip_by_clip(shared_reference_dir):
    """The whole run on words is the per-clip miner on ``hume_normalize``'s strings, edit for edit."""
    pset = load_predictions(shared_reference_dir / "predictions")
    params = HumeParams(majority=0.75, include_middle=True)
    refs = pset.references()
    edits = []
    for cid in pset.clip_ids():
        hyps = {m: hume_normalize(p.rows[cid].hypothesis) for m, p in pset.models.items() if cid in p.rows}
        edits += mine_clip_hume(cid, hume_normalize(refs[cid]).split(), {m: hyps[m] for m in PANEL}, hyps, params)
    got = run_hume(pset, PANEL, params)
    assert len(edits) > 50
    assert [e.to_json() for e in got.edits] == [e.to_json() for e in edits]
    # and with a caller's own normalizer, split as given
    own = run_hume(pset, PANEL, params, normalize=hume_normalize)
    assert own.to_json() == got.to_json()


def test_views_shared_by_equal_hypotheses_mine_what_a_view_per_model_mines(shared_reference_dir, monkeypatch):
    """One view per distinct hypothesis of a clip (one matcher) gives the edits of a fresh view per model."""
    from asraudit.probes import refdis_compat
    from asraudit.probes.refdis_compat import mine_clip_tokens

    rng = random.Random(6)
    clips = []
    pset = load_predictions(shared_reference_dir / "predictions")
    refs = pset.references()
    for cid in pset.clip_ids():
        hyps = {m: hume_tokens(p.rows[cid].hypothesis) for m, p in pset.models.items()}
        for k in range(3):  # copies of some models' words, as variants of one model write them
            src = rng.choice(list(hyps))
            hyps[f"{src}~{k}"] = hyps[src] if rng.random() < 0.6 else tuple(hyps[src][1:])
        clips.append((cid, hume_tokens(refs[cid]), hyps))
    for _ in range(300):
        ref = tuple(rng.choice("abcdef") for _ in range(rng.randint(1, 12)))
        pool = [ref, ref[1:], ref[:-1], ref + ("x",), ("x",) + ref, tuple(w for w in ref if w != "a"), ()]
        clips.append((f"r{_}", ref, {f"m{i}": rng.choice(pool) for i in range(rng.randint(3, 9))}))

    def mined():
        out = []
        for cid, ref, hyps in clips:
            panel = {m: hyps[m] for m in list(hyps)[:4]}
            for params in (HumeParams(majority=0.75, include_middle=True), HumeParams(), HumeParams(min_ref_match=0.9)):
                out += [e.to_json() for e in mine_clip_tokens(cid, ref, panel, hyps, params)]
        return out

    shared = mined()
    monkeypatch.setattr(refdis_compat, "_clip_views", lambda ref: lambda hyp: _DiffView(ref, hyp))
    assert mined() == shared
    assert len(shared) > 100


# ------------------------------------------------------------ the JSONL loader (a block at a time)

_ROWS = [
    '{"audio_filepath": "a", "text": "one two", "pred_text": "one too"}',
    '{"audio_filepath": "b", "text": "x", "pred_text": "y"}',
    '{"audio_filepath": "c", "text": "x", "pred_text": "y", "duration": 1.5}',
    '{"audio_filepath": "d", "text": "x", "pred_text": "y", "duration": -1}',
    '{"audio_filepath": 7, "text": "x", "pred_text": "y"}',
    '{"audio_filepath": 7.5, "text": "x", "pred_text": "y"}',
    '{"audio_filepath": true, "text": "x", "pred_text": "y"}',
    '{"audio_filepath": "  ", "text": "x", "pred_text": "y"}',
    '{"audio_filepath": "e", "text": null, "pred_text": "y"}',
    '{"audio_filepath": "f", "text": "x", "pred_text": null}',
    '{"audio_filepath": "g", "text": "x", "pred_text": NaN}',
    '{"audio_filepath": "h", "text": "x", "pred_text": 3}',
    '{"id": "i", "reference": "x", "hypothesis": "y"}',
    '{"id": "j", "ref": "x", "hyp": "y", "extra": 1}',
    '{"audio_filepath": "k", "pred_text": "y"}',
    '  {"audio_filepath": "l", "text": "x", "pred_text": "y"}  \r',
    '{"audio_filepath": "m", "text": "x\u2028y", "pred_text": "y\u0085"}',
    '{"audio_filepath": "n", "text": "x", "pred_text": "y"} trailing',
    '{"audio_filepath": "o", "text": "x", "pred_text": ',
    '[1, 2]',
    '"a string"',
    '',
    '   ',
    '{"audio_filepath": "a", "text": "again", "pred_text": "dup"}',
    '{"audio_filepath": "p", "text": "x", "pred_text": "y"}x',  # one character after the object, no newline at
    '{"audio_filepath": "q", "text": "x", "pred_text": "y"}\t',  # the end of the file: read, then refused
]


def test_the_jsonl_block_loader_is_the_checked_rows(tmp_path):
    """Rows, order, skipped count, or the error raised (message, file and row): all as the generic path."""
    from asraudit.data import prediction_blocks, predictions
    from asraudit.errors import InputError

    def outcome(load, path):
        try:
            rows, skipped = load(path)
        except InputError as exc:
            return "error", str(exc), exc.row
        return [(k, type(p), p) for k, p in rows.items()], skipped

    rng = random.Random(7)
    kinds = set()
    for n in range(1500):
        lines = [rng.choice(_ROWS[:3] + _ROWS) for _ in range(rng.randint(0, 8))]
        text = "\n".join(lines) + rng.choice(["\n", "", "\r\n"])
        raw = text.encode("utf-8")
        if rng.random() < 0.1:
            raw = b"\xef\xbb\xbf" + raw  # a BOM, dropped on line 1 only
        if rng.random() < 0.05 and raw:
            at = rng.randrange(len(raw))
            raw = raw[:at] + b"\xff" + raw[at:]  # not UTF-8
        path = tmp_path / f"m{n}.jsonl"
        path.write_bytes(raw)
        want = outcome(lambda p: predictions._kept_rows(predictions._checked_rows(p, predictions._prediction), p), path)
        assert outcome(prediction_blocks.jsonl_predictions, path) == want, raw
        kinds.add(want[0] if want[0] == "error" else "rows")
    assert kinds == {"error", "rows"}


def _first_references_plainly(pset):
    first, differing = {}, set()
    for preds in pset.models.values():
        for cid, p in preds.rows.items():
            ref = first.setdefault(cid, p.reference)
            if ref != p.reference:
                differing.add(cid)
    return first, differing


def test_files_seen_before_are_skipped_by_the_first_references_pass():
    from pathlib import Path

    from asraudit.data.predictions import ModelPredictions, Prediction, PredictionSet

    rng = random.Random(9)
    skipped_some = False
    for _ in range(400):
        models = {}
        for m in range(rng.randint(1, 5)):
            rows = {}
            for c in rng.sample(range(6), rng.randint(0, 6)):
                ref = rng.choice(["a b", "a b", "a  b", "c", ""])
                rows[f"c{c}"] = Prediction(f"c{c}", "".join(list(ref)), "x", None, c + 1)  # equal, not the same
            models[f"m{m}"] = ModelPredictions(f"m{m}", Path(f"m{m}.jsonl"), rows)
        pset = PredictionSet(models)
        got, want = pset._first_references(), _first_references_plainly(pset)
        assert got == want and list(got[0]) == list(want[0])
        seen = {}
        for preds in models.values():
            for cid in preds.rows:
                seen.setdefault(cid, None)
        assert pset.clip_ids() == list(seen)  # one C-level pass, the same first-seen order
        skipped_some |= len(models) > 1 and not got[1]
    assert skipped_some


def _tally_plainly(edits):
    tally = {}
    for e in edits:
        for m, v in e.verdict.items():
            if v is None:
                continue
            counts = tally.setdefault(m, [0, 0])
            counts[0] += v == "ref"
            counts[1] += 1
    return tally


def test_accept_ref_counted_by_pairs_is_the_per_edit_tally():
    from asraudit.probes.refdis_compat import HumeEdit
    from asraudit.probes.refdis_compat_run import accept_ref_hume, wilson_196

    rng = random.Random(10)
    for _ in range(300):
        models = [f"m{i}" for i in range(rng.randint(1, 6))]
        edits = []
        for _ in range(rng.randint(0, 12)):
            names = rng.sample(models, rng.randint(0, len(models)))
            verdict = {m: rng.choice(["ref", "consensus", None, None]) for m in names}
            edits.append(HumeEdit("c", "delete", "start", ("a",), (0,), 3, 4, 0.5, verdict))
        want = {m: (k, n) for m, (k, n) in _tally_plainly(edits).items()}
        got = accept_ref_hume(edits)
        assert list(got) == [m for m, _ in sorted(want.items(), key=lambda item: -item[1][0] / item[1][1])]
        for m, (k, n) in want.items():
            rate, lo, hi = wilson_196(k, n)
            assert got[m] == {"rate": rate, "n_ref": k, "n_eligible": n, "lo": lo, "hi": hi}


def test_the_memoized_char_distance_is_char_distance():
    from asraudit.probes.refdis_compat import _char_distance_memo, char_distance

    rng = random.Random(11)
    for _ in range(3000):
        r = " ".join("".join(rng.choice("abc") for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(0, 3)))
        h = " ".join("".join(rng.choice("abx") for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(0, 3)))
        for _ in range(2):  # the second call is answered from the memo
            assert _char_distance_memo(r, h) == char_distance(r, h)
