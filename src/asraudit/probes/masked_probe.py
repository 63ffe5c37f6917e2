"""Masked-entity recovery, once: plan the targets (recipe or aligned timings), run them, read and summarize.

``asraudit mask``, ``asraudit battery`` and the audit's masked and battery
stages plan targets with :func:`plan_masked` and measure them with
:func:`measure_masked`; they only render what comes back.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Callable, Mapping, Sequence

from asraudit.audio.timing import AlignmentFailure, TimingCache, WordTiming, align_clips
from asraudit.data.clip import refuse_silent_audio
from asraudit.data.mask_recipe import read_recipe
from asraudit.models.aligners import make_aligner
from asraudit.models.candidate_check import ScoreWindow
from asraudit.errors import InputError
from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED
from asraudit.probes.masked import select_targets
from asraudit.probes.masked_run import (
    MaskItem,
    MaskOutcome,
    MaskSettings,
    MaskSummary,
    items_from_recipe,
    plan_items,
    read_masked,
    run_masked,
    summarize_masked,
)
from asraudit.probes.sampling import sample

TARGET_KINDS = ("numbers", "names", "listed")
FILLS = ("silence", "noise")


@dataclass(frozen=True)
class MaskedParams:
    """Knobs of masked-entity recovery: one set of defaults for the command and the audit spec's ``[masked]``."""

    # numbers: what a benchmark-optimized model most often fills in from a memorized reference
    targets: str = field(default="numbers", metadata={"choices": TARGET_KINDS})
    # the words hidden with targets = "listed"
    words: tuple[str, ...] = ()
    # pocketsphinx needs no model download and times words well enough for a span mask
    align: str = "pocketsphinx"
    # targets from a recipe file (clip, t0, t1, word) instead of aligning
    recipe: Path | None = None
    # silence hides the word completely; noise keeps the clip's level (no silence cue)
    fill: str = field(default="silence", metadata={"choices": FILLS})
    # noise fill level below the clip RMS: audible as noise, far below speech
    attenuation_db: float = field(default=20.0, metadata={"range": (0.0, None)})
    # 20 ms each side covers an aligner's usual error at word edges
    pad: float = field(default=0.02, metadata={"range": (0.0, 1.0)})
    # at most 50 ms beyond the span may be touched, and never a neighbouring word
    guard: float = field(default=0.05, metadata={"range": (0.0, 1.0)})
    # a masked control word gives the base rate at which any hidden word comes back from context
    control: bool = True
    # teacher-forced λ of the hidden word (models that can score): recovery without likelihoods can be luck
    lift: bool = True
    # targets a language prior could guess (repeated words, idioms, parts of numbers) say nothing about the audio
    skip_trivial: bool = True
    # cap on targets (a seeded sample, see probes.sampling); None: every target
    max_targets: int | None = field(default=None, metadata={"minimum": 1})

    def validate(self) -> None:
        if self.targets not in TARGET_KINDS:
            raise InputError(f"targets must be one of {', '.join(TARGET_KINDS)}, got {self.targets!r}")
        if self.fill not in FILLS:
            raise InputError(f"fill must be one of {', '.join(FILLS)}, got {self.fill!r}")
        if self.targets == "listed" and not self.words:
            raise InputError("targets = \"listed\" needs words = [...]")
        # Knobs another knob makes unread were taken and never read (case 302): the run hid other words than asked.
        if self.recipe is not None and (unread := self.unread_beside_recipe()):
            raise InputError(f"a recipe gives the targets and their times, so {', '.join(unread)} would not be used: "
                             "leave them out, or the recipe out to find and time the targets")
        if self.words and self.targets != "listed":
            raise InputError(f"words = [...] are hidden with targets = \"listed\" only, and targets = "
                             f"\"{self.targets}\" hides {self.targets}, so the words would not be used: give "
                             "targets = \"listed\", or leave words out")

    def unread_beside_recipe(self) -> list[str]:
        """The knobs that find and time targets, set to other than their defaults: a recipe replaces them."""
        defaults = {f.name: f.default for f in fields(self)}
        return [name for name in ("targets", "words", "align", "skip_trivial") if getattr(self, name) != defaults[name]]

    def settings(self, seed: int) -> MaskSettings:
        return MaskSettings(fill=self.fill, attenuation_db=self.attenuation_db, pad=self.pad, guard=self.guard,
                            control=self.control, seed=seed)


