"""Run a trigger battery through the store: every condition, every probe, then the readout.

Each condition becomes channels (``battery.Channels``); the probes' own
runners (``masked_run``, ``lift_run``) and the accept-ref verdicts of
``battery.verdict_under`` do the work under each channel.  The original
condition's jobs carry exactly the keys of ``asraudit transcribe``,
``asraudit mask`` and ``asraudit lift``, so a battery after those commands
only computes what is new.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

from asraudit.audio.conditions import Compose, DonorSplice, Revoice
from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.timing import WordTiming
from asraudit.data.clip import refuse_silent_audio
from asraudit.errors import InputError
from asraudit.probes.channel import Channel, changes_length
from asraudit.probes.battery import BatterySpec, Channels, load_spec, normalized_channel, verdict_under
from asraudit.probes.battery_donors import DonorPool
from asraudit.probes.battery_readout import BatteryResult, Cell, readout
from asraudit.models.candidate_check import ScoreWindow
from asraudit.probes.lift_run import EditItem, read_lift, run_lift
from asraudit.probes.masked_run import MaskItem, read_masked, run_masked
from asraudit.probes.sampling import sample
from asraudit.run.spec import TRANSCRIBE, Transcribe, make_job


@dataclass(frozen=True)
class BatteryParams:
    """Knobs of the trigger battery (the audit spec's ``[battery]``)."""

    # the paper's conditions and contrasts (built in), or a battery TOML file
    spec: str = "paper"
    # caps on edits and masked targets probed under every condition (seeded samples, see probes.sampling):
    # each condition multiplies the work by the number of items
    max_edits: int | None = field(default=None, metadata={"minimum": 1})
    max_targets: int | None = field(default=None, metadata={"minimum": 1})
    # probe the masked targets too (when targets are planned)
    mask: bool = True


@dataclass
class BatteryInputs:
    """What the battery runs on.

    ``texts``: what each clip says as the masked probes read it (timings
    align to it); ``said``: what each clip says for re-voicing and as a
    donor's transcript (a corpus field such as ``spoken``, or the reference
    with the mined edits applied); ``timings``: word timings per clip (for
    truncation windows)."""

    corpus: object
    edits: Sequence[EditItem] = ()
    items: Sequence[MaskItem] = ()
    texts: Mapping[str, str] = field(default_factory=dict)
    said: Mapping[str, str] = field(default_factory=dict)
    timings: Mapping[str, Sequence[WordTiming]] = field(default_factory=dict)


def corrected_texts(edits: Sequence[EditItem]) -> dict[str, str]:
    """Per clip with edits: its normalized reference with every edit applied (what the panel says was said)."""
    by_clip: dict[str, list[EditItem]] = {}
    for e in edits:
        by_clip.setdefault(e.clip_id, []).append(e)
    out = {}
    for clip, es in by_clip.items():
        tokens = list(es[0].ref)
        for e in sorted(es, key=lambda e: (e.start, e.end), reverse=True):
            tokens[e.start:e.end] = list(e.a)
        out[clip] = " ".join(tokens)
    return out


def said_texts(corpus, said: Mapping[str, str] | None, edits: Sequence[EditItem]) -> dict[str, str]:
    """What each clip says, for re-voicing and as a donor's transcript.

    ``said`` (clip -> text from a corpus field such as ``spoken``) where it has the clip; else the raw
    reference; without ``said``, the clips with mined edits take their reference with the edits applied
    (what the panel says was said)."""
    out = {c.id: ((said or {}).get(c.id) or c.reference or "") for c in corpus}
    if said is None:
        out.update(corrected_texts(edits))
    return out


def measure_battery(store, executor, models: Sequence, inputs: "BatteryInputs", normalize: Callable[[str], str],
                    params: BatteryParams = BatteryParams(), *, min_ref_match: float = 0.5, n_boot: int = 1000,
                    seed: int = 0, on_condition: Callable[[str], None] | None = None,
                    window: ScoreWindow | None = None, spec: BatterySpec | None = None,
                    checked: bool = False) -> BatteryResult:
    """The battery named by ``params.spec`` over ``inputs``, its edits and targets capped by ``params``.

    ``window`` (``models.candidate_check.score_window`` of the models): no λ is read on longer clips, under
    any condition (the other readouts are).  ``spec``: the battery already read (``params.spec`` is not read
    again), e.g. with probes left out (``asraudit battery --no-lift``).  ``checked``: the caller ran
    ``check_clip_conditions`` on ``inputs`` before loading the models (no cap applies)."""
    spec = load_spec(params.spec) if spec is None else spec
    edits = sample(inputs.edits, lambda e: e.edit_id, params.max_edits, seed)
    items = sample(inputs.items, lambda i: i.key, params.max_targets, seed) if params.mask else []
    capped = BatteryInputs(inputs.corpus, edits, items, inputs.texts, inputs.said, inputs.timings)
    if not checked:
        check_clip_conditions(spec, capped)  # before the first condition runs
    result = run_battery(store, executor, models, spec, capped, normalize, min_ref_match=min_ref_match,
                         n_boot=n_boot, seed=seed, on_condition=on_condition, window=window)
    result.edits, result.targets = len(edits), len(items)
    return result


def run_battery(store, executor, models: Sequence, spec: BatterySpec, inputs: BatteryInputs,
                normalize: Callable[[str], str], *, min_ref_match: float = 0.5, n_boot: int = 1000, seed: int = 0,
                on_condition: Callable[[str], None] | None = None, window: ScoreWindow | None = None
                ) -> BatteryResult:
    probes = set(spec.probes)
    clips = list(inputs.corpus)
    probed = {e.clip_id for e in inputs.edits} | {i.clip_id for i in inputs.items}
    long_clips = window.too_long(c for c in clips if c.id in probed) if window is not None and "lift" in probes else {}
    pools: dict[str, DonorPool] = {}
    cells: dict[tuple[str, str, str], Cell] = {}
    identities = None
    notes: list[str] = []
    every = [Channels(cond, inputs.corpus, inputs.said, inputs.timings, pools) for cond in spec.conditions]
    # A splice or a re-voicing can make a clip longer than the window.  Measured from each variant's length
    # before anything is scored, such a clip's λ is left out under every condition, every model alike, as a
    # clip that is itself too long is: a change from the original and a contrast compare the same clips.
    # (masked targets only where the condition applies to them: not re-voiced audio, which has no timings)
    unscorable = set(long_clips)
    if window is not None and "lift" in probes:
        lengths: dict[str, int | None] = {}  # clip id -> its samples, measured once for every condition
        for cond, channels in zip(spec.conditions, every):
            scored_here = {e.clip_id for e in inputs.edits} | {i.clip_id for i in inputs.items
                                                               if _maskable(channels.for_target(i), i)}
            too_long = longer_variants(window, [c for c in clips if c.id in scored_here and c.id not in long_clips],
                                       channels.for_clip, lengths)
            if too_long:
                unscorable |= set(too_long)
                notes.append(variant_note(cond.name, window, too_long,
                                          sum(e.clip_id in too_long for e in inputs.edits),
                                          sum(i.clip_id in too_long and _maskable(channels.for_target(i), i)
                                              for i in inputs.items)))
    for cond, channels in zip(spec.conditions, every):
        if on_condition:
            on_condition(cond.name)
        if inputs.edits and probes & {"accept-ref", "lift"}:
            def edit_channel(clip_id, _ch=channels):
                return normalized_channel(_ch.for_clip(clip_id), normalize)

            edits = [e for e in inputs.edits if edit_channel(e.clip_id) is not None]
            if not edits:
                notes.append(f"{cond.name}: not applicable to edits")
            else:
                wanted = {e.clip_id for e in edits}
                chosen = [c for c in clips if c.id in wanted]
                grid = {cid: [edit_channel(cid).audio()] for cid in wanted}
                summary = executor.run(store, models, chosen, Transcribe(), grid,
                                       description=f"battery {spec.name}/{cond.name}: transcribe edits")
                identities = summary.identities
                if "accept-ref" in probes:
                    for ident in identities:
                        cell = cells.setdefault((ident.model_id, "accept-ref", cond.name), {})
                        for e in edits:
                            ch = edit_channel(e.clip_id)
                            res = store.get(make_job(ident.model_id, ident.config_hash, e.clip_id, ch.audio().id,
                                                     TRANSCRIBE, {}))
                            if res is None:
                                continue
                            v = verdict_under(e, res.text or "", ch, normalize, min_ref_match)
                            cell[e.edit_id] = (e.clip_id, float(v == "ref"), float(v in ("ref", "audio")))
                if "lift" in probes:
                    scorers = [m for m, i in zip(models, identities) if i.can_score]
                    if scorers:
                        scored = [e for e in edits if e.clip_id not in unscorable]
                        run_lift(store, executor, scorers, clips, scored, channel_of=edit_channel,
                                 description=f"battery {spec.name}/{cond.name}: lift")
                        for row in read_lift(store, identities, scored, channel_of=edit_channel):
                            if row.lift_r is not None:
                                cells.setdefault((row.model, "lift(r)", cond.name), {})[row.item.edit_id] = \
                                    (row.item.clip_id, row.lift_r, 1.0)
        if inputs.items and probes & {"recovery", "lift"}:
            applicable = [i for i in inputs.items if _maskable(channels.for_target(i), i)]
            if not applicable:
                notes.append(f"{cond.name}: not applicable to masked targets")
                continue
            summaries = run_masked(store, executor, models, clips, applicable, channel_of=channels.for_target,
                                   lift="lift" in probes, control=False, unscorable=unscorable,
                                   description=f"battery {spec.name}/{cond.name}: mask")
            identities = summaries[0].identities
            for o in read_masked(store, identities, applicable, normalize, channel_of=channels.for_target,
                                 unscorable=unscorable):
                if "recovery" in probes and o.masked is not None:
                    cells.setdefault((o.model, "recovery", cond.name), {})[o.item.key] = \
                        (o.item.clip_id, float(o.masked), 1.0)
                if "lift" in probes and o.lift_masked is not None:
                    cells.setdefault((o.model, "lift(mask)", cond.name), {})[o.item.key] = \
                        (o.item.clip_id, o.lift_masked, 1.0)
    model_ids = [i.model_id for i in identities] if identities else []
    result = readout(spec, cells, model_ids, n_boot=n_boot, seed=seed)
    if long_clips:
        n = (sum(e.clip_id in long_clips for e in inputs.edits), sum(i.clip_id in long_clips for i in inputs.items))
        notes.append(f"λ of {n[0]} edit(s) and {n[1]} masked target(s) not measured under any condition: they are "
                     f"on {window.reason(long_clips)}")
    result.notes.extend(notes)
    return result


def longer_variants(window: ScoreWindow, clips: Sequence, channel_of: Callable[[str], Channel | None],
                    lengths: dict[str, int | None] | None = None) -> dict[str, tuple[float, str]]:
    """clip id -> (seconds, what was done to it) of the clips whose audio under ``channel_of`` (a condition's
    channel per clip) is longer than ``window``: measured from the clip's length (its header, else its decoded
    samples) and what the condition adds (``Condition.samples_out``: a donor's length, the new voice's), before
    anything is scored.  A clip that keeps its length is not looked at (``window.too_long`` has the clips
    themselves).  ``lengths`` keeps the clips' lengths across conditions."""
    lengths = {} if lengths is None else lengths
    out = {}
    for clip in clips:
        ch = channel_of(clip.id)
        if ch is None or not changes_length(ch.condition):
            continue
        if clip.id not in lengths:
            seconds = clip.header_seconds()
            lengths[clip.id] = round(seconds * SAMPLE_RATE) if seconds is not None else len(clip.decode())
        n = ch.condition.samples_out(lengths[clip.id])
        if n > window.seconds * SAMPLE_RATE + 1:  # a sample over is the resampler's rounding, as in too_long
            out[clip.id] = (n / SAMPLE_RATE, _done_to(ch.condition))
    return out


def check_clip_conditions(spec: BatterySpec, inputs: BatteryInputs) -> None:
    """What the conditions need of the probed clips (those with edits or masked targets) that the battery found
    only on reaching the condition, after the models had run every condition before it, checked before any
    model runs: a ``revoice`` condition's text holding a NUL character (no TTS command line can hold one), and
    babble noise finding fewer donors with sound than its ``donors`` (a blank recording is passed over; the
    same seeded draw as the run's, each donor decoded once, its audio not kept)."""
    probed = {e.clip_id for e in inputs.edits} | {i.clip_id for i in inputs.items}
    refuse_silent_probed(spec, inputs)
    clips = [c.id for c in inputs.corpus if c.id in probed]
    pool, sound = None, {}
    for n, cond in enumerate(spec.conditions, start=1):
        where = f"[[condition]] #{n} ({cond.name})"
        if cond.type == "revoice":
            bad = next((c for c in clips if "\0" in inputs.said.get(c, "")), None)
            if bad is not None:
                raise InputError(f"{where}: re-voicing speaks clip {bad!r}'s text "
                                 f"{inputs.said[bad][:60]!r}, which holds a NUL character, and no TTS engine can "
                                 "be given one: remove it from the text", spec.source)
        elif cond.type == "noise" and cond.params["kind"] == "babble":
            pool = pool or DonorPool("benchmark", inputs.corpus, inputs.said)
            for clip_id in clips:
                try:
                    pool.check_sample(clip_id, inputs.said.get(clip_id, ""), int(cond.params["donors"]),
                                      int(cond.params["seed"]), sound)
                except InputError as exc:
                    raise InputError(f"{where}: {exc.message}", spec.source) from None


def refuse_silent_probed(spec: BatterySpec, inputs: BatteryInputs) -> None:
    """Refuse a clip whose own audio is silence where the battery reads λ or masked recovery on it (case 305, as
    ``lift`` and ``mask`` do, case 303): the check is on the original clip, and every condition but ``revoice``
    keeps that audio (noise is set against the clip's level, reverb and a codec keep silence silent, a splice only
    adds a donor's audio, truncation cuts it), so λ under the original, and each change read from it, was 0 by
    construction and its targets read as not recovered.  A battery of ``revoice`` conditions only (the clip's text
    spoken anew; no masked target applies) reads no clip's own audio, so it is not checked."""
    probes = set(spec.probes)
    if all(c.type == "revoice" for c in spec.conditions):
        return
    ids = ({e.clip_id for e in inputs.edits} if "lift" in probes else set()) | \
        ({i.clip_id for i in inputs.items} if probes & {"recovery", "lift"} else set())
    refuse_silent_audio(inputs.corpus.clips, ids,
                        "the battery reads λ and masked recovery on the clip's own audio under every condition but "
                        "revoice (noise is set against its level, a splice only adds a donor's audio), so every λ on "
                        "it would be 0 by construction and its targets not recovered: check its audio file, or leave "
                        "its edits and targets out")


def longer_splices(spec: BatterySpec, inputs: BatteryInputs, window: ScoreWindow | None) -> list[str]:
    """The lines ``run_battery`` will write for splice conditions whose variants are longer than ``window``,
    known before any model runs: the clips' and the donors' lengths from their headers, the donors chosen as
    the battery chooses them (``DonorPool.donor_seconds``; a TTS donor is synthesized).  A clip or donor
    whose header gives no length is left to the run, which measures every variant before scoring it."""
    if window is None or "lift" not in spec.probes:
        return []
    probed = {e.clip_id for e in inputs.edits} | {i.clip_id for i in inputs.items}
    clips = [c for c in inputs.corpus if c.id in probed]
    long_clips = window.too_long(clips)
    lines = []
    for cond in spec.conditions:
        if cond.type != "splice":
            continue
        p = cond.params
        pool = DonorPool(p["donor"], inputs.corpus, inputs.said)
        too_long = {}
        for clip in clips:
            own = clip.header_seconds()
            if clip.id in long_clips or own is None:
                continue
            ids, donor = pool.donor_seconds(clip.id, inputs.said.get(clip.id, ""), float(p["seconds"]), int(p["seed"]))
            if donor is None:
                continue
            # the splice as the run builds it, its donor audio left out: only its lengths are read here
            splice = DonorSplice(np.zeros(0, np.float32), ids, donor, p["where"], float(p["gap"]))
            n = splice.samples_out(round(own * SAMPLE_RATE))
            if n > window.seconds * SAMPLE_RATE + 1:
                too_long[clip.id] = (n / SAMPLE_RATE, _done_to(splice))
        if too_long:
            lines.append(variant_note(cond.name, window, too_long, sum(e.clip_id in too_long for e in inputs.edits),
                                      sum(i.clip_id in too_long for i in inputs.items), before=True))
    return lines


def _done_to(condition) -> str:
    """What a battery condition did to a clip, in words, for the line saying its variant is too long."""
    steps = condition.steps if isinstance(condition, Compose) else (condition,)
    for step in steps:
        if isinstance(step, DonorSplice):
            return f"appended with donor {step.donor_id!r}" if step.where == "append" else \
                f"prepended with donor {step.donor_id!r}"
        if isinstance(step, Revoice):
            return f"re-voiced by {step.engine}" + (f" ({step.voice_id})" if step.voice_id != "default" else "")
    return condition.id


def variant_note(condition: str, window: ScoreWindow, too_long: dict[str, tuple[float, str]], n_edits: int,
                 n_targets: int, *, before: bool = False) -> str:
    """The line saying which λ a condition's too-long variants leave out (``before``: said before any model
    runs, from the files' headers)."""
    first = next(iter(too_long))
    seconds, how = too_long[first]
    what = f"λ of {n_edits} edit(s) and {n_targets} masked target(s)" if n_targets or not n_edits else \
        f"λ of {n_edits} edit(s)"
    verb = "will be left out" if before else "left out"
    return (f"{condition}: {what} {verb} of the likelihood readouts under every condition (λ stays paired "
            f"across conditions): this condition makes {len(too_long)} clip(s) longer than {window.seconds:g} s, "
            f"and {window.model} scores one {window.seconds:g}-s window (e.g. clip {first!r} {how}, "
            f"{seconds:.1f} s); the other readouts read them")


def _maskable(channel, item: MaskItem) -> bool:
    return channel is not None and channel.keeps_timing and channel.kept(item.target.index)
