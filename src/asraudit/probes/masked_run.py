"""Masked-entity recovery and the hidden word's audio lift, run through the store.

The pure parts live in ``masked`` (which words, was it recovered) and
``lift`` (λ arithmetic); this module turns targets into jobs, runs them with
an executor, and reads the outcomes back from the store, so a rerun costs
nothing and a killed run resumes.

Per target, a model is asked to transcribe the clip three ways: clean (the
target audible: was it competent on this word?), with the target masked
(recovery), and with a control word of similar length masked (the base rate
at which any masked word comes back from context).  Models that expose
likelihoods also teacher-force the hidden text under the masked clip, the
clean clip and silence, giving λ(target | masked) and λ(target | clean).
A model that hears rather than remembers writes the masked number at chance
and has λ(target | masked) ≈ 0: the masked audio makes the number no more
likely than no audio at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Collection, Iterable, Mapping, Sequence

from asraudit.audio.conditions import SpanMask
from asraudit.audio.timing import WordTiming, word_spans
from asraudit.data.mask_recipe import RecipeRow, locate_recipe_word
from asraudit.data.predictions import ClipIds, space_twin, space_twin_words
from asraudit.errors import InputError
from asraudit.metrics.stats import Interval, json_number, wilson_interval
from asraudit.probes.channel import Channel
from asraudit.probes.lift import LiftSummary, audio_lift, summarize_lift
from asraudit.probes.masked import MaskTarget, control_target, is_recovered, select_targets
from asraudit.plain_json import to_plain
from asraudit.run.spec import SCORE, TRANSCRIBE, Score, Transcribe, make_job


@dataclass(frozen=True)
class MaskSettings:
    """How targets are hidden (see ``SpanMask`` for pad and guard)."""

    fill: str = "silence"
    attenuation_db: float = 20.0
    pad: float = 0.02
    guard: float = 0.05
    control: bool = True
    seed: int = 0


@dataclass(frozen=True)
class MaskItem:
    """One target: the clip's hidden text (what was said), the target, its mask, and a control."""

    target: MaskTarget
    text: str
    mask: SpanMask
    control: MaskTarget | None = None
    control_mask: SpanMask | None = None

    @property
    def clip_id(self) -> str:
        return self.target.clip_id

    @property
    def words(self) -> list[str]:
        return self.text.split()

    @property
    def key(self) -> str:
        return f"{self.target.clip_id}#{self.target.index}"


def span_mask(timings: Sequence[WordTiming] | None, target: MaskTarget, settings: MaskSettings) -> SpanMask:
    """The mask of a target; with the clip's timings, it never reaches into a neighbouring word."""
    not_before = not_after = None
    if timings is not None:
        if target.index > 0:
            not_before = timings[target.index - 1].end
        if target.index + 1 < len(timings):
            not_after = timings[target.index + 1].start
    return SpanMask(target.start, target.end, fill=settings.fill, attenuation_db=settings.attenuation_db,
                    pad=settings.pad, guard=settings.guard, not_before=not_before, not_after=not_after,
                    seed=settings.seed)


def plan_items(texts: Mapping[str, str], timings: Mapping[str, Sequence[WordTiming]], *, kind: str = "numbers",
               words: Iterable[str] = (), skip_trivial: bool = True, settings: MaskSettings = MaskSettings()
               ) -> list[MaskItem]:
    """Targets of every clip that has timings, each with its mask and (optionally) a control."""
    listed = tuple(words)
    items = []
    for clip_id, text in texts.items():
        clip_timings = timings.get(clip_id)
        if clip_timings is None:
            continue
        if len(clip_timings) != len(text.split()):
            raise ValueError(f"clip {clip_id!r}: {len(clip_timings)} timings for {len(text.split())} words")
        for target in select_targets(clip_id, clip_timings, kind=kind, words=listed, skip_trivial=skip_trivial):
            if target.end <= target.start:
                continue  # the aligner gave it no audio: nothing to mask
            control = control_target(clip_id, clip_timings, target, seed=settings.seed) if settings.control else None
            items.append(MaskItem(target, text, span_mask(clip_timings, target, settings), control,
                                  span_mask(clip_timings, control, settings) if control else None))
    return items


