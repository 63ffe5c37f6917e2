"""Mining precision and recall against a benchmark whose reference errors are known.

On real benchmarks nobody knows every reference error, so the miner's
precision needs human review (``review.py``) and its recall is unknown.  On
a benchmark built with planted errors (parliament-mini, or a user's own) both
can be measured.  A mined edit matches a planted one on the same clip when
the kinds agree and the normalized words overlap: the reference span r for a
deletion, the audio rendering a for an insertion, both for a substitution.
Overlap rather than equality, because the panel may render a false start
with one word more or less than the truth file writes it, and the aligner may
place a repeated word one token over; the match is still the same error.
Matching is one-to-one and greedy, best overlap first.

The planted truth records what the *text* says.  A synthetic voice may not
say every word of it; ``audio_corrected`` turns a per-word check of the
audio (which words of the spoken text the voice did not say) into a
corrected truth: a record word the voice did not say is an error of the
record too (origin "audio"), matched by any mined substitution or deletion
whose reference span holds it, and a planted insertion whose spoken words the
voice never said is dropped, since the audio does not contain it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from asraudit.metrics.stats import wilson_interval
from asraudit.text.align import align

KINDS = ("delete", "insert", "substitute")


@dataclass(frozen=True)
class PlantedError:
    clip_id: str
    kind: str
    r: str  # raw text in the reference ("" for an insert)
    a: str  # raw text that was said ("" for a delete)
    ref_start: int = -1  # character span of r in the record (-1: unknown)
    ref_end: int = -1
    origin: str = "text"  # "text": planted in the record; "audio": a record word the voice did not say


def _overlap(x: Sequence[str], y: Sequence[str]) -> float:
    """Jaccard overlap of two token multisets (1.0 for two empty sequences)."""
    if not x and not y:
        return 1.0
    from collections import Counter

    cx, cy = Counter(x), Counter(y)
    inter = sum((cx & cy).values())
    union = sum((cx | cy).values())
    return inter / union if union else 0.0


def _contained(x: Sequence[str], y: Sequence[str]) -> float:
    """Share of the tokens of x found in y (as multisets)."""
    from collections import Counter

    return sum((Counter(x) & Counter(y)).values()) / len(x) if x else 0.0


def match_score(kind: str, planted_r: Sequence[str], planted_a: Sequence[str], mined_r: Sequence[str], mined_a: Sequence[str]) -> float:
    if kind == "delete":
        return _overlap(planted_r, mined_r)
    if kind == "insert":
        return _overlap(planted_a, mined_a)
    return min(_overlap(planted_r, mined_r), _overlap(planted_a, mined_a))


@dataclass(frozen=True)
class KindScore:
    kind: str
    planted: int
    mined: int
    matched: int
    precision: float
    precision_ci: tuple[float, float]
    recall: float
    recall_ci: tuple[float, float]


@dataclass(frozen=True)
class TruthScore:
    by_kind: dict[str, KindScore]
    overall: KindScore
    matches: list[tuple[PlantedError, object]]  # (planted, mined edit)
    missed: list[PlantedError]
    spurious: list[object]


def _kind_score(kind: str, planted: int, mined: int, matched_planted: int, matched_mined: int) -> KindScore:
    precision = matched_mined / mined if mined else float("nan")
    recall = matched_planted / planted if planted else float("nan")
    return KindScore(kind, planted, mined, matched_planted, precision, wilson_interval(matched_mined, mined),
                     recall, wilson_interval(matched_planted, planted))


def score_against_truth(
    mined: Iterable,
    planted: Iterable[PlantedError],
    normalize: Callable[[str], str],
    clips: Iterable[str] | None = None,
    min_overlap: float = 0.5,
) -> TruthScore:
    """Precision and recall of mined edits (objects with clip_id, kind, r, a) per kind.

    ``clips`` limits both sides to the clips the miner could judge (e.g.
    those with enough eligible panel members); by default every clip that
    has a planted or a mined edit counts.
    """
    mined = list(mined)
    planted = list(planted)
    if clips is not None:
        keep = set(clips)
        mined = [e for e in mined if e.clip_id in keep]
        planted = [p for p in planted if p.clip_id in keep]
    by_clip: dict[str, list] = {}
    for e in mined:
        by_clip.setdefault(e.clip_id, []).append(e)
    pairs = []
    for i, p in enumerate(planted):
        pr, pa = normalize(p.r).split(), normalize(p.a).split()
        for j, e in enumerate(by_clip.get(p.clip_id, [])):
            if p.origin == "audio":
                # A word the voice did not say: any edit that takes it out of the reference finds it.
                if e.kind not in ("substitute", "delete"):
                    continue
                score = _contained(pr, e.r.split())
            elif e.kind != p.kind:
                continue
            else:
                score = match_score(p.kind, pr, pa, e.r.split(), e.a.split())
            if score >= min_overlap:
                pairs.append((score, i, id(e), e))
    pairs.sort(key=lambda t: -t[0])
    used_p: set[int] = set()
    used_m: set[int] = set()
    matches = []
    for score, i, eid, e in pairs:
        if i in used_p or eid in used_m:
            continue
        used_p.add(i)
        used_m.add(eid)
        matches.append((planted[i], e))
    by_kind = {}
    for kind in KINDS:
        n_planted = sum(1 for p in planted if p.kind == kind)
        n_mined = sum(1 for e in mined if e.kind == kind)
        hit_p = sum(1 for i, p in enumerate(planted) if p.kind == kind and i in used_p)
        hit_m = sum(1 for e in mined if e.kind == kind and id(e) in used_m)
        by_kind[kind] = _kind_score(kind, n_planted, n_mined, hit_p, hit_m)
    overall = _kind_score("all", len(planted), len(mined), len(used_p), len(used_m))
    missed = [p for i, p in enumerate(planted) if i not in used_p]
    spurious = [e for e in mined if id(e) not in used_m]
    return TruthScore(by_kind, overall, matches, missed, spurious)


def planted_from_truth(truth: Mapping[str, Mapping]) -> list[PlantedError]:
    """Planted errors from a truth mapping ``{clip_id: {"edits": [{kind, r, a, ...}]}}``."""
    out = []
    for clip_id, entry in truth.items():
        for e in entry.get("edits", []):
            out.append(PlantedError(clip_id, e["kind"], e.get("r", ""), e.get("a", ""),
                                    e.get("ref_start", -1), e.get("ref_end", -1)))
    return out


def _key(word: str) -> str:
    return re.sub(r"[^\w']", "", word.lower())


@dataclass(frozen=True)
class CorrectedTruth:
    errors: list[PlantedError]  # the planted errors the audio realised, plus the audio's own
    added: list[PlantedError]  # record words the voice did not say (origin "audio")
    dropped: list[PlantedError]  # planted insertions whose spoken words the voice did not say


def audio_corrected(planted: Iterable[PlantedError], texts: Mapping[str, tuple[str, str]],
                    unsaid: Mapping[str, Mapping[int, str]]) -> CorrectedTruth:
    """The planted truth corrected by what each clip's audio contains.

    ``texts`` maps a clip to (record, spoken text); ``unsaid`` maps a clip to
    {index of a word of ``spoken.split()`` the voice did not say: its verdict
    ("mispronounced" or "skipped")}.  The record and the spoken text are
    aligned word by word: an unsaid spoken word that faces a record word adds
    an error of the record (kind substitute for a mispronounced word, delete
    for a skipped one) unless a planted error's span already holds that
    record word; one that faces nothing in the record belongs to a planted
    insertion, which is dropped once none of its words was said.
    """
    planted = list(planted)
    added, dropped, keep = [], [], []
    unsaid_spoken_only: dict[str, Counter] = {}
    for clip, words in unsaid.items():
        if clip not in texts or not words:
            continue
        record, spoken = texts[clip]
        rec_words, sp_words = record.split(), spoken.split()
        rec_spans = [m.span() for m in re.finditer(r"\S+", record)]
        mine = [p for p in planted if p.clip_id == clip]
        spans = [(p.ref_start, p.ref_end) for p in mine if p.kind != "insert"]
        # The record's words with each planted insertion's spoken words put where the record left them
        # out (None: not a record word), so a repeated word ("We, we") faces the right spoken word.
        expanded: list[tuple[str, int | None]] = [(_key(w), i) for i, w in enumerate(rec_words)]
        for p in sorted((p for p in mine if p.kind == "insert"), key=lambda p: -p.ref_start):
            at = sum(1 for a, _ in rec_spans if a < p.ref_start)
            at = next(k for k in range(len(expanded) + 1) if k == len(expanded) or
                      (expanded[k][1] is not None and expanded[k][1] >= at))
            expanded[at:at] = [(_key(w), None) for w in p.a.split()]
        pairs = align([k for k, _ in expanded], [_key(w) for w in sp_words]).token_pairs()
        facing = {j: expanded[i][1] for _, i, j in pairs if j is not None and i is not None}
        for j, verdict in sorted(words.items()):
            i = facing.get(j)
            if i is None:
                unsaid_spoken_only.setdefault(clip, Counter())[_key(sp_words[j])] += 1
                continue
            a, b = rec_spans[i]
            if any(s <= a and b <= e for s, e in spans):
                continue
            added.append(PlantedError(clip, "delete" if verdict == "skipped" else "substitute", rec_words[i], "",
                                      a, b, origin="audio"))
    for p in planted:
        gone = unsaid_spoken_only.get(p.clip_id, Counter())
        words = Counter(k for k in (_key(w) for w in p.a.split()) if k)
        if p.kind == "insert" and words and not words - gone:  # every one of its words unsaid
            dropped.append(p)
        else:
            keep.append(p)
    return CorrectedTruth(keep + added, added, dropped)
