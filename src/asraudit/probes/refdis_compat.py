"""``--compat hume``: reference-error mining as the paper's released code does it.

The paper's accept-ref numbers come from its released implementation
(HumeAI/asr-benchmark-optimization, the ``ref-disagreement`` command).  To be
comparable with them, this mode reproduces that implementation's output field
by field, including the choices the full miner (:mod:`asraudit.probes.refdis`)
makes differently:

* Alignment is difflib's ``SequenceMatcher`` with autojunk off, not a
  minimum-edit-distance alignment.  The two disagree on where a replaced span
  starts and ends, and every edit boundary depends on that.
* A reference span the panel replaced counts as a *deletion*: a replaced
  reference word is a "missed" word, whatever the panel wrote instead.  The
  panel's replacement only feeds ``consensus_cer``, the median (upper middle)
  character distance between the span and what each agreeing member wrote.
* Only boundary insertions (before the first / after the last reference token)
  are looked for.
* A panel member is judged by its own vote (no leave-one-out).
* A verdict is ``"consensus"``, ``"ref"`` or ``None`` (ineligible); a model that
  wrote a third reading of a deleted span counts as ``"consensus"``, because it
  too "missed" the reference words.
* Wilson intervals use z = 1.96 (not the exact 1.95996...), and are built by
  the textbook centre/half-width formula so the last digits agree too.
* Text goes through the Whisper English normalizer, a fullwidth-aware
  parenthesis strip before it, CJK characters spaced out after it, and
  spelled-out numbers turned into digits with ``text2num`` when that package is
  installed (the release does the same, and is a no-op without it).

Everything here is written from a reading of that implementation's behaviour;
the tests compare against its recorded output on real VoxPopuli predictions.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
try:  # difflib's own algorithm compiled (cydifflib): the same blocks and opcodes, several times faster
    from cydifflib import SequenceMatcher
except ImportError:  # pragma: no cover - the pure-Python original gives the same output, slower
    from difflib import SequenceMatcher
from functools import lru_cache
from typing import Callable, Mapping, Sequence

from asraudit.errors import InputError
from asraudit.probes.refdis_compat_numbers import may_hold_number, tokens_may_hold_number
from asraudit.text.normalize import get_normalizer, tokens_of

# The release's command line reads the panel size against this constant, not
# against a parameter: it refuses panels smaller than 3 outright.
HUME_MIN_PANEL_CLI = 3

_PARENS = re.compile(r"[(（][^)）]+?[)）]")
_CJK_PATTERN = r"([\u3400-\u4dbf\u4e00-\u9fff\u3040-\u309f\u30a0-\u30ff\uac00-\ud7af])"


@lru_cache(maxsize=1)
def _cjk() -> re.Pattern:
    """The CJK pattern, compiled on first use (its ranges take milliseconds to compile; English never needs it)."""
    return re.compile(_CJK_PATTERN)


@dataclass(frozen=True)
class HumeParams:
    """The release's knobs and defaults (see :mod:`asraudit.probes.refdis` for why)."""

    majority: float = 0.8
    min_run_len: int = 1
    include_middle: bool = False
    min_ref_match: float = 0.5
    min_consensus_cer: float = 0.30
    min_panel: int = 3

    def validate(self) -> None:
        if not 0 < self.majority <= 1:
            raise InputError(f"--majority must be in (0, 1], got {self.majority}")
        if self.min_run_len < 1:
            # The release crashes on 0 (an empty run has no first token).
            raise InputError(f"--min-run-len must be at least 1, got {self.min_run_len}")
        if not 0 <= self.min_ref_match <= 1:
            raise InputError(f"--min-ref-match must be in [0, 1], got {self.min_ref_match}")
        if self.min_panel < 1:
            raise InputError(f"--min-panel must be at least 1, got {self.min_panel}")
        if not self.min_consensus_cer >= 0:  # the release takes any value; below 0 (or NaN) it drops nothing, as 0
            raise InputError(f"--min-consensus-cer must be >= 0, got {self.min_consensus_cer}")

    def threshold(self, n_panel: int) -> int:
        """Votes an edit needs: a true supermajority, never fewer than 2.

        The 1e-9 keeps 0.8 x 5 = 4.000000000000001 from rounding up to 5.
        """
        return max(2, math.ceil(self.majority * n_panel - 1e-9))


