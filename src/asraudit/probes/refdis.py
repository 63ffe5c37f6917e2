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
from typing import Callable, Iterable, Mapping, Sequence

from rapidfuzz.distance import Levenshtein

from asraudit.data.predictions import PredictionSet
from asraudit.errors import InputError
from asraudit.text.align import align

KINDS = ("delete", "insert", "substitute")
POSITIONS = ("start", "middle", "end")
VERDICTS = ("ref", "audio", "other", "ineligible")


@dataclass(frozen=True)
class MinerParams:
    """Knobs of the full miner: the one set of defaults every front end (CLI, audit, mechanism) starts from.

    ``metadata`` gives the range a spec checks (``asraudit.audit.spec`` maps a
    ``[refdis]`` table onto these fields)."""

    # the paper's; with 4 members all 4 must agree, with 5 it is 4: never a 2-2 split
    majority: float = field(default=0.8, metadata={"range": (0.0, 1.0)})
    # a single wrong reference word is a reference error
    min_run_len: int = field(default=1, metadata={"minimum": 1})
    # interior edits are most of VoxPopuli's errors; positions are reported, so boundary-only is one column away
    include_middle: bool = True
    # a model matching less than half the reference is not transcribing the clip and agrees with edits by accident
    min_ref_match: float = field(default=0.5, metadata={"range": (0.0, 1.0)})
    # a substitution within 30% character distance of the reference is spelling or spacing, not the audio
    min_consensus_cer: float = field(default=0.30, metadata={"range": (0.0, None)})
    # two agreeing models are too easily one shared bias
    min_panel: int = field(default=3, metadata={"minimum": 2})
    # a member is judged by edits mined without it, so its own vote never makes the edit it is judged on
    leave_one_out: bool = True

    def validate(self) -> None:
        if not 0 < self.majority <= 1:
            raise InputError(f"--majority must be in (0, 1], got {self.majority}")
        if self.min_run_len < 1:
            raise InputError(f"--min-run-len must be at least 1, got {self.min_run_len}")
        if not 0 <= self.min_ref_match <= 1:
            raise InputError(f"--min-ref-match must be in [0, 1], got {self.min_ref_match}")
        if self.min_consensus_cer < 0:
            raise InputError(f"--min-consensus-cer must be >= 0, got {self.min_consensus_cer}")
        if self.min_panel < 2:
            raise InputError(f"--min-panel must be at least 2, got {self.min_panel}")

    def threshold(self, n_panel: int) -> int:
        """Followers an edit needs; the 1e-9 keeps 0.8 x 5 from rounding up to 5."""
        return max(2, math.ceil(self.majority * n_panel - 1e-9))


# ---------------------------------------------------------------------- cells


