"""The sentence markup of parliament-mini: one line gives the audio and the truth.

Each sentence is written once, with the places where the record departs from
what was said marked inline (see ``data/parliament_mini/sentences.txt``).
From it we derive the text the voices speak, the record-style reference the
benchmark ships, and a ground-truth list of every planted reference error and
convention occurrence, with character spans in the reference.  Writing the
truth next to the text, rather than in a separate table, keeps the two from
drifting apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_TOKEN = re.compile(
    r"\{\+(?P<recorded_only>.*?)\+\}"          # in the record only
    r"|\{-(?P<said_only>.*?)-\}"              # said, left out of the record
    r"|\{~(?P<sub_said>[^|]*?)\|(?P<sub_rec>.*?)~\}"
    r"|\[(?P<family>[a-z_]+):(?P<conv_said>[^|\]]*?)\|(?P<conv_rec>[^\]]*?)\]"
)


@dataclass(frozen=True)
class PlantedEdit:
    """A reference error in DESIGN.md's vocabulary: r is in the reference, a was said."""

    kind: str  # "insert" (reference omits spoken words), "delete" (unspoken words), "substitute"
    position: str  # "start", "middle", "end"
    r: str
    a: str
    ref_start: int  # character span of r in the record ([start, start) for an insert)
    ref_end: int


@dataclass(frozen=True)
class ConventionUse:
    family: str
    said: str
    recorded: str
    ref_start: int
    ref_end: int


@dataclass(frozen=True)
class Sentence:
    id: str
    split: str
    spoken: str
    record: str
    edits: tuple[PlantedEdit, ...] = field(default=())
    conventions: tuple[ConventionUse, ...] = field(default=())


def _position(start: int, end: int, text: str) -> str:
    before = text[:start].strip(" ,.")
    after = text[end:].strip(" ,.")
    if not before:
        return "start"
    if not after:
        return "end"
    return "middle"


def _capitalize(text: str) -> str:
    """Upper-case the first letter: a dropped opener leaves the sentence in lower case."""
    return text[:1].upper() + text[1:]


def _trimmed_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink [start, end) past spaces and commas that belong to the markup, not the words."""
    while start < end and text[start] in " ,":
        start += 1
    while end > start and text[end - 1] in " ,":
        end -= 1
    return start, end


def parse_sentence(sentence_id: str, split: str, markup: str) -> Sentence:
    spoken: list[str] = []
    record: list[str] = []
    raw_edits: list[tuple[str, int, int, str, str]] = []
    raw_convs: list[tuple[str, int, int, str, str]] = []
    rec_len = 0
    pos = 0
    for m in _TOKEN.finditer(markup):
        plain = markup[pos:m.start()]
        spoken.append(plain)
        record.append(plain)
        rec_len += len(plain)
        pos = m.end()
        if m.group("recorded_only") is not None:
            text = m.group("recorded_only")
            record.append(text)
            raw_edits.append(("delete", rec_len, rec_len + len(text), text, ""))
            rec_len += len(text)
        elif m.group("said_only") is not None:
            text = m.group("said_only")
            spoken.append(text)
            raw_edits.append(("insert", rec_len, rec_len, "", text))
        elif m.group("sub_said") is not None:
            said, rec = m.group("sub_said"), m.group("sub_rec")
            spoken.append(said)
            record.append(rec)
            raw_edits.append(("substitute", rec_len, rec_len + len(rec), rec, said))
            rec_len += len(rec)
        else:
            said, rec = m.group("conv_said"), m.group("conv_rec")
            spoken.append(said)
            record.append(rec)
            raw_convs.append((m.group("family"), rec_len, rec_len + len(rec), said, rec))
            rec_len += len(rec)
    spoken.append(markup[pos:])
    record.append(markup[pos:])
    record_text = _capitalize("".join(record))
    spoken_text = _capitalize("".join(spoken))
    for label, text in (("record", record_text), ("spoken text", spoken_text)):
        if "  " in text or text != text.strip():
            raise ValueError(f"sentence {sentence_id}: markup leaves stray spaces in the {label}: {text!r}")
    edits = []
    for kind, s, e, r, a in raw_edits:
        ts, te = _trimmed_span(record_text, s, e)
        edits.append(PlantedEdit(kind, _position(s, e, record_text), record_text[ts:te], a.strip(" ,"), ts, te))
    convs = tuple(ConventionUse(f, said, rec, s, e) for f, s, e, said, rec in raw_convs)
    return Sentence(sentence_id, split, spoken_text, record_text, tuple(edits), convs)


def load_sentences(path: str | Path) -> list[Sentence]:
    out = []
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise ValueError(f"{path}, line {lineno}: expected id<TAB>split<TAB>markup")
        out.append(parse_sentence(*parts))
    return out
