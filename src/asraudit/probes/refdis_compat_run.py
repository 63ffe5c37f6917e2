"""The paper's released accept-ref and the whole ``--compat hume`` run (mining in ``refdis_compat``).

Kept apart from the miner so each module stays readable; together they
reproduce the reference release's numbers exactly (its Wilson with z = 1.96,
its JSON layout).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter
from typing import Callable, Iterator, Sequence

from asraudit.bulk import builds_in_bulk
from asraudit.data.predictions import PredictionSet
from asraudit.errors import InputError
from asraudit.probes.refdis_compat import HUME_MIN_PANEL_CLI, HumeEdit, HumeParams, hume_tokens, mine_clip_tokens
from asraudit.probes.refdis_params import distinct_panel


def wilson_196(k: int, n: int) -> tuple[float, float, float]:
    """(rate, low, high) with z = 1.96, as the release computes them; (0, 0, 0) for n = 0."""
    if n == 0:
        return 0.0, 0.0, 0.0
    z2 = 1.96 * 1.96
    p = k / n
    scale = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / scale
    half = 1.96 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / scale
    return p, max(0.0, centre - half), min(1.0, centre + half)


def accept_ref_hume(edits: Sequence[HumeEdit]) -> dict[str, dict]:
    """Per model: rate, n_ref, n_eligible, lo, hi; highest rate first (ties keep first-seen order).

    A model never eligible on any edit is absent, as in the release.
    """
    # Every (model, verdict) pair counted in one C-level pass; its first-seen order gives each model's first
    # eligible edit, the order the per-edit tally kept (``_tally_plainly`` in the tests is that tally).
    pairs = Counter(chain.from_iterable(e.verdict.items() for e in edits))
    tally: dict[str, list[int]] = {}
    for (m, v), n in pairs.items():
        if v is None:
            continue
        counts = tally.setdefault(m, [0, 0])
        if v == "ref":
            counts[0] += n
        counts[1] += n
    out = {}
    for m, (k, n) in tally.items():
        rate, lo, hi = wilson_196(k, n)
        # lo/hi, not asraudit's "<field>_interval" objects: this is the release's layout, reproduced on purpose
        # so its consumers read our --compat hume output unchanged.
        out[m] = {"rate": rate, "n_ref": k, "n_eligible": n, "lo": lo, "hi": hi}
    return dict(sorted(out.items(), key=lambda item: -item[1]["rate"]))


# ------------------------------------------------------------------- the run


@dataclass
class HumeResult:
    n_clips: int
    panel: list[str]
    params: HumeParams
    edits: list[HumeEdit]
    accept_ref: dict[str, dict]

    def to_json(self) -> dict:
        """The release's ``--out`` layout, plus a ``clip`` on every edit.

        Left as the release writes it (intervals as ``lo``/``hi``, NaN as it
        comes) on purpose, unlike every other JSON of asraudit: this output
        exists to be compared with the paper's files."""
        params: dict[str, object] = {
            "majority": self.params.majority,
            "min_run_len": self.params.min_run_len,
            "include_middle": self.params.include_middle,
        }
        # The release cannot change these; record them only when someone did.
        for name in ("min_ref_match", "min_consensus_cer", "min_panel"):
            value = getattr(self.params, name)
            if value != getattr(HumeParams, name):
                params[name] = value
        return {
            "n_clips": self.n_clips,
            "panel": list(self.panel),
            "n_edits": len(self.edits),
            "params": params,
            "accept_ref": self.accept_ref,
            "edits": [e.to_json() for e in self.edits],
        }


