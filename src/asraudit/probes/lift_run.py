"""Audio lift at mined edits, run through the store.

For every edit (from ``asraudit refdis --edits-out``), two texts are
teacher-forced under the clip x and under silence x_∅ of the same length:
the reference as written, and the reference with the edit applied (the audio
rendering a).  λ(r) is read on the reference span inside the first text,
λ(a) on the rendering inside the second, so each span is scored in its full
context.  λ(r) > 0 says the audio raised the reference's wording; λ(r) ≈ 0
with the model still writing r says the prior, not the audio, wrote it.

Edits index the clip's *normalized* reference tokens, so the forced texts
are the normalized token sequences joined by spaces.  Raw text cannot be used
in general: normalization rewrites numbers and spellings ("forty million" ->
"40000000"), so a normalized span has no reliable raw counterpart.  The
choice costs little: λ is a difference between two inputs for the *same*
text, so whatever the unusual casing does to the likelihood is present on
both sides.  The edits are checked against the corpus: a reference that
normalizes to different tokens than the edit says is an input error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Container, Mapping, Sequence

from asraudit.data.clip import refuse_silent_audio
from asraudit.data.predictions import ClipIds, space_twin, space_twin_words
from asraudit.data.rows import jsonl_rows
from asraudit.errors import InputError
from asraudit.metrics.stats import json_number
from asraudit.probes.channel import Channel
from asraudit.probes.lift import LiftSummary, audio_lift, summarize_lift
from asraudit.probes.refdis_cells import classify
from asraudit.run.spec import SCORE, Score, make_job


@dataclass(frozen=True)
class EditItem:
    """One mined edit with its clip's normalized reference tokens."""

    edit_id: str
    clip_id: str
    kind: str
    position: str
    ref: tuple[str, ...]
    start: int
    end: int
    a: tuple[str, ...]

    @property
    def r(self) -> tuple[str, ...]:
        return self.ref[self.start:self.end]

    @property
    def audio_tokens(self) -> tuple[str, ...]:
        return self.ref[:self.start] + self.a + self.ref[self.end:]

    @property
    def key(self) -> tuple[int, int, tuple[str, ...]]:
        return self.start, self.end, self.a