@dataclass
class HumeEdit:
    """One edit in the release's terms, plus the clip it came from."""

    clip_id: str
    kind: str  # "delete" or "insert"
    position: str  # "start", "middle" or "end"
    tokens: tuple[str, ...]
    ref_indices: tuple[int, ...]
    n_panel_agree: int
    n_panel: int
    consensus_cer: float | None
    verdict: dict[str, str | None] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return " ".join(self.tokens)

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "position": self.position,
            "text": self.text,
            "n_panel_agree": self.n_panel_agree,
            "n_panel": self.n_panel,
            "consensus_cer": self.consensus_cer,
            "verdict": dict(self.verdict),
            "clip": self.clip_id,
        }


# ---------------------------------------------------------------- normalizing


@lru_cache(maxsize=1)
def _alpha2digit() -> Callable[[str], str] | None:
    convert_any = _alpha2digit_unfiltered()
    if convert_any is None:
        return None

    def convert(text: str) -> str:
        if not may_hold_number(text):  # returned unchanged (refdis_compat_numbers); most strings, no call
            return text
        return convert_any(text)

    return convert


@lru_cache(maxsize=1)
def _alpha2digit_unfiltered() -> Callable[[str], str] | None:
    """text2num's English ``alpha2digit`` on every string, or None where text2num is not installed."""
    try:
        from text_to_num import alpha2digit
    except ImportError:
        return None

    def convert(text: str) -> str:
        try:
            return alpha2digit(text, "en")
        except Exception:  # text2num raises on input it cannot parse; the release passes it through
            return text

    return convert


def hume_normalize(text: str) -> str:
    """Normalize one raw string the way the release prepares text for this probe."""
    if not text:
        return ""
    if "(" in text or "（" in text:
        text = _PARENS.sub("", text)
    out = get_normalizer("whisper")(text)
    # The CJK pattern matches no ASCII character: an ASCII string skips the scan (the costlier half).
    out = " ".join((out if out.isascii() else _cjk().sub(r" \1 ", out)).split())
    convert = _alpha2digit()
    return convert(out) if convert is not None and out else out


def hume_tokens(text: str) -> tuple[str, ...]:
    """``tuple(hume_normalize(text).split())``, from the Whisper normalizer's words, never joined and split.

    Where the normalized words are ASCII (no CJK character to space out), they are the split of
    ``hume_normalize``'s string until ``text2num``; its filter reads the words (``tokens_may_hold_number``),
    and only a string that may hold a number is joined for ``alpha2digit`` (and split again where it changed).
    The words are the normalizer's shared objects, so the aligner hashes each distinct word once.  Anything
    else takes ``hume_normalize``."""
    if not text:
        return ()
    stripped = _PARENS.sub("", text) if "(" in text or "（" in text else text
    words = _WHISPER_WORDS(stripped)
    if not "".join(words).isascii():
        return tuple(hume_normalize(text).split())
    convert = _alpha2digit_unfiltered()
    if convert is None or not words or not tokens_may_hold_number(words):
        return words
    joined = " ".join(words)
    out = convert(joined)  # the filter of ``_alpha2digit`` already passed, on the words
    return words if out == joined else tuple(out.split())


# ``tuple(normalize_whisper(text).split())``: the Whisper normalizer's own token path (text/normalize.py).
_WHISPER_WORDS: Callable[[str], tuple[str, ...]] = tokens_of(get_normalizer("whisper"))


# ------------------------------------------------------------------ alignment


def char_distance(ref: str, hyp: str) -> float:
    """Share of the reference's characters (spaces ignored) not matched in ``hyp``.

    Spaces are dropped so "lactuelle" vs "l actuelle" scores 0 (a spacing
    artifact).  Matching is difflib's block matching, which is what the
    release thresholds; it is not an edit distance.
    """
    r = "".join(ref.split())
    h = "".join(hyp.split())
    if not r:
        return 0.0 if not h else 1.0
    blocks = SequenceMatcher(None, r, h, autojunk=False).get_matching_blocks()
    return 1.0 - sum(b.size for b in blocks) / len(r)


# ``char_distance`` memoized (a pure function of two strings): a clip's panel members often write the same
# replacement, and short spans recur (641 distinct pairs in 6,548 calls on the benchmark's 1,800 x 40 files).
_char_distance_memo = lru_cache(maxsize=1 << 16)(char_distance)