# A recipe span may reach this far past the audio's end (an aligner's padding, rounding to 10 ms frames).
RECIPE_END_SLACK = 0.1


def items_from_recipe(rows: Sequence[RecipeRow], texts: Mapping[str, str], settings: MaskSettings = MaskSettings(),
                      seconds: Callable[[str], float | None] | None = None) -> list[MaskItem]:
    """Targets given by a recipe file: the span as written, no neighbour timings, no control.

    ``seconds`` (clip id -> its audio's length, None where unknown) checks each span lies in its clip: a span past
    the end masks nothing, and the word, still heard, was counted as recovered from context (a recipe written in
    milliseconds, or for another corpus's clips, passed silently)."""
    items = []
    for row in rows:
        text = texts.get(row.clip_id)
        if text is None:  # a recipe's id with a space at an end (a spreadsheet's cell) is named as such (case 329)
            twin = space_twin(ClipIds.of([row.clip_id]), ClipIds.of(texts))
            why = f": {space_twin_words(Path(row.source), twin[0], 'the corpus', twin[1])}" if twin else ""
            raise InputError(f"clip {row.clip_id!r} is not in the corpus{why}", row.source, row.row)
        length = seconds(row.clip_id) if seconds is not None else None
        if length is not None and row.t1 > length + RECIPE_END_SLACK:
            raise InputError(f"span [{row.t0:g}, {row.t1:g}] s of clip {row.clip_id!r} ends after its audio "
                             f"({length:.2f} s), so it would mask {'nothing' if row.t0 >= length else 'past the end'}: "
                             "a recipe in milliseconds, or for other audio?", row.source, row.row)
        index = locate_recipe_word(text.split(), row)
        target = MaskTarget(row.clip_id, index, text.split()[index], row.t0, row.t1, row.kind)
        items.append(MaskItem(target, text, span_mask(None, target, settings)))
    return items


# ------------------------------------------------------------------- the grid

ChannelOf = Callable[[MaskItem], "Channel | None"]


def identity_channel(item: MaskItem) -> Channel:
    return Channel()


def _view_text(item: MaskItem, channel: Channel) -> tuple[str, int]:
    """The text the channel's audio says, and the target's word index in it."""
    view, shift = channel.view(item.words)
    return " ".join(view), item.target.index + shift


def transcribe_grid(items: Sequence[MaskItem], channel_of: ChannelOf = identity_channel, control: bool = True
                    ) -> dict[str, list]:
    """clip id -> conditions to transcribe: clean, each target masked, each control masked."""
    grid: dict[str, dict[str, object]] = {}
    for item in items:
        ch = channel_of(item)
        if ch is None or not ch.keeps_timing or not ch.kept(item.target.index):
            continue
        conds = grid.setdefault(item.clip_id, {})
        for c in (ch.audio(), ch.audio(item.mask)) + ((ch.audio(item.control_mask),)
                                                        if control and item.control_mask is not None
                                                        and ch.kept(item.control.index) else ()):
            conds.setdefault(c.id, c)
    return {clip: list(conds.values()) for clip, conds in grid.items()}


def score_plan(items: Sequence[MaskItem], channel_of: ChannelOf = identity_channel) -> tuple[dict[str, list], Score]:
    """Conditions and candidate texts to teacher-force for lift: clean, masked and silent, the hidden text."""
    grid: dict[str, dict[str, object]] = {}
    texts: dict[str, list[str]] = {}
    for item in items:
        ch = channel_of(item)
        if ch is None or not ch.keeps_timing or not ch.kept(item.target.index):
            continue
        conds = grid.setdefault(item.clip_id, {})
        for c in (ch.audio(), ch.audio(item.mask), ch.silence()):
            conds.setdefault(c.id, c)
        text, _ = _view_text(item, ch)
        if text not in texts.setdefault(item.clip_id, []):
            texts[item.clip_id].append(text)
    return {clip: list(c.values()) for clip, c in grid.items()}, Score(texts)