@builds_in_bulk
def run_hume(
    pset: PredictionSet,
    panel: Sequence[str],
    params: HumeParams = HumeParams(),
    models: Sequence[str] | None = None,
    normalize: Callable[[str], str] | None = None,
) -> HumeResult:
    """Mine every clip of ``pset`` with the release's rules.

    Clips are visited in first-seen order over the prediction files (files in
    name order), which is the release's order; a clip is skipped when fewer
    than ``min_panel`` panel members ran it.  ``models`` restricts the models
    that get verdicts (default: all).  References that differ between files
    are an error here; the release warned and kept the first file's.
    """
    params.validate()
    panel = distinct_panel(panel)
    pset.require_models(panel)
    if len(panel) < max(HUME_MIN_PANEL_CLI, params.min_panel):
        raise InputError(
            f"--compat hume needs at least {max(HUME_MIN_PANEL_CLI, params.min_panel)} panel models, "
            f"got {len(panel)}"
        )
    scored = list(models) if models is not None else pset.model_names
    pset.require_models(scored)
    _refuse_long_clips(pset, [m for m in pset.model_names if m in set(panel) or m in set(scored)])
    # Each distinct raw string normalized and split once (a reference recurs in every file); by default
    # through ``hume_tokens``, the words of ``hume_normalize``'s string without joining and splitting them.
    split = hume_tokens if normalize is None else (lambda text: tuple(normalize(text).split()))
    memo: dict[str, tuple[str, ...]] = {}

    def words(text: str) -> tuple[str, ...]:
        out = memo.get(text)
        if out is None:
            out = memo[text] = split(text)
        return out

    refs = pset.references()
    scored_set = set(scored)
    every_model = scored_set.issuperset(pset.model_names)  # then a clip's scored hypotheses are all of them
    edits: list[HumeEdit] = []
    for cid, hyps in _clip_hypotheses(pset, words):
        panel_hyps = {m: hyps[m] for m in panel if m in hyps}
        if len(panel_hyps) < params.min_panel:
            continue
        model_hyps = hyps if every_model else {m: h for m, h in hyps.items() if m in scored_set}
        edits += mine_clip_tokens(cid, words(refs[cid]), panel_hyps, model_hyps, params)
    return HumeResult(len(refs), panel, params, edits, accept_ref_hume(edits))


_HYPOTHESIS = attrgetter("hypothesis")
_REFERENCE = attrgetter("reference")

# The release aligns each clip with difflib's SequenceMatcher (autojunk off), and so does ``--compat hume``: each
# matching block is a search over (reference words) x (the hypothesis's occurrences of each), and a clip has a
# block per error, so a clip's time grows with the square to the cube of its words.  Measured (4 models, one
# error every 10 words): 5,000 words 52 s, 10,000 words 504 s; a 300,000-word clip would take weeks.  The
# full miner aligns such a clip in under a second.  Longer clips are refused before any is mined.
HUME_MAX_WORDS = 5_000


def _refuse_long_clips(pset: PredictionSet, models: Sequence[str]) -> None:
    """A clip whose reference or hypothesis (of a model that is aligned) has over ``HUME_MAX_WORDS`` words, as one
    line naming its file and row.  Only texts longer than 2 x the limit in characters can hold that many words
    (a word and a space each), so a leaderboard's rows are measured by ``len`` in C loops and none is split."""
    for m in models:
        rows = pset.models[m].rows
        if not rows:
            continue
        for what, get in (("reference", _REFERENCE), ("hypothesis", _HYPOTHESIS)):
            if max(map(len, map(get, rows.values()))) < 2 * HUME_MAX_WORDS:
                continue
            for p in rows.values():
                text = get(p)
                if len(text) >= 2 * HUME_MAX_WORDS and (n := len(text.split())) > HUME_MAX_WORDS:
                    raise InputError(
                        f"clip {p.clip_id!r}: its {what} has {n:,} words; --compat hume aligns a clip as the "
                        f"release does (difflib), in time growing with the square to the cube of its words, so "
                        f"clips over {HUME_MAX_WORDS:,} words are refused: split long-form clips into segments, "
                        f"or mine without --compat", pset.models[m].source, p.row)


def _clip_hypotheses(pset: PredictionSet, words: Callable[[str], tuple[str, ...]]) -> Iterator[tuple[str, dict]]:
    """(clip id, model -> its words) for every clip in ``clip_ids`` order, models in file order.

    Where every model ran every clip in one order (a leaderboard's files, usually), each model's hypotheses
    are one pass over its rows and each clip's models one ``zip`` of those columns; otherwise two lookups per
    clip and model.  The same pairs either way (``words`` is memoized and does not depend on call order)."""
    names = pset.model_names
    rows_of = [pset.models[m].rows for m in names]  # looked up once, not per clip and model
    order = pset.clip_ids()
    if names and all(len(rows) == len(order) and list(rows) == order for rows in rows_of):
        columns = [list(map(words, map(_HYPOTHESIS, rows.values()))) for rows in rows_of]
        for cid, *hyps in zip(order, *columns):
            yield cid, dict(zip(names, hyps))
        return
    named = list(zip(names, rows_of))
    for cid in order:
        yield cid, {m: words(rows[cid].hypothesis) for m, rows in named if cid in rows}