class _DiffView:
    """One normalized hypothesis (its words) read against the reference's words through difflib opcodes."""

    __slots__ = ("hyp", "opcodes", "missed", "matched", "inserted")

    def __init__(self, ref_tokens: tuple[str, ...], hyp: tuple[str, ...], matcher: SequenceMatcher | None = None):
        self.hyp = hyp
        if hyp == ref_tokens:  # what difflib answers for two equal sequences, without asking it
            self.opcodes = [("equal", 0, len(hyp), 0, len(hyp))] if hyp else []
            self.missed: set[int] = set()
            self.matched = len(hyp)
            self.inserted: dict[int, list[str]] = {}
            return
        if matcher is None:
            self.opcodes = SequenceMatcher(None, ref_tokens, hyp, autojunk=False).get_opcodes()
        else:  # one matcher per clip, given each hypothesis in turn (``set_seqs`` clears what it computed)
            matcher.set_seqs(ref_tokens, hyp)
            self.opcodes = matcher.get_opcodes()
        self.missed = missed = set()
        self.inserted = inserted = {}
        for tag, i1, i2, j1, j2 in self.opcodes:
            if tag == "equal":
                continue
            if tag == "insert":
                inserted.setdefault(i1, []).extend(hyp[j1:j2])
            else:  # "delete" and "replace" both leave reference words unreproduced
                missed.update(range(i1, i2))
        # The opcodes cover the reference once: what is not missed is matched ("equal").
        self.matched = len(ref_tokens) - len(missed)

    def replacement_for(self, span: set[int]) -> str:
        """What the hypothesis wrote in place of ``span``: every replace block touching it."""
        words: list[str] = []
        for tag, i1, i2, j1, j2 in self.opcodes:
            if tag == "replace" and not span.isdisjoint(range(i1, i2)):
                words.extend(self.hyp[j1:j2])
        return " ".join(words)


def _boundary_consensus(inserts: list[list[str]], at_start: bool, threshold: int) -> list[str]:
    """Grow the agreed insertion outward from the reference boundary, one token at a time.

    Position k counts from the boundary (the last inserted token before the
    first reference word, the first one after the last).  The chunk stops at
    the first position where no single token has ``threshold`` votes; among
    tied tokens the first panel member's wins.
    """
    chunk: list[str] = []
    k = 0
    while True:
        at_k = [lst[len(lst) - 1 - k] if at_start else lst[k] for lst in inserts if k < len(lst)]
        if not at_k:
            break
        token, votes = Counter(at_k).most_common(1)[0]
        if votes < threshold:
            break
        chunk.append(token)
        k += 1
    return chunk[::-1] if at_start else chunk


def _emits(inserted: list[str], chunk: list[str], at_start: bool) -> bool:
    """Did a model insert ``chunk`` right against the boundary (suffix at start, prefix at end)?"""
    n = len(chunk)
    if n == 0 or len(inserted) < n:
        return False
    return inserted[len(inserted) - n:] == chunk if at_start else inserted[:n] == chunk


# --------------------------------------------------------------------- mining


def mine_clip_hume(
    clip_id: str,
    ref_tokens: Sequence[str],
    panel_hyps: Mapping[str, str],
    model_hyps: Mapping[str, str],
    params: HumeParams = HumeParams(),
) -> list[HumeEdit]:
    """Edits of one clip with every model's verdict, in the release's order.

    ``panel_hyps`` and ``model_hyps`` map model names to *normalized*
    hypotheses; panel members usually appear in both.  Order matters and is
    kept: deletions left to right, then the start insertion, then the end one;
    verdicts in ``model_hyps`` order.
    """
    panel_words = {m: tuple(h.split()) for m, h in panel_hyps.items()}
    model_words = {m: tuple(h.split()) for m, h in model_hyps.items()}
    return mine_clip_tokens(clip_id, tuple(ref_tokens), panel_words, model_words, params)


def mine_clip_tokens(
    clip_id: str,
    ref: tuple[str, ...],
    panel_hyps: Mapping[str, tuple[str, ...]],
    model_hyps: Mapping[str, tuple[str, ...]],
    params: HumeParams = HumeParams(),
) -> list[HumeEdit]:
    """``mine_clip_hume`` on hypotheses already split into words (tuples), as ``run_hume`` has them."""
    n_ref = len(ref)
    if not n_ref or not panel_hyps:
        return []
    view_of = _clip_views(ref)
    panel_views = {m: view_of(h) for m, h in panel_hyps.items()}
    # int() truncates, as the release does: 0.5 x 7 words asks for 3 matches.
    min_matched = int(params.min_ref_match * n_ref)
    panel = {m: v for m, v in panel_views.items() if v.matched >= min_matched}
    if len(panel) < params.min_panel:
        return []
    threshold = params.threshold(len(panel))
    # The scored models' views are aligned only once the panel has found an edit (half the clips of a
    # leaderboard have none); panel members are usually also scored, with the panel's views.
    scored = _ScoredViews(model_hyps, view_of, min_matched)

    edits = _deletions(clip_id, ref, panel, scored, threshold, params)
    edits += _insertions(clip_id, ref, panel, scored, threshold, params)
    return edits