def run_masked(store, executor, models: Sequence, clips: Sequence, items: Sequence[MaskItem], *,
               channel_of: ChannelOf = identity_channel, lift: bool = True, control: bool = True,
               description: str = "mask", unscorable: Collection[str] = ()):
    """Run every job the targets need (stored ones are skipped); returns the executor summaries.

    ``models`` are loaded models (or factories, for the Ray executor); lift
    runs only for models that can score, and not on the clips ``unscorable``
    names (longer than a scoring model's window: their recovery is still read).
    """
    wanted = {i.clip_id for i in items}
    chosen = [c for c in clips if c.id in wanted]
    first = executor.run(store, models, chosen, Transcribe(), transcribe_grid(items, channel_of, control),
                         description=f"{description}: transcribe")
    summaries = [first]
    scorers = [m for m, ident in zip(models, first.identities) if ident.can_score]
    scored = [i for i in items if i.clip_id not in unscorable]
    if lift and scorers and scored:
        grid, task = score_plan(scored, channel_of)
        summaries.append(executor.run(store, scorers, chosen, task, grid, description=f"{description}: score"))
    return summaries


# ---------------------------------------------------------------- read back


@dataclass(frozen=True)
class MaskOutcome:
    """One model on one target (``None``: not measured, e.g. no likelihoods or no control)."""

    model: str
    item: MaskItem
    clean: bool | None
    masked: bool | None
    control: bool | None
    lift_masked: float | None
    lift_clean: float | None

    def to_json(self) -> dict:
        t = self.item.target
        return to_plain({"model": self.model, "clip": t.clip_id, "index": t.index, "word": t.word, "kind": t.kind,
                         "t0": t.start, "t1": t.end, "mask": self.item.mask.id,
                         "control_word": self.item.control.word if self.item.control else None,
                         "clean_recovered": self.clean, "masked_recovered": self.masked,
                         "control_recovered": self.control, "lift_masked": self.lift_masked,
                         "lift_clean": self.lift_clean})


def target_char_span(text: str, index: int) -> tuple[int, int]:
    """Characters of word ``index`` of ``text`` without surrounding punctuation (what λ is normalised by)."""
    s, e = word_spans(text)[index]
    word = text[s:e]
    lead = len(word) - len(word.lstrip(".,;:!?\"'()[]"))
    trail = len(word) - len(word.rstrip(".,;:!?\"'()[]"))
    if lead + trail >= len(word):
        return s, e
    return s + lead, e - trail