@dataclass(frozen=True)
class MaskPlan:
    """Targets with their masks; the word timings they came from and the clips that could not be aligned."""

    items: list[MaskItem]
    timings: dict[str, list[WordTiming]] = field(default_factory=dict)
    wanted: dict[str, str] = field(default_factory=dict)       # clip -> text of every clip with a target
    failures: list[AlignmentFailure] = field(default_factory=list)


def _header_seconds(corpus) -> Callable[[str], float | None]:
    """clip id -> seconds of its audio file, from the header (None for audio held in memory: not decoded here)."""
    def seconds(clip_id: str) -> float | None:
        return corpus[clip_id].header_seconds() if clip_id in corpus else None

    return seconds


def refuse_silent_targets(clips: Sequence, items: Sequence[MaskItem]) -> None:
    """Refuse a target's clip whose audio is silence (case 303): hidden under silence in silence, its target was
    counted as not recovered and its λ, masked and clean, was 0 by construction, with no word."""
    refuse_silent_audio(clips, {i.clip_id for i in items},
                        "masking hides a word of a clip under silence and λ compares the clip with silence, so its "
                        "targets would read as not recovered and every λ on them as 0 by construction: check its "
                        "audio file, or leave its targets out")


def plan_masked(corpus, texts: Mapping[str, str], params: MaskedParams, *, timings_cache: Path | None,
                device: str = "cpu", seed: int = DEFAULT_SEED) -> MaskPlan:
    """Targets from a recipe, or from the clips' words timed by ``params.align`` (cached in ``timings_cache``).

    Only clips with a target are aligned: which words are targets depends on the words alone."""
    params.validate()
    settings = params.settings(seed)
    if params.recipe:
        return MaskPlan(items_from_recipe(read_recipe(params.recipe), texts, settings, _header_seconds(corpus)))
    wanted = {cid: t for cid, t in texts.items()
              if select_targets(cid, [WordTiming(w, i, i + 1) for i, w in enumerate(t.split())], kind=params.targets,
                                words=params.words, skip_trivial=params.skip_trivial)}
    aligner = make_aligner(params.align, device=device)
    timings, failures = align_clips(aligner, [(cid, corpus[cid], t) for cid, t in wanted.items()],
                                    TimingCache(timings_cache) if timings_cache else None)
    items = plan_items(wanted, timings, kind=params.targets, words=params.words, skip_trivial=params.skip_trivial,
                       settings=settings)
    return MaskPlan(items, timings, wanted, list(failures))


@dataclass(frozen=True)
class MaskedResult:
    """Recovery per model: the targets measured (after the cap), every outcome and the summaries."""

    found: int                      # targets planned before the cap
    items: list[MaskItem]
    outcomes: list[MaskOutcome]
    summaries: list[MaskSummary]
    jobs: list                      # the executor's summaries (transcribe, then score)
    # targets whose λ was not read because their clip is longer than a scoring model's window (recovery was),
    # and those clips (id -> seconds)
    too_long: int = 0
    too_long_clips: dict[str, float] = field(default_factory=dict)

    def left_out_note(self, window: ScoreWindow | None, what: str = "masked") -> str | None:
        """The line saying which targets' λ the window left out (None: none)."""
        if window is None or not self.too_long:
            return None
        return (f"{what}: λ of {self.too_long} target(s) not measured (their recovery is): they are on "
                f"{window.reason(self.too_long_clips)}")


def measure_masked(store, executor, models: Sequence, clips: Sequence, items: Sequence[MaskItem],
                   normalize: Callable[[str], str], params: MaskedParams = MaskedParams(), *,
                   n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED, description: str = "mask",
                   window: ScoreWindow | None = None) -> MaskedResult:
    """Run the targets (capped by ``params.max_targets``) through the store and summarize per model.

    ``window`` (``models.candidate_check.score_window`` of the models): no λ is read on longer clips."""
    chosen = sample(items, lambda i: i.key, params.max_targets, seed)
    if not chosen:
        return MaskedResult(len(items), [], [], [], [])
    wanted = {i.clip_id for i in chosen}
    long_clips = (window.too_long(c for c in clips if c.id in wanted)
                  if window is not None and params.lift else {})
    jobs = run_masked(store, executor, models, clips, chosen, lift=params.lift, control=params.control,
                      description=description, unscorable=long_clips)
    outcomes = read_masked(store, jobs[0].identities, chosen, normalize, lift=params.lift, control=params.control,
                           unscorable=long_clips)
    return MaskedResult(len(items), chosen, outcomes, summarize_masked(outcomes, n_boot=n_boot, seed=seed), jobs,
                        sum(i.clip_id in long_clips for i in chosen), long_clips)