class HypCells:
    """A hypothesis cut into 2n+1 cells against an n-token reference.

    Cell ``2g`` is gap g (words inserted before reference token g), cell
    ``2i+1`` is reference token i.  ``bounds[c]:bounds[c+1]`` is the slice of
    the hypothesis in cell c, so any stretch of cells maps to hypothesis text
    with one slice.  Built from one alignment; everything a probe asks of a
    model on a clip is read from here.
    """

    __slots__ = ("hyp", "bounds", "diff", "hits")

    def __init__(self, ref: Sequence[str], hyp: Sequence[str]):
        n = len(ref)
        self.hyp = tuple(hyp)
        gap_len = [0] * (n + 1)
        tok_len = [0] * n
        same = [False] * n
        for op in align(ref, self.hyp).ops:
            if op.kind == "insert":
                gap_len[op.ref_start] += op.hyp_len
            elif op.kind != "delete":
                equal = op.kind == "equal"
                for i in range(op.ref_start, op.ref_end):
                    tok_len[i] = 1
                    same[i] = equal
        bounds = [0] * (2 * n + 2)
        diff = [False] * (2 * n + 1)
        pos = 0
        for i in range(n):
            bounds[2 * i] = pos
            pos += gap_len[i]
            diff[2 * i] = gap_len[i] > 0
            bounds[2 * i + 1] = pos
            pos += tok_len[i]
            diff[2 * i + 1] = not same[i]
        bounds[2 * n] = pos
        pos += gap_len[n]
        diff[2 * n] = gap_len[n] > 0
        bounds[2 * n + 1] = pos
        if pos != len(self.hyp):
            raise AssertionError("alignment does not cover the hypothesis")
        self.bounds = bounds
        self.diff = diff
        self.hits = n - sum(diff[1::2])

    def text(self, lo: int, hi: int) -> tuple[str, ...]:
        """Hypothesis words in cells ``lo`` .. ``hi - 1``."""
        return self.hyp[self.bounds[lo]:self.bounds[hi]]

    def hyp_span(self, lo: int, hi: int) -> tuple[int, int]:
        """Hypothesis token indices covered by cells ``lo`` .. ``hi - 1``."""
        return self.bounds[lo], self.bounds[hi]

    def regions(self) -> list[tuple[int, int]]:
        """Maximal stretches of differing cells, as ``(first cell, last cell + 1)``."""
        out = []
        diff = self.diff
        c, n = 0, len(diff)
        while c < n:
            if diff[c]:
                lo = c
                while c < n and diff[c]:
                    c += 1
                out.append((lo, c))
            else:
                c += 1
        return out

    def region_groups(self) -> list[list[tuple[int, int]]]:
        """Regions joined where only an empty gap separates two differing tokens.

        The aligner reads "a surge" -> "search" as a substitution and a
        deletion with an untouched gap between them; the group keeps them
        together so the whole change can be proposed as one edit.
        """
        groups: list[list[tuple[int, int]]] = []
        for lo, hi in self.regions():
            if groups and groups[-1][-1][1] + 1 == lo and lo % 2 == 1:
                groups[-1].append((lo, hi))
            else:
                groups.append([(lo, hi)])
        return groups


EditKey = tuple[int, int, tuple[str, ...]]  # (ref start, ref end, audio rendering); start == end: insertion


def classify(start: int, end: int, audio: Sequence[str], n_ref: int) -> tuple[str, str]:
    """(kind, position) of an edit over reference tokens ``start:end``."""
    if start == end:
        kind = "insert"
        position = "start" if start == 0 else ("end" if start == n_ref else "middle")
        return kind, position
    kind = "substitute" if audio else "delete"
    position = "start" if start == 0 else ("end" if end == n_ref else "middle")
    return kind, position


def char_distance(ref: str, audio: str) -> float:
    """Character edit distance from ``ref`` to ``audio``, spaces ignored, over ``len(ref)``.

    Spaces are dropped so "lactuelle" vs "l actuelle" is 0: a spacing
    artifact, not a different word.
    """
    r = "".join(ref.split())
    a = "".join(audio.split())
    if not r:
        return 0.0 if not a else 1.0
    return Levenshtein.distance(r, a) / len(r)


def interior_cells(start: int, end: int) -> tuple[int, int]:
    """Cells an edit occupies: the gap of an insertion, or the span's tokens and inner gaps."""
    if start == end:
        return 2 * start, 2 * start + 1
    return 2 * start + 1, 2 * end


WINDOW = 2  # reference tokens read on each side of an edit when judging a model


@dataclass(frozen=True)
class Place:
    """Where an edit sits, and the two versions of the reference around it.

    ``lo:hi`` are the cells read from each hypothesis: the edit plus
    ``WINDOW`` reference tokens on each side (and the outer gap where the
    window reaches the start or end of the clip, where boundary insertions
    live).  ``ref_words`` is the reference over that stretch, ``audio_words``
    the same stretch with the edit applied, ``apart`` their word distance.
    """

    lo: int
    hi: int
    ref_words: tuple[str, ...]
    audio_words: tuple[str, ...]
    apart: int


def place_of(ref: Sequence[str], key: EditKey, window: int = WINDOW) -> Place:
    start, end, audio = key
    n = len(ref)
    ws, we = max(0, start - window), min(n, end + window)
    lo = 0 if ws == 0 else 2 * ws + 1
    hi = 2 * n + 1 if we == n else 2 * we
    ref_words = tuple(ref[ws:we])
    audio_words = tuple(ref[ws:start]) + tuple(audio) + tuple(ref[end:we])
    return Place(lo, hi, ref_words, audio_words, Levenshtein.distance(ref_words, audio_words))


