"""Find convention occurrences in raw text and pair reference with hypothesis.

The arms of a family differ in token count ("any one" / "anyone",
"twenty-one" / "21", "per cent" / "%"), so aligning raw words would put a
reference "per cent" against a hypothesis "%" as one substitution plus one
deletion, and the probe could not tell which hypothesis words render the
reference's occurrence.  Instead each text becomes a *canonical token
stream*: every family match collapses into one token naming the family and
the spoken words (its key), whichever arm wrote it, and every other word is
lower-cased with punctuation stripped.  The two streams are aligned with
:func:`asraudit.text.align.align`; each token keeps its character span in the
raw text, so the raw renderings on both sides are recovered exactly.

A reference occurrence is *rendered* when the hypothesis token aligned to it
is ``equal``: the model wrote the same spoken words at the same place, in
some arm of the family.  Anything else is ``missed`` (nothing aligned: the
model dropped the words) or ``outside`` (different words, or the same words
in a form the family does not list); those count for neither readout's
agreement side.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Literal

import regex

from asraudit.probes.families import Catalogue
from asraudit.text.align import align
from asraudit.text.normalize import strip_format_characters

Status = Literal["agree", "disagree", "outside", "missed"]

_WORD = regex.compile(r"[\w']+")
_FAMILY_MARK = "\x1f"  # cannot occur in a tokenized word, so family tokens never equal words


@dataclass(frozen=True, slots=True)
class Rendering:
    """One match of a family in a raw text: ``text[start:end]`` is arm ``arm``."""

    family: int  # index into the catalogue's families
    arm: int
    key: str
    start: int
    end: int


@dataclass(frozen=True)
class ScannedText:
    """A raw text as a canonical token stream with character spans."""

    text: str
    tokens: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]
    renderings: dict[int, Rendering]  # token index -> the family match it stands for


def find_renderings(catalogue: Catalogue, text: str) -> list[Rendering]:
    """All family matches in ``text``, overlaps resolved leftmost-longest.

    Leftmost-longest lets "€20 million" (currency) win over the "20" inside it
    (cardinal), and "nineteen ninety-nine" (year) over "nineteen"; on an exact
    tie the family listed first in the catalogue wins, so results never depend
    on set order.
    """
    found = []
    for idx, fam in enumerate(catalogue.families):
        for start, end, arm, key in fam.find(text):
            found.append((start, -(end - start), idx, arm, key))
    found.sort()
    chosen: list[Rendering] = []
    last_end = 0
    for start, neg_len, idx, arm, key in found:
        if start >= last_end:
            chosen.append(Rendering(idx, arm, key, start, start - neg_len))
            last_end = start - neg_len
    return chosen


def readable(text: str) -> str:
    """``text`` as the families read it: without format characters (category Cf: a zero-width space, a soft
    hyphen, a byte-order mark inside "Mr\u200b Smith" or "Mis\u00adter") and composed (NFC: "événement" saved
    decomposed by a Mac or another tool), as every normalizer reads text.  The families' forms are composed
    text, so a decomposed or interrupted rendering would match no arm: the occurrence was counted as "outside"
    (a miss of the reference's arm), and a decomposed reference held no occurrence at all."""
    text = strip_format_characters(text)
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def scan(catalogue: Catalogue, text: str) -> ScannedText:
    """Tokenize ``text`` with each family match as one canonical token; ``text`` is read as
    :func:`readable` gives it, and the spans (and ``ScannedText.text``) are of that text."""
    text = readable(text)
    tokens: list[str] = []
    spans: list[tuple[int, int]] = []
    renderings: dict[int, Rendering] = {}

    def words(lo: int, hi: int) -> None:
        for m in _WORD.finditer(text, lo, hi):
            word = m.group().strip("'").lower()
            if word:
                tokens.append(word)
                spans.append((m.start(), m.end()))

    pos = 0
    for r in find_renderings(catalogue, text):
        words(pos, r.start)
        renderings[len(tokens)] = r
        tokens.append(f"{_FAMILY_MARK}{r.family}{_FAMILY_MARK}{r.key}")
        spans.append((r.start, r.end))
        pos = r.end
    words(pos, len(text))
    return ScannedText(text, tuple(tokens), tuple(spans), renderings)


@dataclass(frozen=True, slots=True)
class Occurrence:
    """A reference occurrence of a family and what one model wrote there."""

    clip_id: str
    family: int
    key: str
    ref_arm: int
    ref_span: tuple[int, int]
    status: Status
    hyp_arm: int | None  # set when the model rendered the same words in the family
    # What the model wrote at the aligned place; an empty span where it wrote
    # nothing (``missed``), placed after the last hypothesis word before it.
    hyp_span: tuple[int, int]

    @property
    def rendered(self) -> bool:
        return self.status in ("agree", "disagree")


def pair_occurrences(clip_id: str, ref: ScannedText, hyp: ScannedText) -> list[Occurrence]:
    """Every reference occurrence of every family, judged against the hypothesis."""
    if not ref.renderings:
        return []
    alignment = align(ref.tokens, hyp.tokens)
    out: list[Occurrence] = []
    hyp_pos = 0  # end of the last hypothesis token passed: where a dropped occurrence was
    for kind, i, j in alignment.token_pairs():
        if j is not None:
            hyp_pos = hyp.spans[j][1]
        if i is None or i not in ref.renderings:
            continue
        r = ref.renderings[i]
        if kind == "equal":
            h = hyp.renderings[j]
            status: Status = "agree" if h.arm == r.arm else "disagree"
            out.append(Occurrence(clip_id, r.family, r.key, r.arm, (r.start, r.end), status, h.arm,
                                  (h.start, h.end)))
        elif j is None:
            out.append(Occurrence(clip_id, r.family, r.key, r.arm, (r.start, r.end), "missed", None,
                                  (hyp_pos, hyp_pos)))
        else:
            out.append(Occurrence(clip_id, r.family, r.key, r.arm, (r.start, r.end), "outside", None,
                                  hyp.spans[j]))
    return out