def _clip_views(ref: tuple[str, ...]) -> Callable[[tuple[str, ...]], _DiffView]:
    """hypothesis -> its view against ``ref``, one per distinct hypothesis of the clip.

    A view depends on the reference and the hypothesis only, and is only read once built: models that wrote
    the same words share one, so each distinct hypothesis is aligned once, all by one matcher."""
    matcher = SequenceMatcher(None, (), (), autojunk=False)
    views: dict[tuple[str, ...], _DiffView] = {}

    def view_of(hyp: tuple[str, ...]) -> _DiffView:
        view = views.get(hyp)
        if view is None:
            view = views[hyp] = _DiffView(ref, hyp, matcher)
        return view

    return view_of


class _ScoredViews:
    """model -> its view, or None where it is ineligible on the clip, aligned on first ``items()``."""

    def __init__(self, model_hyps, view_of, min_matched):
        self._args = model_hyps, view_of, min_matched
        self._views: dict[str, _DiffView | None] | None = None

    def items(self):
        if self._views is None:
            model_hyps, view_of, min_matched = self._args
            views = {m: view_of(h) for m, h in model_hyps.items()}
            self._views = {m: (v if v.matched >= min_matched else None) for m, v in views.items()}
        return self._views.items()


def _runs(votes: list[int], threshold: int, min_len: int) -> list[list[int]]:
    runs: list[list[int]] = []
    current: list[int] = []
    for i, v in enumerate(votes + [-1]):  # sentinel closes the last run
        if v >= threshold:
            current.append(i)
            continue
        if current and len(current) >= min_len:
            runs.append(current)
        current = []
    return runs


def _position(first: int, last: int, n_ref: int) -> str:
    if first == 0:
        return "start"
    return "end" if last == n_ref - 1 else "middle"


def _deletions(clip_id, ref, panel, scored, threshold, params) -> list[HumeEdit]:
    """Reference spans a supermajority of the panel did not reproduce.

    ``panel`` maps eligible members to their views; ``scored`` maps every
    scored model to its view, or to None when it is ineligible on the clip.
    """
    n_ref = len(ref)
    votes = [0] * n_ref
    for view in panel.values():
        for i in view.missed:
            votes[i] += 1
    runs = _runs(votes, threshold, params.min_run_len)
    if not params.include_middle:
        runs = [r for r in runs if r[0] == 0 or r[-1] == n_ref - 1]
    out: list[HumeEdit] = []
    for run in runs:
        span = set(run)
        chunk = " ".join(ref[i] for i in run)
        distances = sorted(
            _char_distance_memo(chunk, view.replacement_for(span))
            for view in panel.values()
            if not view.missed.isdisjoint(span)
        )
        median = distances[len(distances) // 2] if distances else 1.0
        if median < params.min_consensus_cer:
            continue  # the panel wrote the same characters: a normalization artifact
        verdict: dict[str, str | None] = {}
        for m, view in scored.items():
            if view is None:
                verdict[m] = None
            else:
                verdict[m] = "ref" if view.missed.isdisjoint(span) else "consensus"
        out.append(HumeEdit(
            clip_id, "delete", _position(run[0], run[-1], n_ref), tuple(ref[i] for i in run),
            tuple(run), votes[run[0]], len(panel), round(median, 3), verdict,
        ))
    return out


def _insertions(clip_id, ref, panel, scored, threshold, params) -> list[HumeEdit]:
    """Words a supermajority of the panel wrote before the first or after the last reference word."""
    n_ref = len(ref)
    out: list[HumeEdit] = []
    for anchor in (0, n_ref):
        at_start = anchor == 0
        inserts = [view.inserted.get(anchor, []) for view in panel.values()]
        chunk = _boundary_consensus(inserts, at_start, threshold)
        if len(chunk) < params.min_run_len:
            continue
        agree = sum(_emits(lst, chunk, at_start) for lst in inserts)
        if agree < threshold:
            continue
        verdict: dict[str, str | None] = {}
        for m, view in scored.items():
            if view is None:
                verdict[m] = None
            else:
                emitted = _emits(view.inserted.get(anchor, []), chunk, at_start)
                verdict[m] = "consensus" if emitted else "ref"
        out.append(HumeEdit(
            clip_id, "insert", "start" if at_start else "end", tuple(chunk), (anchor,),
            agree, len(panel), None, verdict,
        ))
    return out


# ------------------------------------------------------------------ accept-ref
