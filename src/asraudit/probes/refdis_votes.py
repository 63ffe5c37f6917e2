"""Votes: the panel's proposals, the candidates they follow, and the conflict-free set the panel mines.

``probes.refdis.mine_clip`` calls :func:`candidates` once per clip and
:func:`select` once per panel (the whole panel, and each leave-one-out
panel); the module docstring of ``probes.refdis`` says why a proposal is
joined with its neighbours and moved to one canonical place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from asraudit.probes.refdis_cells import (
    WINDOW,
    EditKey,
    HypCells,
    Place,
    char_distance,
    compiled_cells,
    interior_cells,
    place_of,
    reading_of,
)
from asraudit.probes.refdis_params import MinerParams


@dataclass
class Candidate:
    kind: str
    position: str
    lo: int
    hi: int
    proposers: set[str]
    voters: set[str]
    cer: float | None
    place: Place


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


def candidates(ref, cells, members, params: "MinerParams", min_votes: int = 0) -> dict[EditKey, Candidate]:
    """The edits ``members`` propose that pass the params' filters, each with the members that follow it.

    ``min_votes``: the fewest followers any panel the caller selects with needs (``select``'s threshold);
    a proposal that cannot reach it is left out, and its reading stops at the first non-follower too many.
    Those readings are most of the work (one per member per proposal, and most proposals are one
    member's own error), and the members that did not propose it are read first, as the likeliest
    to refuse it.  What ``select`` takes from the rest is unchanged: it never takes one below ``min_votes``."""
    n = len(ref)
    words_of = {}  # member -> (hypothesis, cell bounds): its words in cells lo..hi are hyp[bounds[lo]:bounds[hi]]
    proposers: dict[EditKey, set[str]] = {}
    fast = compiled_cells()
    ref_words = ref if type(ref) is tuple else tuple(ref)
    for m in members:
        c = cells[m]
        hyp, bounds = words_of[m] = c.hyp, c.bounds
        if fast is not None:  # compiled: the member's proposals, each canonical, in one call
            for key in fast.proposals(c.diff, bounds, hyp, ref_words, MAX_JOIN):
                proposers.setdefault(key, set()).add(m)
            continue
        for lo, hi in _proposals(c):
            key = canonical(ref, (lo // 2, hi // 2, hyp[bounds[lo]:bounds[hi]]))
            proposers.setdefault(key, set()).add(m)
    # the reading order of a proposal of one member (most are): the others first, as the likeliest to refuse it
    others_first = {m: [x for x in members if x != m] + [m] for m in members}
    if fast is not None:  # compiled: members as their places in these lists
        at = {m: i for i, m in enumerate(members)}
        hyps_at, bounds_at = [words_of[m][0] for m in members], [words_of[m][1] for m in members]
        others_first_at = {m: [at[x] for x in order] for m, order in others_first.items()}
    allowed = len(members) - min_votes  # non-followers a proposal can have and still reach min_votes
    include_middle, min_run_len = params.include_middle, params.min_run_len
    out: dict[EditKey, Candidate] = {}
    for key, props in proposers.items():
        start, end, audio = key
        # ``classify`` (the same rules, inline: this runs for every proposal)
        if start == end:
            kind, size = "insert", len(audio)
            position = "start" if start == 0 else ("end" if start == n else "middle")
        else:
            kind, size = ("substitute" if audio else "delete"), end - start
            position = "start" if start == 0 else ("end" if end == n else "middle")
        if position == "middle" and not include_middle:
            continue
        if size < min_run_len:
            continue
        # The votes.  In Python the place (the edited version of the reference around the edit and its distance)
        # is built on the first reading that needs it: a member whose words over the window are the reference's
        # refuses the edit without it (``reading_of`` reads those words as "ref" once they are not the edited
        # version, which they are not when the edit changes the reference), and most proposals are refused so.
        place = None
        if fast is not None:  # compiled: the same readings in the same order, stopping at the same refusal
            if len(props) == 1:
                for m in props:
                    order_at = others_first_at[m]
            else:
                order_at = [at[m] for m in members if m not in props] + [at[m] for m in members if m in props]
            got = fast.followers(ref_words, start, end, audio, hyps_at, bounds_at, order_at, allowed, WINDOW)
            if got is None or len(got) < min_votes:
                continue
            voters = {members[i] for i in got}
        else:
            ws, we = max(0, start - WINDOW), min(n, end + WINDOW)
            w_lo, w_hi = (0 if ws == 0 else 2 * ws + 1), (2 * n + 1 if we == n else 2 * we)
            voters = set()
            refusals_left = allowed
            if len(props) == 1:
                for m in props:
                    order = others_first[m]
            else:
                order = [m for m in members if m not in props] + [m for m in members if m in props]
            as_written = tuple(ref[ws:we]) if tuple(ref[start:end]) != audio else None
            for m in order:
                words = cells[m].text(w_lo, w_hi)
                if words != as_written:
                    if place is None:
                        place = place_of(ref, key)
                    if reading_of(words, place) == "audio":
                        voters.add(m)
                        continue
                refusals_left -= 1
                if refusals_left < 0:
                    break
            if len(voters) < min_votes or refusals_left < 0:
                continue
        # The character distance last: a filter like the votes (the candidates are those passing both), read
        # for the few proposals enough members follow rather than for every proposal.
        cer = None
        if kind != "insert":
            cer = char_distance(" ".join(ref[start:end]), " ".join(audio))
            if kind == "substitute" and cer < params.min_consensus_cer:
                continue  # spelling or spacing, not the audio
        lo, hi = interior_cells(start, end)
        out[key] = Candidate(kind, position, lo, hi, props, voters, cer, place or place_of(ref, key))
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


def select(cands: dict[EditKey, Candidate], panel: set[str], threshold: int) -> list[EditKey]:
    """Edits this panel mines: enough followers, proposed by a member, no conflicts.

    Greedy: most followers first, then the longer edit, then left to right.
    """
    if len(cands) == 1:  # one candidate (most clips that have any): nothing to order, nothing to conflict with
        for key, c in cands.items():
            if len(c.voters & panel) >= threshold and not c.proposers.isdisjoint(panel):
                return [key]
        return []
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
