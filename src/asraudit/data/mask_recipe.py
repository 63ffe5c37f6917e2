"""Mask recipe files: which word of which clip to hide, and where it is.

The paper's mask format has one row per hidden word: the clip, the span
(t0, t1 in seconds) and the hidden word; the release names the columns
``__key__``, ``entity_t0``, ``entity_t1``, ``hidden_ref``.  A recipe is one
of the three sources of word timings (the aligners in ``models.aligners``
are the others).  It is a file format read through the common row readers,
so it lives in the data layer, above the audio layer's ``WordTiming``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from asraudit.arguments import STRAY_UNDERSCORE, stray_underscore
from asraudit.data.paths import written_whole
from asraudit.data.rows import parse_seconds, read_rows
from asraudit.errors import InputError

CLIP_FIELDS = ("clip", "audio_filepath", "__key__", "id", "clip_id")
T0_FIELDS = ("t0", "entity_t0", "start")
T1_FIELDS = ("t1", "entity_t1", "end")
WORD_FIELDS = ("hidden", "hidden_ref", "word", "w")
INDEX_FIELDS = ("index", "entity_idx", "idx")


@dataclass(frozen=True, slots=True)
class RecipeRow:
    """One hidden word of a mask recipe: the clip, the span, the word, optionally its index."""

    clip_id: str
    t0: float
    t1: float
    word: str
    index: int | None = None
    kind: str = "listed"
    source: str = ""
    row: int = 0


def _first(rec: Mapping, names: Sequence[str]):
    for name in names:
        if rec.get(name) is not None:
            return name, rec[name]
    return None, None


def read_recipe(path: str | Path) -> list[RecipeRow]:
    """Mask targets from a recipe file (JSONL, JSON list, CSV or Parquet).

    Columns: a clip id (``clip``, ``audio_filepath`` or the release's
    ``__key__``), the span (``t0``/``t1`` or ``entity_t0``/``entity_t1``, in
    seconds), the hidden word (``hidden``, ``hidden_ref`` or ``word``) and
    optionally its index among the words of the clip's text (``index`` or
    ``entity_idx``; without it the word is looked up in the text).
    """
    path = Path(path)
    if not path.is_file():
        raise InputError("no such recipe file", path)
    out = []
    first_at: dict[tuple, int] = {}  # (clip, span, word) -> the row that listed it first
    for row, rec in read_rows(path, "recipe file"):
        _, clip = _first(rec, CLIP_FIELDS)
        if clip is None or str(clip).strip() == "":
            raise InputError(f"missing clip id (one of {', '.join(CLIP_FIELDS)})", path, row)
        t0_name, t0 = _first(rec, T0_FIELDS)
        t1_name, t1 = _first(rec, T1_FIELDS)
        if t0_name is None or t1_name is None:
            raise InputError(f"missing span: need {'/'.join(T0_FIELDS)} and {'/'.join(T1_FIELDS)}", path, row)
        start, end = parse_seconds(t0, t0_name, path, row), parse_seconds(t1, t1_name, path, row)
        if end < start:
            raise InputError(f"span ends before it starts: [{start}, {end}]", path, row)
        _, word = _first(rec, WORD_FIELDS)
        if not isinstance(word, str) or not word.strip():
            raise InputError(f"missing hidden word (one of {', '.join(WORD_FIELDS)})", path, row)
        if end == start:  # the mask hid only its padding, and the word, heard whole, counted as recovered (case 326)
            raise InputError(f"span [{start}, {end}] ends where it starts, so it holds none of the word's audio: the "
                             f"mask would hide nothing of {word.strip()!r} and its recovery would be counted: give the "
                             "word's span, or leave the row out", path, row)
        _, index = _first(rec, INDEX_FIELDS)
        if index is not None:
            # int() took true as 1 and 2.7 as 2: another word of the clip masked than the one the row meant
            if isinstance(index, bool) or (isinstance(index, float) and not index.is_integer()):
                raise InputError(f"word index must be an integer, got {json.dumps(index)}", path, row)
            if isinstance(index, str) and stray_underscore(index):  # int("1_0") is 10: another word (case 341)
                raise InputError(f"word index must be an integer, got {index!r}: {STRAY_UNDERSCORE} (a typo?)", path,
                                 row)
            try:
                index = int(index)
            except (TypeError, ValueError, OverflowError):
                raise InputError(f"word index must be an integer, got {index!r}", path, row) from None
            if index < 0:
                raise InputError(f"word index must be >= 0, got {index}", path, row)
        kind = rec.get("kind") if isinstance(rec.get("kind"), str) else "listed"
        key = (str(clip), start, end, word.strip())
        if key in first_at:  # a target listed twice was masked twice and counted twice in every rate
            raise InputError(f"the target {word.strip()!r} of clip {str(clip)!r} at [{start}, {end}] s repeats row "
                             f"{first_at[key]}: list each target once, or it counts twice", path, row)
        first_at[key] = row
        out.append(RecipeRow(str(clip), start, end, word.strip(), index, kind, str(path), row))
    return out


def write_recipe(path: str | Path, rows: Iterable[RecipeRow]) -> int:
    """Write a recipe (JSONL); returns the number of rows.  Written whole, then renamed into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with written_whole(path) as tmp, tmp.open("w", encoding="utf-8") as fh:
        for r in rows:
            rec = {"clip": r.clip_id, "t0": round(r.t0, 4), "t1": round(r.t1, 4), "hidden": r.word, "kind": r.kind}
            if r.index is not None:
                rec["index"] = r.index
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
            n += 1
    return n


def bare_word(word: str) -> str:
    """A word without surrounding punctuation, lower case: how a recipe's hidden word is matched."""
    return word.strip(".,;:!?\"'()[]").lower()


def locate_recipe_word(words: Sequence[str], row: RecipeRow) -> int:
    """Index of a recipe's hidden word among the clip's words (checks the given index)."""
    hidden = bare_word(row.word)
    if row.index is not None:
        if row.index >= len(words) or bare_word(words[row.index]) != hidden:
            found = words[row.index] if row.index < len(words) else "nothing (the text is shorter)"
            raise InputError(f"word {row.index} of clip {row.clip_id!r} is {found!r}, not the hidden "
                             f"{row.word!r}", row.source, row.row)
        return row.index
    hits = [i for i, w in enumerate(words) if bare_word(w) == hidden]
    if not hits:
        raise InputError(f"hidden word {row.word!r} is not in the text of clip {row.clip_id!r}", row.source, row.row)
    if len(hits) > 1:
        raise InputError(f"hidden word {row.word!r} occurs {len(hits)} times in clip {row.clip_id!r}; "
                         "give its index (index / entity_idx)", row.source, row.row)
    return hits[0]