def read_masked(store, identities: Sequence, items: Sequence[MaskItem], normalize: Callable[[str], str], *,
                channel_of: ChannelOf = identity_channel, lift: bool = True, control: bool = True,
                unscorable: Collection[str] = ()) -> list[MaskOutcome]:
    """Outcomes of every model on every target, from stored results (missing results read as ``None``).

    ``lift``/``control`` False leave those readouts out (``None``) even where an earlier run stored them:
    a run asked without them reports what it measured, not what the store happens to hold."""
    out = []
    _, score_task = score_plan([i for i in items if i.clip_id not in unscorable], channel_of)  # as run_masked
    for ident in identities:
        for item in items:
            ch = channel_of(item)
            if ch is None or not ch.keeps_timing or not ch.kept(item.target.index):
                continue
            view_words, shift = ch.view(item.words)
            index = item.target.index + shift

            def said(condition) -> bool | None:
                res = store.get(make_job(ident.model_id, ident.config_hash, item.clip_id, condition.id, TRANSCRIBE, {}))
                return None if res is None else is_recovered(view_words, index, res.text or "", normalize)

            clean, masked = said(ch.audio()), said(ch.audio(item.mask))
            control_said = None
            if control and item.control_mask is not None and ch.kept(item.control.index):
                res = store.get(make_job(ident.model_id, ident.config_hash, item.clip_id,
                                         ch.audio(item.control_mask).id, TRANSCRIBE, {}))
                if res is not None:
                    control_said = is_recovered(view_words, item.control.index + shift, res.text or "", normalize)
            lift_masked = lift_clean = None
            params = score_task.params_for(_ClipRef(item.clip_id))
            if lift and getattr(ident, "can_score", False) and params is not None:
                text, _ = _view_text(item, ch)
                k = params["candidates"].index(text)
                start, end = target_char_span(text, index)

                def scores(condition):
                    res = store.get(make_job(ident.model_id, ident.config_hash, item.clip_id, condition.id, SCORE, params))
                    return None if res is None else res.scores[k]

                silent, heard, hidden = scores(ch.silence()), scores(ch.audio()), scores(ch.audio(item.mask))
                if silent is not None and hidden is not None:
                    lift_masked = audio_lift(hidden, silent, start, end)
                if silent is not None and heard is not None:
                    lift_clean = audio_lift(heard, silent, start, end)
            out.append(MaskOutcome(ident.model_id, item, clean, masked, control_said, lift_masked, lift_clean))
    return out


@dataclass(frozen=True)
class _ClipRef:
    id: str


# ------------------------------------------------------------------- summary


@dataclass(frozen=True)
class Rate:
    k: int
    n: int
    low: float
    high: float

    @property
    def rate(self) -> float:
        return self.k / self.n if self.n else float("nan")

    @property
    def interval(self) -> Interval:
        return Interval(self.rate, self.low, self.high, 0.95, "wilson")

    def to_json(self) -> dict:
        return {"k": self.k, "n": self.n, "rate": json_number(self.rate), "rate_interval": self.interval.to_json()}


def rate_of(values: Iterable[bool | None]) -> Rate:
    vals = [v for v in values if v is not None]
    k = sum(vals)
    return Rate(k, len(vals), *wilson_interval(k, len(vals)))


@dataclass(frozen=True)
class MaskSummary:
    """One model over all targets.

    ``masked``: recovery with the target masked (all targets); ``masked_if_clean``:
    the same over targets the model wrote correctly when it could hear them
    (recovery where the model was competent); ``control``: recovery of the
    masked control words, the base rate to compare with.
    """

    model: str
    n_targets: int
    clean: Rate
    masked: Rate
    masked_if_clean: Rate
    control: Rate
    lift_masked: LiftSummary
    lift_clean: LiftSummary

    def to_json(self) -> dict:
        def lift(s: LiftSummary) -> dict:
            return to_plain({"n": s.n, "mean": s.mean, "mean_interval": s.interval.to_json(),
                             "share_positive": s.share_positive})

        return {"model": self.model, "n_targets": self.n_targets, "clean": self.clean.to_json(),
                "masked": self.masked.to_json(), "masked_if_clean": self.masked_if_clean.to_json(),
                "control": self.control.to_json(), "lift_masked": lift(self.lift_masked),
                "lift_clean": lift(self.lift_clean)}


def summarize_masked(outcomes: Sequence[MaskOutcome], n_boot: int = 1000, seed: int = 0) -> list[MaskSummary]:
    by_model: dict[str, list[MaskOutcome]] = {}
    for o in outcomes:
        by_model.setdefault(o.model, []).append(o)
    out = []
    for model, rows in by_model.items():
        out.append(MaskSummary(
            model, len(rows),
            rate_of(o.clean for o in rows),
            rate_of(o.masked for o in rows),
            rate_of(o.masked for o in rows if o.clean),
            rate_of(o.control for o in rows),
            summarize_lift([o.lift_masked for o in rows if o.lift_masked is not None], n_boot=n_boot, seed=seed),
            summarize_lift([o.lift_clean for o in rows if o.lift_clean is not None], n_boot=n_boot, seed=seed),
        ))
    return out
