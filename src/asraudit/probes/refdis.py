"""Reference-error mining: where a panel of models agrees the reference is wrong.

Some benchmark references are not what was said: VoxPopuli's come from the
parliament's written record, which drops hesitations, adds the formal address
and tidies wording.  Where the reference and the audio disagree, a model that
transcribes the audio writes the audio's version; a model that writes the
reference's version has learned the benchmark's text.  No corrected reference
is needed to find such places: independent models that agree *with each
other* against the reference are evidence about the audio.

Per clip, every model's normalized hypothesis is aligned once to the
normalized reference (minimum edit distance, :func:`asraudit.text.align.align`)
and cut into 2n+1 *cells*: gap 0, token 0, gap 1, ..., token n-1, gap n.  A
gap cell holds the words inserted there, a token cell the word written for
that reference token (nothing if it was deleted).  A maximal stretch of cells
that differ from the reference is one *edit* of that model: a reference span
``r`` (possibly empty) and what the model wrote instead, ``a``.

* **delete**: ``a`` is empty (the reference has words that were not said);
* **insert**: ``r`` is empty (the reference omits words that were said), at
  the start, the end, or between two reference tokens (a voter must write the
  words between those same two tokens);
* **substitute**: both non-empty; dropped when ``a`` is character-wise close
  to ``r`` (``min_consensus_cer``), since that is spelling or spacing.

Each panel member proposes its edits (alone, and joined with neighbouring
ones, since an aligner may split one change in two), shifted to one canonical
place (inserting "has" next to a "has" is one change wherever it is written).
A proposal becomes a candidate when at least
``threshold = max(2, ceil(majority x panel))`` eligible panel members
*follow* it.  Following is read from words, not from alignment operations:
around the edit (``WINDOW`` reference tokens each side) there are two versions
of the reference, as written and with the edit applied, and a model follows
the edit when its words there are the edited version plus errors of its own,
i.e. its distance to the written version is its distance to the edited one
plus the edit's size.  That makes a vote independent of where the aligner put
a repeated word, and keeps a member's own nearby error from costing its vote.
For a substitution it still means the renderings agree: a member that wrote a
different word there follows neither version.  Conflicting candidates are
resolved greedily, most votes first, then the longer one.

Every model then gets a verdict on every edit, read the same way: ``audio``
(its words are the edited version plus its own errors), ``ref`` (the written
version plus its own errors), ``other`` (neither: a third reading) or
``ineligible`` (it matched less than ``min_ref_match`` of the reference on the
clip).  A panel member is scored
leave-one-out: its verdicts come from the edits the panel mines *without it*,
so its own vote never makes the edit it is judged on.  That matters: an edit
a benchmark-optimized panel member refuses is one the full panel may never
find, and only the panel without it can charge it for that.  The price is a
smaller panel: with four members, three must agree, and errors shared by
three models of one family become "edits" for the fourth.

Defaults, and why:

* ``majority = 0.8``: the paper's; with 4 members all 4 must agree, with 5 it
  is 4.  Never a 2-2 split.
* ``min_run_len = 1``: a single wrong reference word is a reference error.
* ``include_middle = True``: interior edits are most of VoxPopuli's errors.
  Requiring the same rendering, in the same place, from the panel makes them
  usable; positions are reported, so the paper's boundary-only view stays
  one column away (``--boundary-only`` restores it).
* ``min_ref_match = 0.5``: a model that matched less than half of the
  reference is not transcribing this clip (empty, hallucinated, wrong
  language), and agrees with any edit by accident.
* ``min_consensus_cer = 0.30``: a substitution within 30% character distance
  of the reference is spelling, spacing or normalization, not the audio.
* ``min_panel = 3``: two agreeing models are too easily one shared bias.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter
from typing import Callable, Iterable, Mapping, Sequence

from asraudit.bulk import builds_in_bulk
from asraudit.data.predictions import PredictionSet
from asraudit.errors import InputError
from asraudit.probes.refdis_cells import EditKey, HypCells, compiled_cells, reading_of
from asraudit.probes.refdis_params import MinerParams, distinct_panel
from asraudit.probes.refdis_votes import candidates, select

KINDS = ("delete", "insert", "substitute")
POSITIONS = ("start", "middle", "end")
VERDICTS = ("ref", "audio", "other", "ineligible")


# ---------------------------------------------------------------------- edits


@dataclass
class Edit:
    """One place where the reference is (by the panel's account) wrong.

    ``ref_start:ref_end`` index the clip's normalized reference tokens.
    ``votes`` counts eligible panel members that follow the edit out of
    ``n_panel``; ``in_full_panel`` says whether the whole panel mined it and
    ``loo_for`` lists the panel members whose leave-one-out panel did.
    ``verdicts`` holds the models scored on this edit; ``texts`` every model's
    words at that place.
    """

    clip_id: str
    kind: str
    position: str
    ref_start: int
    ref_end: int
    r: str
    a: str
    votes: int
    n_panel: int
    threshold: int
    voters: tuple[str, ...]
    consensus_cer: float | None
    in_full_panel: bool = True
    loo_for: tuple[str, ...] = ()
    verdicts: dict[str, str] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    source: str = "panel"  # "panel" (mined) or "corrected" (diff of corrected references)
    edit_id: str = ""

    @property
    def key(self) -> EditKey:
        return self.ref_start, self.ref_end, tuple(self.a.split())

    def to_json(self) -> dict:
        return {
            "edit_id": self.edit_id,
            "clip": self.clip_id,
            "kind": self.kind,
            "position": self.position,
            "ref_start": self.ref_start,
            "ref_end": self.ref_end,
            "r": self.r,
            "a": self.a,
            "votes": self.votes,
            "n_panel": self.n_panel,
            "threshold": self.threshold,
            "voters": list(self.voters),
            "consensus_cer": self.consensus_cer,
            "in_full_panel": self.in_full_panel,
            "loo_for": list(self.loo_for),
            "source": self.source,
            "verdicts": dict(self.verdicts),
            "texts": dict(self.texts),
        }


@dataclass(frozen=True)
class ClipInput:
    """One clip, normalized and tokenized: the reference and each model that ran it."""

    clip_id: str
    ref: tuple[str, ...]
    hyps: Mapping[str, tuple[str, ...]]


@dataclass
class ClipMining:
    edits: list[Edit]
    status: str  # "mined", "empty_reference" or "small_panel"
    cells: dict[str, HypCells] = field(default_factory=dict, repr=False)


def mine_clip(
    clip: ClipInput,
    panel: Sequence[str],
    params: MinerParams = MinerParams(),
    scored: Sequence[str] | None = None,
    keep_cells: bool = False,
) -> ClipMining:
    """Mine one clip and score every model in ``scored`` (default: all that ran it).

    One alignment per model, reused for votes, verdicts and texts, so the
    work per clip grows linearly with the number of models.
    """
    ref = clip.ref
    n = len(ref)
    if n == 0:
        return ClipMining([], "empty_reference")
    hyps = clip.hyps
    need = params.min_ref_match * n
    # The panel's cells first: the other models' are aligned only when the panel chose an edit here (about
    # half the clips of a leaderboard) or the caller keeps them.
    # id of a hypothesis -> its cells (cells depend on the words only: one object per distinct hypothesis object;
    # prepare_clips makes equal hypotheses one object)
    made: dict[int, HypCells] = {}
    panel_cells: dict[str, HypCells] = {}
    for m in panel:
        h = hyps.get(m)
        if h is not None:
            c = made.get(id(h))
            if c is None:
                c = made[id(h)] = HypCells(ref, h)
            panel_cells[m] = c
    members = [m for m in panel if m in panel_cells and panel_cells[m].hits >= need]
    if len(members) < params.min_panel:
        return ClipMining([], "small_panel", _all_cells(clip, panel_cells) if keep_cells else {})
    # label None = the whole panel; a member's name = the panel without it (one member fewer: one threshold).
    threshold = params.threshold(len(members))
    loo = params.leave_one_out and len(members) - 1 >= params.min_panel
    loo_threshold = params.threshold(len(members) - 1) if loo else threshold
    cands = candidates(ref, panel_cells, members, params, min_votes=min(threshold, loo_threshold))
    chosen: dict[EditKey, set[str | None]] = {}
    member_set = set(members)
    if cands:  # no panel selects from none; the panels' sets are made only here
        panels: list[tuple[str | None, set[str], int]] = [(None, member_set, threshold)]
        if loo:
            panels += [(m, member_set - {m}, loo_threshold) for m in members]
        for label, group, at_least in panels:
            for key in select(cands, group, at_least):
                chosen.setdefault(key, set()).add(label)

    if not chosen:
        return ClipMining([], "mined", _all_cells(clip, panel_cells) if keep_cells else {})
    # Models that wrote the same words share one cells object: each edit's text and verdict is read once per
    # distinct object (``uniq``), and each model's entry is its object's (``slots``: its place in ``uniq``).
    cells, uniq, slots = _clip_cells(clip, made)
    names = list(cells)
    slot_of = dict(zip(names, slots))
    # Each scored model's place in ``uniq`` and the panel it is judged against (None: the whole panel; a panel
    # member, leave-one-out: the panel without it), worked out once per clip rather than once per edit.
    judged_names = [m for m in (scored if scored is not None else names) if m in slot_of]
    judged_slots = list(map(slot_of.__getitem__, judged_names))
    judged_by = [m if m in member_set else None for m in judged_names] if params.leave_one_out else \
        [None] * len(judged_names)
    judges = set(judged_by)
    eligible = [mc.hits >= need for mc in uniq]
    fast = compiled_cells()
    if fast is not None:  # compiled: each edit's texts and verdicts of every cells object in one call each
        uniq_hyps, uniq_bounds = [mc.hyp for mc in uniq], [mc.bounds for mc in uniq]
    edits: list[Edit] = []
    for key in sorted(chosen, key=lambda k: (cands[k].lo, cands[k].hi, k[2])):
        labels = chosen[key]
        c = cands[key]
        start, end, audio = key
        ref_span = ref[start:end]
        edit = Edit(
            clip.clip_id, c.kind, c.position, start, end, " ".join(ref_span), " ".join(audio),
            len(c.voters), len(members), threshold, tuple(filter(c.voters.__contains__, members)),
            None if c.cer is None else round(c.cer, 3),
            in_full_panel=None in labels,
            loo_for=tuple(filter(labels.__contains__, members)),
        )
        # ``text_at(mc, key)`` is the words in cells 2 * start .. 2 * end (an insertion's gap, or the span with
        # the gaps on both sides): the slice read here directly, once per edit and cells object
        lo_t, hi_t = 2 * start, 2 * end + 1
        if fast is not None:
            said = fast.texts(uniq_hyps, uniq_bounds, lo_t, hi_t)
        else:
            said = [" ".join(mc.text(lo_t, hi_t)) for mc in uniq]
        edit.texts = dict(zip(names, map(said.__getitem__, slots)))
        place = c.place
        # Most models write the same words at an edit: one verdict per cells object, one reading per words.
        if judges <= labels:  # every scored model judged by a panel that mined the edit: most edits
            names_here, slots_here = judged_names, judged_slots
        else:
            here = [(m, k) for m, k, by in zip(judged_names, judged_slots, judged_by) if by in labels]
            names_here, slots_here = [m for m, _ in here], [k for _, k in here]
        if fast is not None:  # every cells object's verdict (a reading is pure: those no model here needs too)
            read_all = fast.verdicts(uniq_hyps, uniq_bounds, eligible, place.lo, place.hi, place.ref_words,
                                     place.audio_words, place.apart)
            edit.verdicts = dict(zip(names_here, map(read_all.__getitem__, slots_here)))
            edits.append(edit)
            continue
        verdict_of: dict[int, str] = {}
        read: dict[tuple[str, ...], str] = {}
        for k in slots_here:
            if k in verdict_of:
                continue
            if not eligible[k]:
                verdict_of[k] = "ineligible"
                continue
            words = uniq[k].text(place.lo, place.hi)
            verdict = read.get(words)
            if verdict is None:
                verdict = read[words] = reading_of(words, place)
            verdict_of[k] = verdict
        edit.verdicts = dict(zip(names_here, map(verdict_of.__getitem__, slots_here)))
        edits.append(edit)
    return ClipMining(edits, "mined", cells if keep_cells else {})


def plain_edit(row: dict) -> dict:
    """``report.summary.to_plain`` of one ``Edit.to_json()``, without walking it.

    Its values are strings, ints, bools, None, lists of strings and
    string-keyed dicts of strings, which to_plain returns as they are; the
    one float, ``consensus_cer``, a rounded share of characters, is finite,
    and would be null if it were not.  A leaderboard run writes tens of
    thousands of edits with 40 verdicts and texts each: walking them was a
    tenth of the full miner's CPU.  A test pins this to to_plain."""
    cer = row["consensus_cer"]
    if cer is not None and not math.isfinite(cer):
        row = {**row, "consensus_cer": None}
    return row


def _all_cells(clip: ClipInput, made: dict[str, HypCells]) -> dict[str, HypCells]:
    """Every model's cells on the clip, in the clip's model order, reusing those already made.

    Models that wrote the same words share one cells object (cells depend on the reference and the words
    only): on a leaderboard a third or more of the hypotheses on a clip repeat another model's (37% of the
    non-reference ones in the VoxPopuli-150 predictions of five models)."""
    return _clip_cells(clip, {id(c.hyp): c for c in made.values()})[0]


def _clip_cells(clip: ClipInput, made: dict[int, HypCells]) -> tuple[dict[str, HypCells], list[HypCells], list[int]]:
    """``_all_cells`` from ``made`` (id of a hypothesis -> its cells, filled in here), with the distinct cells
    objects in order of first use and each model's place among them (in the clip's model order).

    Hypotheses are told apart by identity (prepare_clips makes equal ones one object; equal ones that are
    not get cells each, equal too): one pass in Python over the distinct ones, the models mapped in C."""
    hyps = clip.hyps
    ids = list(map(id, hyps.values()))
    first = dict(zip(ids, hyps.values()))  # id -> hypothesis, in order of first use
    uniq: list[HypCells] = []
    for key, h in first.items():
        c = made.get(key)
        if c is None:
            c = made[key] = HypCells(clip.ref, h)
        uniq.append(c)
    at = dict(zip(first, range(len(uniq))))
    slots = list(map(at.__getitem__, ids))
    return dict(zip(hyps, map(uniq.__getitem__, slots))), uniq, slots


# ---------------------------------------------------------------- whole runs


@dataclass
class MiningResult:
    panel: list[str]
    models: list[str]
    params: MinerParams
    edits: list[Edit]
    n_clips: int
    status: dict[str, int]
    refs: dict[str, tuple[str, ...]] = field(repr=False, default_factory=dict)

    def full_panel_edits(self) -> list[Edit]:
        """The edits the whole panel mined: what a corrected benchmark applies."""
        return [e for e in self.edits if e.in_full_panel]


def assign_edit_ids(edits: Iterable[Edit]) -> None:
    """Stable ids ``clip@start-end`` (``#k`` appended to repeats of the same span)."""
    seen: dict[str, int] = {}
    for e in edits:
        base = f"{e.clip_id}@{e.ref_start}-{e.ref_end}"
        k = seen.get(base, 0)
        seen[base] = k + 1
        e.edit_id = base if k == 0 else f"{base}#{k}"


@builds_in_bulk
def mine(
    clips: Iterable[ClipInput],
    panel: Sequence[str],
    params: MinerParams = MinerParams(),
    scored: Sequence[str] | None = None,
) -> MiningResult:
    """Mine every clip; ``scored`` models get verdicts (default: every model seen)."""
    params.validate()
    panel = distinct_panel(panel)
    if len(panel) < params.min_panel:
        raise InputError(f"the panel needs at least {params.min_panel} models, got {len(panel)}")
    status = {"mined": 0, "empty_reference": 0, "small_panel": 0}
    edits: list[Edit] = []
    refs: dict[str, tuple[str, ...]] = {}
    seen_models: dict[str, None] = {}
    n = 0
    for clip in clips:
        n += 1
        refs[clip.clip_id] = clip.ref
        if scored is None:  # the models, in order of first appearance (a model per clip and model, in C)
            seen_models.update(dict.fromkeys(clip.hyps))
        result = mine_clip(clip, panel, params, scored)
        status[result.status] += 1
        edits.extend(result.edits)
    assign_edit_ids(edits)
    models = list(scored) if scored is not None else list(seen_models)
    return MiningResult(panel, models, params, edits, n, status, refs)


@builds_in_bulk
def prepare_clips(
    pset: PredictionSet,
    normalize: Callable[[str], str],
    models: Sequence[str] | None = None,
) -> list[ClipInput]:
    """Normalized, tokenized clips of a prediction set (one reference per clip, or InputError)."""
    names = list(models) if models is not None else pset.model_names
    pset.require_models(names)
    refs = pset.references()
    rows_of = [(m, pset.models[m].rows) for m in names]  # looked up once, not per clip and model
    # Each distinct raw string normalized and split once: a reference recurs in every model's file, and
    # many hypotheses recur too (the same words from several models or versions of one).
    tokens: dict[str, tuple[str, ...]] = {}
    # ``tuple(normalize(text).split())``, by the normalizer's own token path where it has one (text/normalize.py)
    words_of = getattr(normalize, "tokens", None) or (lambda text: tuple(normalize(text).split()))
    # Equal token tuples (from different raw texts: "Hello." and "hello") are one object, so the miner and the
    # WER cost can tell equal hypotheses apart from different ones by identity, without hashing their words.
    one_of: dict[tuple[str, ...], tuple[str, ...]] = {}

    def split(text: str) -> tuple[str, ...]:
        words = words_of(text)
        return one_of.setdefault(words, words)

    def tokenized(text: str) -> tuple[str, ...]:
        out = tokens.get(text)
        if out is None:
            out = tokens[text] = split(text)
        return out

    by_columns = _clips_by_columns(refs, names, rows_of, tokens, words_of, one_of)
    if by_columns is not None:
        return by_columns
    clips = []
    for cid in refs:  # every clip, in clip_ids() order
        hyps = {m: tokenized(rows[cid].hypothesis) for m, rows in rows_of if cid in rows}
        if hyps:
            clips.append(ClipInput(cid, tokenized(refs[cid]), hyps))
    return clips


_HYPOTHESIS = attrgetter("hypothesis")


def _clips_by_columns(refs: dict[str, str], names: list[str], rows_of: list, tokens: dict[str, tuple[str, ...]],
                      words_of: Callable[[str], tuple[str, ...]], one_of: dict) -> list[ClipInput] | None:
    """``prepare_clips``'s clips where every model ran every clip, in the clips' order (a leaderboard's files,
    usually), else None.

    Then each model's hypotheses are one pass over its rows, each distinct text (``tokens``: text -> its
    tokens, filled in) is split once (``words_of``, equal tuples made one by ``one_of``, as ``prepare_clips``'s
    ``split`` does), and each column is mapped to tokens in C: the clips the clip-by-clip
    lookups build (the same models in the same order, the same token tuples: the normalizer's output does not
    depend on the order it is called in), without a dictionary lookup and a Python call per clip and model."""
    order = list(refs)
    if not names or not all(len(rows) == len(order) and list(rows) == order for _, rows in rows_of):
        return None
    texts = [list(map(_HYPOTHESIS, rows.values())) for _, rows in rows_of]
    ref_texts = list(refs.values())
    new = list(dict.fromkeys(chain(*texts, ref_texts)))
    if tokens:  # texts split before (prepare_clips calls this first, with none)
        new = [text for text in new if text not in tokens]
    words = list(map(words_of, new))
    tokens.update(zip(new, map(one_of.setdefault, words, words)))
    columns = [list(map(tokens.__getitem__, column)) for column in texts]
    return [ClipInput(cid, ref, dict(zip(names, hyps)))
            for cid, ref, *hyps in zip(order, map(tokens.__getitem__, ref_texts), *columns)]