def load_edits(path: str | Path, references: Mapping[str, str], normalize: Callable[[str], str],
               skipped: list | None = None, clip_ids: Container[str] = ()) -> list[EditItem]:
    """Edits from an ``--edits-out`` JSONL, checked against the corpus references.

    Edits of clips outside the corpus (a subset of the benchmark) are left
    out and their clip ids appended to ``skipped`` when it is given; without
    it they are an error.  ``clip_ids``: the corpus's clips, references or not; an edit on one without a
    reference is refused as such (case 307: it was left out as on a clip "outside the corpus")."""
    path = Path(path)
    if not path.is_file():
        raise InputError("no such edits file", path)
    cache: dict[str, tuple[str, ...]] = {}
    out = []
    first_at: dict[object, int] = {}  # an edit id, and (clip, span, a): the row that gave it first
    for row, rec in jsonl_rows(path):
        missing = [k for k in ("clip", "ref_start", "ref_end", "r", "a") if k not in rec]
        if missing:  # "a" left out was read as "": a substitution measured as a deletion, without a word
            raise InputError(f"an edit needs clip, ref_start, ref_end, r and a (asraudit refdis --edits-out); this "
                             f"one lacks {', '.join(missing)}", path, row)
        clip = str(rec["clip"])
        start, end = _token_index(rec["ref_start"], "ref_start", path, row), _token_index(rec["ref_end"], "ref_end",
                                                                                            path, row)
        for key in ("r", "a"):  # null was read as "", a number or a list as the word its text spells
            if not isinstance(rec[key], str):
                raise InputError(f"{key} must be the edit's words as a text (\"\" for none), got "
                                 f"{json.dumps(rec[key])}", path, row)
        r, a = rec["r"], rec["a"]
        if clip not in references:
            if clip in clip_ids:
                raise InputError(f"clip {clip!r} is in the corpus but has no reference text, and an edit is checked "
                                 "against its clip's reference and applied to it: give the clip its reference (in a "
                                 "folder corpus a .txt file of the audio's name beside it; in a manifest its text "
                                 "field), or leave its edits out", path, row)
            if skipped is None:
                twin = space_twin(ClipIds.of([clip]), ClipIds.of(clip_ids or references))
                why = f": {space_twin_words(path, twin[0], 'the corpus', twin[1])}" if twin else ""
                raise InputError(f"clip {clip!r} is not in the corpus{why}", path, row)
            skipped.append(clip)
            continue
        if clip not in cache:
            cache[clip] = tuple(normalize(references[clip]).split())
        ref = cache[clip]
        if not 0 <= start <= end <= len(ref) or tuple(r.split()) != ref[start:end]:
            raise InputError(f"edit does not match the reference of {clip!r}: tokens {start}:{end} are "
                             f"{' '.join(ref[start:end])!r}, the edit says {r!r} (same --normalizer as refdis?)",
                             path, row)
        edit_id = str(rec.get("edit_id") or f"{clip}@{start}-{end}")
        for key, what in ((("id", edit_id), f"edit id {edit_id!r}"),
                          ((clip, start, end, tuple(a.split())), f"the edit of clip {clip!r} at tokens {start}:{end}")):
            if key in first_at:  # one edit twice was measured twice and counted twice in every rate
                raise InputError(f"{what} repeats row {first_at[key]}: give each edit once, or it counts twice",
                                 path, row)
            first_at[key] = row
        kind, position = classify(start, end, a.split(), len(ref))
        # A kind misspelt ("substitution") or left out was its own group in every table and no span of the
        # translation probe; one the span and a contradict was read as given.  The kind follows from them.
        if rec.get("kind", kind) != kind:
            raise InputError(f"kind is {json.dumps(rec['kind'])}, and the edit of tokens {start}:{end} to {a!r} is "
                             f"a {kind!r} (as asraudit refdis --edits-out writes it): give kind {json.dumps(kind)}, "
                             "or leave it out", path, row)
        # A position was kept as written: "middle" for a span at the start, 5 or null ("None") in lift's rows.
        if rec.get("position", position) != position:
            raise InputError(f"position is {json.dumps(rec['position'])}, and the edit of tokens {start}:{end} (of "
                             f"{len(ref)} in the reference) is at its {position} (as asraudit refdis --edits-out writes it): give "
                             f"position {json.dumps(position)}, or leave it out", path, row)
        out.append(EditItem(edit_id, clip, kind, position, ref, start, end, tuple(a.split())))
    return out


def _token_index(value, key: str, path: Path, row: int) -> int:
    """A token index of an edits file: true was 1 and 2.7 was 2 (int()), another span than the row meant."""
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise InputError(f"{key} must be a token index (a whole number), got {json.dumps(value)}", path, row)
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{key} must be a token index (a whole number), got {json.dumps(value)}", path, row) from None


def _text_and_span(tokens: Sequence[str], start: int, end: int, channel: Channel) -> tuple[str, int, int]:
    """Tokens joined by spaces (with the channel's prefix/suffix), and the characters of tokens[start:end]."""
    words, shift = channel.view(tokens)
    lo, hi = start + shift, end + shift
    text = " ".join(words)
    char_start = sum(len(w) + 1 for w in words[:lo])
    char_end = char_start + len(" ".join(words[lo:hi]))
    return text, char_start, char_end


def forced_texts(item: EditItem, channel: Channel) -> tuple[tuple[str, int, int] | None, tuple[str, int, int] | None]:
    """(text, span) for λ(r) and for λ(a); ``None`` where the span is empty (an insertion's r, a deletion's a)."""
    lr = _text_and_span(item.ref, item.start, item.end, channel) if item.end > item.start else None
    la = _text_and_span(item.audio_tokens, item.start, item.start + len(item.a), channel) if item.a else None
    return lr, la


ChannelOf = Callable[[str], "Channel | None"]


def _identity(clip_id: str) -> Channel:
    return Channel()