def reading(cells: HypCells, place: Place) -> str:
    """Which version of the reference a hypothesis wrote at ``place``.

    ``audio`` when its words there are the audio version plus errors of its
    own (its distance to the reference version is exactly its distance to the
    audio version plus the edit), ``ref`` in the mirror case, ``other`` when
    neither explains it (a third reading).  Comparing words rather than
    alignment operations makes the answer independent of where an aligner
    happens to put a repeated word ("as as" against "as").
    """
    words = cells.text(place.lo, place.hi)
    to_ref = Levenshtein.distance(words, place.ref_words)
    to_audio = Levenshtein.distance(words, place.audio_words)
    if to_ref == to_audio + place.apart:
        return "audio"
    if to_audio == to_ref + place.apart:
        return "ref"
    return "other"


def text_at(cells: HypCells, key: EditKey) -> str:
    """The hypothesis words at the edit: its span and the gaps on both sides."""
    start, end, _ = key
    lo, hi = interior_cells(start, end)
    if start != end:
        lo, hi = lo - 1, hi + 1
    return " ".join(cells.text(lo, hi))


def verdict_of(cells: HypCells, key: EditKey, place: Place) -> tuple[str, str]:
    """(verdict, the model's words at that place) for an eligible model."""
    return reading(cells, place), text_at(cells, key)


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


@dataclass
class _Candidate:
    kind: str
    position: str
    lo: int
    hi: int
    proposers: set[str]
    voters: set[str]
    cer: float | None
    place: Place


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


MAX_JOIN = 4  # neighbouring regions joined into one proposal, at most


def _proposals(cells: HypCells) -> list[tuple[int, int]]:
    """Cell ranges a panel member proposes as edits.

    Each region alone, and runs of up to ``MAX_JOIN`` neighbouring regions of
    one group (plus the whole group): the member's own extra error next to a
    shared one must not hide the shared one, and a change the aligner split
    in two must still be proposable whole.  Votes decide among them.
    """
    out = []
    for group in cells.region_groups():
        k = len(group)
        for i in range(k):
            for j in range(i, min(k, i + MAX_JOIN)):
                out.append((group[i][0], group[j][1]))
        if k > MAX_JOIN:
            out.append((group[0][0], group[-1][1]))
    return out