def lift_plan(items: Sequence[EditItem], channel_of: ChannelOf = _identity) -> tuple[dict[str, list], Score]:
    """Conditions (clip, silence) and candidate texts per clip."""
    grid: dict[str, list] = {}
    texts: dict[str, list[str]] = {}
    for item in items:
        ch = channel_of(item.clip_id)
        if ch is None:
            continue
        if item.clip_id not in grid:
            grid[item.clip_id] = [ch.audio(), ch.silence()] if ch.audio().id != ch.silence().id else [ch.audio()]
        for forced in forced_texts(item, ch):
            if forced is not None and forced[0] not in texts.setdefault(item.clip_id, []):
                texts[item.clip_id].append(forced[0])
    return grid, Score(texts)


def refuse_silent_clips(clips: Sequence, items: Sequence[EditItem]) -> None:
    """Refuse an edit's clip whose audio is silence (case 303): λ compares the clip with silence of its length, so on
    a clip of silence (a file that lost its audio, a wrong file) every λ was 0 by construction, read as the prior
    writing every edit, with no word.  Each clip with an edit is decoded once, here, before any model loads."""
    refuse_silent_audio(clips, {i.clip_id for i in items},
                        "lift compares a clip with silence of its length, so every λ on it would be 0 by "
                        "construction, as if the prior wrote the reference: check its audio file, or leave its edits out")


def run_lift(store, executor, models: Sequence, clips: Sequence, items: Sequence[EditItem], *,
             channel_of: ChannelOf = _identity, description: str = "lift"):
    wanted = {i.clip_id for i in items}
    grid, task = lift_plan(items, channel_of)
    return executor.run(store, models, [c for c in clips if c.id in wanted], task, grid, description=description)


@dataclass(frozen=True)
class EditLift:
    model: str
    item: EditItem
    lift_r: float | None
    lift_a: float | None

    def to_json(self) -> dict:
        i = self.item
        return {"model": self.model, "edit_id": i.edit_id, "clip": i.clip_id, "kind": i.kind, "position": i.position,
                "r": " ".join(i.r), "a": " ".join(i.a), "lift_r": json_number(self.lift_r),
                "lift_a": json_number(self.lift_a)}


@dataclass(frozen=True)
class _ClipRef:
    id: str


def read_lift(store, identities: Sequence, items: Sequence[EditItem], *,
              channel_of: ChannelOf = _identity) -> list[EditLift]:
    """λ(r) and λ(a) of every edit for every scoring model, from stored scores (``None`` when missing)."""
    _, task = lift_plan(items, channel_of)
    out = []
    for ident in identities:
        if not getattr(ident, "can_score", False):
            continue
        for item in items:
            ch = channel_of(item.clip_id)
            if ch is None:
                continue
            params = task.params_for(_ClipRef(item.clip_id))
            heard = store.get(make_job(ident.model_id, ident.config_hash, item.clip_id, ch.audio().id, SCORE, params))
            silent = store.get(make_job(ident.model_id, ident.config_hash, item.clip_id, ch.silence().id, SCORE, params))
            values: list[float | None] = []
            for forced in forced_texts(item, ch):
                if forced is None or heard is None or silent is None:
                    values.append(None)
                    continue
                k = params["candidates"].index(forced[0])
                values.append(audio_lift(heard.scores[k], silent.scores[k], forced[1], forced[2]))
            out.append(EditLift(ident.model_id, item, values[0], values[1]))
    return out


@dataclass(frozen=True)
class LiftReport:
    model: str
    group: str
    lift_r: LiftSummary
    lift_a: LiftSummary


def summarize_edit_lift(rows: Sequence[EditLift], by: Callable[[EditItem], str] = lambda i: "all",
                        n_boot: int = 1000, seed: int = 0) -> list[LiftReport]:
    groups: dict[tuple[str, str], list[EditLift]] = {}
    for row in rows:
        groups.setdefault((row.model, by(row.item)), []).append(row)
    return [LiftReport(model, group,
                       summarize_lift([r.lift_r for r in rs if r.lift_r is not None], n_boot=n_boot, seed=seed),
                       summarize_lift([r.lift_a for r in rs if r.lift_a is not None], n_boot=n_boot, seed=seed))
            for (model, group), rs in groups.items()]