def _candidates(ref, cells, members, params) -> dict[EditKey, _Candidate]:
    n = len(ref)
    proposers: dict[EditKey, set[str]] = {}
    for m in members:
        c = cells[m]
        for lo, hi in _proposals(c):
            key = canonical(ref, (lo // 2, hi // 2, c.text(lo, hi)))
            proposers.setdefault(key, set()).add(m)
    out: dict[EditKey, _Candidate] = {}
    for key, props in proposers.items():
        start, end, audio = key
        kind, position = classify(start, end, audio, n)
        if position == "middle" and not params.include_middle:
            continue
        if (len(audio) if kind == "insert" else end - start) < params.min_run_len:
            continue
        cer = None
        if kind != "insert":
            cer = char_distance(" ".join(ref[start:end]), " ".join(audio))
            if kind == "substitute" and cer < params.min_consensus_cer:
                continue  # spelling or spacing, not the audio
        place = place_of(ref, key)
        voters = {m for m in members if reading(cells[m], place) == "audio"}
        lo, hi = interior_cells(start, end)
        out[key] = _Candidate(kind, position, lo, hi, props, voters, cer, place)
    return out


def canonical(ref: Sequence[str], key: EditKey) -> EditKey:
    """Shift an insertion or deletion as far left as it goes without changing the result.

    Inserting "has" on either side of a "has" (or deleting either of two
    "the the") is one change; aligners place it on either side depending on
    the rest of the sentence.  One spelling per change lets votes add up and
    stops the same change being mined twice.
    """
    start, end, audio = key
    if start == end:
        while start > 0 and audio and audio[-1] == ref[start - 1]:
            audio = (ref[start - 1],) + audio[:-1]
            start -= 1
        return start, start, audio
    if not audio:
        while start > 0 and ref[start - 1] == ref[end - 1]:
            start, end = start - 1, end - 1
    return start, end, audio


def _conflict(a: EditKey, b: EditKey) -> bool:
    """Two edits that cannot both be applied: overlapping spans, or an insertion
    inside or touching a span (one change the aligner split in two)."""
    (s1, e1, _), (s2, e2, _) = a, b
    if s1 == e1 and s2 == e2:
        return s1 == s2
    if s1 == e1:
        return s2 <= s1 <= e2
    if s2 == e2:
        return s1 <= s2 <= e1
    return s1 < e2 and s2 < e1


def _select(cands: dict[EditKey, _Candidate], panel: set[str], threshold: int) -> list[EditKey]:
    """Edits this panel mines: enough followers, proposed by a member, no conflicts.

    Greedy: most followers first, then the longer edit, then left to right.
    """
    passing = []
    for key, c in cands.items():
        votes = len(c.voters & panel)
        if votes >= threshold and not c.proposers.isdisjoint(panel):
            passing.append((-votes, -(c.hi - c.lo), c.lo, key))
    passing.sort()
    out: list[EditKey] = []
    for *_, key in passing:
        if not any(_conflict(key, taken) for taken in out):
            out.append(key)
    return out


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
    cells = {m: HypCells(ref, h) for m, h in clip.hyps.items()}
    need = params.min_ref_match * n
    eligible = {m: c.hits >= need for m, c in cells.items()}
    members = [m for m in panel if m in cells and eligible[m]]
    if len(members) < params.min_panel:
        return ClipMining([], "small_panel", cells if keep_cells else {})
    cands = _candidates(ref, cells, members, params)

    # label None = the whole panel; a member's name = the panel without it.
    panels: list[tuple[str | None, list[str]]] = [(None, members)]
    if params.leave_one_out and len(members) - 1 >= params.min_panel:
        panels += [(m, [x for x in members if x != m]) for m in members]
    chosen: dict[EditKey, set[str | None]] = {}
    for label, group in panels:
        for key in _select(cands, set(group), params.threshold(len(group))):
            chosen.setdefault(key, set()).add(label)

    scored_models = [m for m in (scored if scored is not None else cells) if m in cells]
    member_set = set(members)
    threshold = params.threshold(len(members))
    edits: list[Edit] = []
    for key in sorted(chosen, key=lambda k: (cands[k].lo, cands[k].hi, k[2])):
        labels = chosen[key]
        c = cands[key]
        start, end, audio = key
        ref_span = ref[start:end]
        edit = Edit(
            clip.clip_id, c.kind, c.position, start, end, " ".join(ref_span), " ".join(audio),
            len(c.voters), len(members), threshold, tuple(m for m in members if m in c.voters),
            None if c.cer is None else round(c.cer, 3),
            in_full_panel=None in labels,
            loo_for=tuple(m for m in members if m in labels),
        )
        for m, mc in cells.items():
            edit.texts[m] = text_at(mc, key)
        for m in scored_models:
            judged_by = m if (params.leave_one_out and m in member_set) else None
            if judged_by not in labels:
                continue  # not mined by the panel this model is judged against
            edit.verdicts[m] = reading(cells[m], c.place) if eligible[m] else "ineligible"
        edits.append(edit)
    return ClipMining(edits, "mined", cells if keep_cells else {})


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


def mine(
    clips: Iterable[ClipInput],
    panel: Sequence[str],
    params: MinerParams = MinerParams(),
    scored: Sequence[str] | None = None,
) -> MiningResult:
    """Mine every clip; ``scored`` models get verdicts (default: every model seen)."""
    params.validate()
    panel = list(panel)
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
        for m in clip.hyps:
            seen_models.setdefault(m, None)
        result = mine_clip(clip, panel, params, scored)
        status[result.status] += 1
        edits.extend(result.edits)
    assign_edit_ids(edits)
    models = list(scored) if scored is not None else list(seen_models)
    return MiningResult(panel, models, params, edits, n, status, refs)


def prepare_clips(
    pset: PredictionSet,
    normalize: Callable[[str], str],
    models: Sequence[str] | None = None,
) -> list[ClipInput]:
    """Normalized, tokenized clips of a prediction set (one reference per clip, or InputError)."""
    names = list(models) if models is not None else pset.model_names
    pset.require_models(names)
    refs = pset.references()
    out = []
    for cid in pset.clip_ids():
        hyps = {
            m: tuple(normalize(pset.models[m].rows[cid].hypothesis).split())
            for m in names
            if cid in pset.models[m]
        }
        if hyps:
            out.append(ClipInput(cid, tuple(normalize(refs[cid]).split()), hyps))
    return out
